#include "server/service/model_upload.h"

#include "absl/strings/str_cat.h"
#include "server/audit_log.h"

namespace graphd::server {

grpc::ServerReadReactor<v1::LoadGraphChunk>* ModelUpload::Start(grpc::CallbackServerContext* context, const Env& env,
                                                                const char* method,
                                                                const google::protobuf::MessageLite* response,
                                                                Check check, Import import) {
  auto* call = new ModelUpload(context, env, method, response, std::move(check), std::move(import));
  if (Status admitted = call->Admit(env); !admitted.ok()) {
    call->Complete(admitted);
  } else {
    call->StartRead(&call->chunk_);
  }
  return call;
}

ModelUpload::ModelUpload(grpc::CallbackServerContext* context, const Env& env, const char* method,
                         const google::protobuf::MessageLite* response, Check check, Import import)
    : PooledCall(context, method, "", nullptr, response),
      env_(env),
      check_(std::move(check)),
      import_(std::move(import)) {}

ModelUpload::~ModelUpload() { Release(); }

void ModelUpload::Release() {
  std::string().swap(bytes_);
  if (charged_to_ != nullptr) charged_to_->Credit(total_);
  charged_to_ = nullptr;
}

void ModelUpload::OnDone() {
  Release();  // before the audit line and the gate: a drained server holds no upload
  Done();
  delete this;
}

void ModelUpload::OnReadDone(bool ok) {
  if (!ok) {  // the client is done sending, or the call was cancelled
    if (Status live = token().Check(); !live.ok()) {
      Complete(live);
    } else {
      Received();
    }
    return;
  }
  if (AuditLogEnabled()) add_request_bytes(static_cast<int64_t>(chunk_.ByteSizeLong()));
  Status status = !started_ ? Begin()
                  : chunk_.has_header() || chunk_.total_bytes() != 0
                      ? errors::InvalidArgument("LoadGraphStream: only the first message carries header and total_bytes")
                      : absl::OkStatus();
  if (status.ok()) status = Append(chunk_.data());
  if (!status.ok()) {
    Release();
    Complete(status);
    return;
  }
  chunk_.Clear();
  StartRead(&chunk_);
}

Status ModelUpload::Begin() {
  started_ = true;
  if (!chunk_.has_header()) {
    return errors::InvalidArgument("LoadGraphStream: the first message must carry the header (session_handle, name)");
  }
  header_ = std::move(*chunk_.mutable_header());
  set_session(header_.session_handle());
  if (header_.graph_case() != v1::LoadGraphRequest::GRAPH_NOT_SET || header_.input_names_size() > 0 ||
      header_.output_names_size() > 0) {
    return errors::InvalidArgument(
        "LoadGraphStream: the header carries no graph, input_names or output_names (the model's bytes come as "
        "the stream's data)");
  }
  total_ = chunk_.total_bytes();
  if (total_ < 1 || total_ > kMaxModelBytes) {
    return errors::InvalidArgument(absl::StrCat("LoadGraphStream: total_bytes is ", total_, "; it must be 1 to ",
                                                kMaxModelBytes, " (an onnx.ModelProto is under 2 GiB)"));
  }
  RETURN_IF_ERROR(check_(*this, header_));
  MemoryAccount* account = meters().memory != nullptr ? meters().memory : &RootMemoryAccount();
  RETURN_IF_ERROR(account->Charge(total_));
  charged_to_ = account;
  bytes_.reserve(static_cast<size_t>(total_));
  return absl::OkStatus();
}

Status ModelUpload::Append(const std::string& data) {
  if (static_cast<int64_t>(data.size()) > total_ - static_cast<int64_t>(bytes_.size())) {
    return errors::InvalidArgument(absl::StrCat("LoadGraphStream: the stream sent more than the ", total_,
                                                " bytes its header declared"));
  }
  bytes_.append(data);
  const auto start = Clock::now();
  hasher_.Advance(bytes_);
  hash_us_ += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
  return absl::OkStatus();
}

void ModelUpload::Received() {
  if (!started_) {
    Complete(errors::InvalidArgument("LoadGraphStream: the stream ended before its header"));
    return;
  }
  if (static_cast<int64_t>(bytes_.size()) != total_) {
    const int64_t got = static_cast<int64_t>(bytes_.size());
    Release();
    Complete(errors::InvalidArgument(absl::StrCat("LoadGraphStream: the stream ended after ", got, " of the ",
                                                  total_, " bytes its header declared")));
    return;
  }
  const auto start = Clock::now();
  fingerprint_ = hasher_.Finish(bytes_);
  hash_us_ += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
  Schedule(env_, [this](PooledCall& call) { return import_(call, *this); });
}

}  // namespace graphd::server
