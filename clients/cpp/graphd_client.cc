#include "clients/cpp/graphd_client.h"

#include <random>

#include "absl/strings/str_cat.h"

namespace graphd::client {
namespace {

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  std::string message = s.error_message();
  // gRPC's own error for a message over the server's limit names no setting.
  if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
      message.find("message larger than max") != std::string::npos) {
    message += "; the server takes messages up to its --max-message-bytes (default 64 MiB; "
               "GRAPHD_MAX_MESSAGE_BYTES or max_message_bytes in its config file)";
  }
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), message);
}

template <typename Resp, typename Fn>
absl::StatusOr<Resp> Invoke(Fn fn) {
  Resp resp;
  grpc::Status s = fn(&resp);
  if (!s.ok()) return FromGrpc(s);
  return resp;
}

}  // namespace

std::string NormalizeTarget(const std::string& target) {
  for (const std::string scheme : {"grpc://", "grpcs://"}) {
    if (target.rfind(scheme, 0) == 0) return target.substr(scheme.size());
  }
  return target;
}

std::string RandomSessionHandle() {
  std::random_device rd;  // the OS's random source
  std::string key;
  for (int i = 0; i < 4; ++i) absl::StrAppend(&key, absl::Hex(rd(), absl::kZeroPad8));
  return key;
}

Client::Client(std::string target, ClientOptions options)
    : target_(NormalizeTarget(target)), options_(options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  const bool tls = options_.tls || target.rfind("grpcs://", 0) == 0 || !options_.root_certificates.empty() ||
                   !options_.private_key.empty();
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options_.root_certificates;
    ssl.pem_private_key = options_.private_key;
    ssl.pem_cert_chain = options_.certificate_chain;
    credentials = grpc::SslCredentials(ssl);
  }
  channel_ = grpc::CreateCustomChannel(target_, credentials, args);
  sessions_ = v1::SessionService::NewStub(channel_);
  diagnostics_ = v1::DiagnosticsService::NewStub(channel_);
  health_ = grpc::health::v1::Health::NewStub(channel_);
  inference_ = inference::GRPCInferenceService::NewStub(channel_);
}

void Client::Prepare(grpc::ClientContext& ctx) const {
  if (options_.timeout) ctx.set_deadline(std::chrono::system_clock::now() + *options_.timeout);
  if (!options_.token.empty()) ctx.AddMetadata("authorization", "Bearer " + options_.token);
}

void Client::PrepareSession(grpc::ClientContext& ctx, const std::string& handle) const {
  Prepare(ctx);
  // A handle far longer than any real one is no session's: no route (nor a header over
  // gRPC's metadata limit); the server answers NOT_FOUND.
  if (!handle.empty() && handle.size() <= 128) ctx.AddMetadata(kSessionRouteHeader, handle);
}

absl::StatusOr<std::string> Client::Health(const std::string& service) {
  grpc::ClientContext ctx;
  Prepare(ctx);
  grpc::health::v1::HealthCheckRequest req;
  req.set_service(service);
  grpc::health::v1::HealthCheckResponse resp;
  grpc::Status s = health_->Check(&ctx, req, &resp);
  if (s.error_code() == grpc::StatusCode::NOT_FOUND) return std::string("SERVICE_UNKNOWN");
  if (!s.ok()) return FromGrpc(s);
  return grpc::health::v1::HealthCheckResponse::ServingStatus_Name(resp.status());
}

absl::StatusOr<std::vector<v1::DeviceAttributes>> Client::ListDevices() {
  grpc::ClientContext ctx;
  Prepare(ctx);
  auto resp = Invoke<v1::ListDevicesResponse>(
      [&](auto* r) { return sessions_->ListDevices(&ctx, v1::ListDevicesRequest(), r); });
  if (!resp.ok()) return resp.status();
  return std::vector<v1::DeviceAttributes>(resp->device().begin(), resp->device().end());
}

absl::StatusOr<v1::CreateSessionResponse> Client::CreateSession(const v1::GraphDef& graph) {
  grpc::ClientContext ctx;
  PrepareSession(ctx, RandomSessionHandle());  // the handle the server adopts
  v1::CreateSessionRequest req;
  *req.mutable_graph_def() = graph;
  return Invoke<v1::CreateSessionResponse>([&](auto* r) { return sessions_->CreateSession(&ctx, req, r); });
}

