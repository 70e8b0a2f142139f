// One LoadGraphStream RPC: a model uploaded in chunks (graphd.v1.LoadGraphChunk).
//
// The first message's header names the session and the model's size. Before any byte
// is kept, the call is admitted as every pooled call is (tenant, gate, the tenant's
// concurrent calls: PooledCall), the header is checked (`check`: the session exists
// and is the caller's, say), and the declared size is charged to the caller's memory
// account (the tenant's max_memory_bytes and the server's --memory-limit; a charge
// past the server's limit may wait --memory-wait-ms). The chunks then go into one
// buffer of exactly that size: a stream that sends more, or ends with less, fails
// with INVALID_ARGUMENT and keeps nothing. When the client has sent everything,
// `import` runs on the pool (as a unary call's work does) and the call finishes with
// its status and the response. The bytes are fingerprinted as they arrive (the
// content key that lets sessions share a parsed model), on the receiving thread,
// while the client sends the next chunk.
//
// The buffer is freed, and its charge given back, by Release() (the import calls it
// once the bytes are parsed, so that the model is not held three times) or when the
// call ends. Deletes itself when gRPC is done with it.
#ifndef GRAPHD_SERVER_SERVICE_MODEL_UPLOAD_H_
#define GRAPHD_SERVER_SERVICE_MODEL_UPLOAD_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "core/block_fingerprint.h"
#include "core/memory_account.h"
#include "graphd/v1/session.pb.h"
#include "server/service/pooled_call.h"

namespace graphd::server {

class ModelUpload final : public PooledCall, public grpc::ServerReadReactor<v1::LoadGraphChunk> {
 public:
  // The largest model: an onnx.ModelProto is at most 2 GiB - 1 bytes.
  static constexpr int64_t kMaxModelBytes = INT32_MAX;

  using Check = std::function<Status(PooledCall&, const v1::LoadGraphRequest& header)>;
  using Import = std::function<Status(PooledCall&, ModelUpload& upload)>;

  // Starts reading; `response` (the RPC's) is what `import` fills. Everything passed
  // must outlive the call.
  static grpc::ServerReadReactor<v1::LoadGraphChunk>* Start(grpc::CallbackServerContext* context, const Env& env,
                                                            const char* method,
                                                            const google::protobuf::MessageLite* response,
                                                            Check check, Import import);

  // For `import`: the first message's header, and the model's bytes (empty after
  // Release).
  const v1::LoadGraphRequest& header() const { return header_; }
  absl::string_view bytes() const { return bytes_; }
  // BlockFingerprint(bytes()), computed as the bytes arrived.
  graphd::Fingerprint Fingerprint() const { return fingerprint_; }
  // Microseconds spent on that (part of the server's import).
  int64_t hash_us() const { return hash_us_; }
  // Frees the bytes and gives their charge back.
  void Release();

  void OnReadDone(bool ok) override;
  void OnCancel() override { token().Cancel(); }
  void OnDone() override;

 private:
  ModelUpload(grpc::CallbackServerContext* context, const Env& env, const char* method,
              const google::protobuf::MessageLite* response, Check check, Import import);
  ~ModelUpload() override;
  void SendFinish(const grpc::Status& status) override { Finish(status); }
  // Takes the first message: checks the header, charges the size, sizes the buffer.
  Status Begin();
  // Takes one message's data.
  Status Append(const std::string& data);
  // All messages are in: runs the import on the pool.
  void Received();

  const Env& env_;
  Check check_;
  Import import_;
  v1::LoadGraphChunk chunk_;  // the message being read
  v1::LoadGraphRequest header_;
  bool started_ = false;  // the header arrived
  int64_t total_ = 0;     // declared size
  std::string bytes_;
  MemoryAccount* charged_to_ = nullptr;  // set while `total_` is charged
  BlockFingerprinter hasher_;
  graphd::Fingerprint fingerprint_;
  int64_t hash_us_ = 0;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_MODEL_UPLOAD_H_
