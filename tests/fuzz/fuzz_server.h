// What the fuzz targets (tests/fuzz/*_fuzzer.cc) share: one graphd server per fuzzing
// process (GraphdServer, in this process, on an ephemeral 127.0.0.1 port, with a small
// model repository), reached over gRPC like any client. What is fuzzed is therefore
// the path a remote client reaches: message parsing, authentication, decoding and
// validation, compiling and running. A crash or a sanitizer report anywhere in the
// process is a finding, and so is a server that stops answering (CheckAlive aborts).
#ifndef GRAPHD_TESTS_FUZZ_FUZZ_SERVER_H_
#define GRAPHD_TESTS_FUZZ_FUZZ_SERVER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "google/protobuf/message.h"
#include "graphd/v1/session.pb.h"
#include "grpcpp/grpcpp.h"

namespace graphd::fuzz {

// The model the repository serves: "add" (a source model, serve(x: float32[N]) -> x + 1).
inline constexpr char kModelName[] = "add";

class FuzzServer {
 public:
  // Starts the server on first use; aborts when it cannot.
  static FuzzServer& Get();

  // Sends `request` to `method` (a full name: "/graphd.v1.SessionService/Run") with a
  // deadline, and parses the answer into `response` (may be null) when OK.
  grpc::Status Call(const std::string& method, const google::protobuf::Message& request,
                    google::protobuf::Message* response, int deadline_ms = 2000);

  // A live session's handle: a new one after Renew() and every 100 uses, the previous
  // one closed (so that what inputs load does not pile up in one session).
  const std::string& Session();
  void Renew() { uses_ = kUsesPerSession; }

  // Aborts (a finding) unless the server answers a well-formed request.
  void CheckAlive();

 private:
  FuzzServer();
  static constexpr int kUsesPerSession = 100;

  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string session_;
  int uses_ = kUsesPerSession;
};

// Zero-filled tensors for a loaded graph's declared inputs (unknown dims taken as 1), or
// nullopt when one is not a plain tensor or would hold more than 4096 elements.
std::optional<std::vector<v1::TensorProto>> ZeroInputs(const v1::LoadGraphResponse& graph);

// Loads `request` (its session handle set here) and, when that works and the inputs
// are plain tensors, calls the graph once with zeros: what the graph-format fuzzers
// share.
void LoadAndCallGraph(v1::LoadGraphRequest request);

}  // namespace graphd::fuzz

#endif  // GRAPHD_TESTS_FUZZ_FUZZ_SERVER_H_