absl::Status Client::CloseSession(const std::string& handle) {
  grpc::ClientContext ctx;
  PrepareSession(ctx, handle);
  v1::CloseSessionRequest req;
  req.set_session_handle(handle);
  return Invoke<v1::CloseSessionResponse>([&](auto* r) { return sessions_->CloseSession(&ctx, req, r); })
      .status();
}

absl::StatusOr<v1::RunResponse> Client::Run(const v1::RunRequest& request) {
  grpc::ClientContext ctx;
  PrepareSession(ctx, request.session_handle());
  return Invoke<v1::RunResponse>([&](auto* r) { return sessions_->Run(&ctx, request, r); });
}

absl::StatusOr<v1::MakeCallableResponse> Client::MakeCallable(const v1::MakeCallableRequest& request) {
  grpc::ClientContext ctx;
  PrepareSession(ctx, request.session_handle());
  return Invoke<v1::MakeCallableResponse>([&](auto* r) { return sessions_->MakeCallable(&ctx, request, r); });
}

absl::StatusOr<v1::RunCallableResponse> Client::RunCallable(const v1::RunCallableRequest& request) {
  grpc::ClientContext ctx;
  PrepareSession(ctx, request.session_handle());
  return Invoke<v1::RunCallableResponse>([&](auto* r) { return sessions_->RunCallable(&ctx, request, r); });
}

absl::StatusOr<v1::LoadModuleResponse> Client::LoadModule(const v1::LoadModuleRequest& request) {
  grpc::ClientContext ctx;
  PrepareSession(ctx, request.session_handle());
  return Invoke<v1::LoadModuleResponse>([&](auto* r) { return sessions_->LoadModule(&ctx, request, r); });
}

absl::StatusOr<v1::CallResponse> Client::Call(const v1::CallRequest& request) {
  grpc::ClientContext ctx;
  PrepareSession(ctx, request.session_handle());
  return Invoke<v1::CallResponse>([&](auto* r) { return sessions_->Call(&ctx, request, r); });
}

absl::StatusOr<v1::DescribeFunctionResponse> Client::DescribeFunction(const v1::DescribeFunctionRequest& request) {
  grpc::ClientContext ctx;
  PrepareSession(ctx, request.session_handle());
  return Invoke<v1::DescribeFunctionResponse>([&](auto* r) { return sessions_->DescribeFunction(&ctx, request, r); });
}

absl::StatusOr<std::string> Client::Echo(const std::string& payload) {
  v1::EchoRequest req;
  req.set_payload(payload);
  auto resp = Echo(req);
  if (!resp.ok()) return resp.status();
  return std::move(*resp->mutable_payload());
}

absl::StatusOr<v1::EchoResponse> Client::Echo(const v1::EchoRequest& request) {
  grpc::ClientContext ctx;
  Prepare(ctx);
  return Invoke<v1::EchoResponse>([&](auto* r) { return diagnostics_->Echo(&ctx, request, r); });
}

absl::StatusOr<inference::RepositoryIndexResponse> Client::RepositoryIndex() {
  grpc::ClientContext ctx;
  Prepare(ctx);
  inference::RepositoryIndexRequest req;
  return Invoke<inference::RepositoryIndexResponse>([&](auto* r) { return inference_->RepositoryIndex(&ctx, req, r); });
}

absl::Status Client::LoadModel(const std::string& name) {
  grpc::ClientContext ctx;
  Prepare(ctx);
  inference::RepositoryModelLoadRequest req;
  req.set_model_name(name);
  return Invoke<inference::RepositoryModelLoadResponse>(
             [&](auto* r) { return inference_->RepositoryModelLoad(&ctx, req, r); })
      .status();
}

absl::Status Client::UnloadModel(const std::string& name) {
  grpc::ClientContext ctx;
  Prepare(ctx);
  inference::RepositoryModelUnloadRequest req;
  req.set_model_name(name);
  return Invoke<inference::RepositoryModelUnloadResponse>(
             [&](auto* r) { return inference_->RepositoryModelUnload(&ctx, req, r); })
      .status();
}

absl::StatusOr<inference::ModelInferResponse> Client::ModelInfer(const inference::ModelInferRequest& request) {
  grpc::ClientContext ctx;
  Prepare(ctx);
  return Invoke<inference::ModelInferResponse>([&](auto* r) { return inference_->ModelInfer(&ctx, request, r); });
}

}  // namespace graphd::client
