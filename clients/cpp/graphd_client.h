// A small C++ client for graphd: health, devices, sessions, runs and echo over one
// channel. Thread-safe (gRPC stubs are). Errors come back as absl::Status with the
// gRPC code and the server's message.
#ifndef GRAPHD_CLIENTS_CPP_GRAPHD_CLIENT_H_
#define GRAPHD_CLIENTS_CPP_GRAPHD_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graphd/kserve/grpc_service.grpc.pb.h"
#include "graphd/v1/diagnostics.grpc.pb.h"
#include "graphd/v1/health.grpc.pb.h"
#include "graphd/v1/session.grpc.pb.h"

namespace graphd::client {

struct ClientOptions {
  // Per-call deadline; nullopt for none.
  std::optional<std::chrono::milliseconds> timeout = std::chrono::seconds(30);
  // The tenant's bearer token ("": none), sent as `authorization: Bearer TOKEN`.
  std::string token;
  // TLS (a "grpcs://" target, or any of these set): PEM contents of the roots ("": the
  // system's), and a client key and certificate chain for mutual TLS.
  bool tls = false;
  std::string root_certificates;
  std::string private_key;
  std::string certificate_chain;
};

// Request metadata with the session a call belongs to, so that a proxy in front of
// several replicas (deploy/proxy) sends it to the replica that holds the session:
// every SessionService call that names a session sends its handle; CreateSession
// sends a fresh random handle, which the server adopts for the new session. Other
// calls (health, echo, KServe) go without it and may reach any replica.
inline constexpr char kSessionRouteHeader[] = "graphd-session";

// 128 random bits as 32 lowercase hex digits: a proposed session handle.
std::string RandomSessionHandle();

class Client {
 public:
  // `target` is "host:port", "grpc://host:port" or "grpcs://host:port" (TLS).
  // Connecting is lazy: errors show on the first call.
  explicit Client(std::string target, ClientOptions options = {});

  // "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN" or "UNKNOWN".
  absl::StatusOr<std::string> Health(const std::string& service = "");
  absl::StatusOr<std::vector<v1::DeviceAttributes>> ListDevices();
  absl::StatusOr<v1::CreateSessionResponse> CreateSession(const v1::GraphDef& graph);
  absl::Status CloseSession(const std::string& handle);
  absl::StatusOr<v1::RunResponse> Run(const v1::RunRequest& request);
  absl::StatusOr<v1::MakeCallableResponse> MakeCallable(const v1::MakeCallableRequest& request);
  absl::StatusOr<v1::RunCallableResponse> RunCallable(const v1::RunCallableRequest& request);
  absl::StatusOr<std::string> Echo(const std::string& payload);
  absl::StatusOr<v1::EchoResponse> Echo(const v1::EchoRequest& request);
  absl::StatusOr<v1::LoadModuleResponse> LoadModule(const v1::LoadModuleRequest& request);
  absl::StatusOr<v1::CallResponse> Call(const v1::CallRequest& request);
  absl::StatusOr<v1::DescribeFunctionResponse> DescribeFunction(const v1::DescribeFunctionRequest& request);
  // KServe v2 (served models).
  absl::StatusOr<inference::RepositoryIndexResponse> RepositoryIndex();
  absl::Status LoadModel(const std::string& name);
  absl::Status UnloadModel(const std::string& name);
  absl::StatusOr<inference::ModelInferResponse> ModelInfer(const inference::ModelInferRequest& request);

  const std::string& target() const { return target_; }

 private:
  void Prepare(grpc::ClientContext& ctx) const;
  // Prepare plus `graphd-session: handle`.
  void PrepareSession(grpc::ClientContext& ctx, const std::string& handle) const;

  std::string target_;
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::SessionService::Stub> sessions_;
  std::unique_ptr<v1::DiagnosticsService::Stub> diagnostics_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> inference_;
};

// Strips an optional "grpc://" or "grpcs://" prefix.
std::string NormalizeTarget(const std::string& target);

}  // namespace graphd::client

#endif  // GRAPHD_CLIENTS_CPP_GRAPHD_CLIENT_H_
