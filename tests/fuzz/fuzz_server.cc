#include "tests/fuzz/fuzz_server.h"

#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <filesystem>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/dtype.h"
#include "core/logging.h"
#include "graphd/v1/diagnostics.pb.h"
#include "grpcpp/generic/generic_stub.h"
#include "server/audit_log.h"
#include "server/config.h"
#include "server/server.h"

namespace graphd::fuzz {
namespace {

constexpr char kModelSource[] = R"(import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
def serve(x):
    return x + 1.0
)";

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "fuzz server: %s\n", what.c_str());
  std::abort();
}

// A model repository in a fresh temporary directory (left behind: a few hundred bytes).
std::string MakeRepository() {
  char dir[] = "/tmp/graphd-fuzz-XXXXXX";
  if (mkdtemp(dir) == nullptr) Die("cannot make a temporary directory");
  const std::filesystem::path version = std::filesystem::path(dir) / kModelName / "1";
  std::filesystem::create_directories(version);
  std::ofstream(version / "model.py") << kModelSource;
  return dir;
}

}  // namespace

struct FuzzServer::Impl {
  std::unique_ptr<server::GraphdServer> server;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<grpc::GenericStub> stub;
};

FuzzServer::FuzzServer() : impl_(std::make_unique<Impl>()) {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);  // as main.cc
  (void)SetLogLevel("off");
  (void)server::ConfigureAuditLog("off", false);
  server::ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.cpu_threads = 2;
  options.model_repository = MakeRepository();
  options.memory_limit = "1073741824";  // 1 GiB of tensors: the fuzzer's RSS limit is 2 GiB
  options.max_message_bytes = 4 << 20;
  impl_->server = std::make_unique<server::GraphdServer>(options);
  if (auto status = impl_->server->Start(); !status.ok()) Die(std::string(status.message()));
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  impl_->channel = grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", impl_->server->port()),
                                             grpc::InsecureChannelCredentials(), args);
  impl_->stub = std::make_unique<grpc::GenericStub>(impl_->channel);
}

FuzzServer& FuzzServer::Get() {
  static FuzzServer* server = new FuzzServer();  // lives as long as the process
  return *server;
}

grpc::Status FuzzServer::Call(const std::string& method, const google::protobuf::Message& request,
                              google::protobuf::Message* response, int deadline_ms) {
  std::string bytes;
  if (!request.SerializeToString(&bytes)) return grpc::Status(grpc::StatusCode::INTERNAL, "cannot serialize");
  grpc::Slice slice(bytes);
  grpc::ByteBuffer in(&slice, 1), out;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
  absl::Notification done;
  grpc::Status result;
  impl_->stub->UnaryCall(&context, method, grpc::StubOptions(), &in, &out, [&](grpc::Status s) {
    result = std::move(s);
    done.Notify();
  });
  done.WaitForNotification();
  if (result.ok() && response != nullptr) {
    std::vector<grpc::Slice> slices;
    if (!out.Dump(&slices).ok()) Die("cannot read a response");
    std::string answer;
    for (const auto& s : slices) answer.append(reinterpret_cast<const char*>(s.begin()), s.size());
    if (!response->ParseFromString(answer)) Die("the server sent an unparseable " + method + " response");
  }
  return result;
}

const std::string& FuzzServer::Session() {
  if (++uses_ <= kUsesPerSession) return session_;
  if (!session_.empty()) {
    v1::CloseSessionRequest close;
    close.set_session_handle(session_);
    Call("/graphd.v1.SessionService/CloseSession", close, nullptr);  // may be closed already
  }
  v1::CreateSessionResponse created;
  grpc::Status s = Call("/graphd.v1.SessionService/CreateSession", v1::CreateSessionRequest(), &created, 20000);
  if (!s.ok()) Die("CreateSession failed: " + s.error_message());
  session_ = created.session_handle();
  uses_ = 1;
  return session_;
}

void FuzzServer::CheckAlive() {
  v1::EchoRequest echo;
  echo.set_payload("alive?");
  v1::EchoResponse answer;
  grpc::Status s = Call("/graphd.v1.DiagnosticsService/Echo", echo, &answer, 20000);
  if (!s.ok() || answer.payload() != "alive?") Die("the server stopped answering: " + s.error_message());
}

std::optional<std::vector<v1::TensorProto>> ZeroInputs(const v1::LoadGraphResponse& graph) {
  std::vector<v1::TensorProto> out;
  for (const v1::GraphValueInfo& info : graph.inputs()) {
    if (info.sequence() || info.optional() || info.spec().shape().unknown_rank()) return std::nullopt;
    const int dtype = info.spec().dtype();
    if (!IsValidDType(dtype) || dtype == 0) return std::nullopt;
    v1::TensorProto t;
    t.set_dtype(info.spec().dtype());
    int64_t elements = 1;
    for (int64_t d : info.spec().shape().dim()) {
      const int64_t dim = d < 0 ? 1 : d;
      if (dim > 4096 || (elements *= dim) > 4096) return std::nullopt;
      t.mutable_shape()->add_dim(dim);
    }
    if (static_cast<DType>(dtype) == DType::kString) {
      for (int64_t i = 0; i < elements; ++i) t.add_string_val("");
    } else {
      t.set_content(std::string(elements * DTypeSize(static_cast<DType>(dtype)), '\0'));
    }
    out.push_back(std::move(t));
  }
  return out;
}

void LoadAndCallGraph(v1::LoadGraphRequest request) {
  FuzzServer& server = FuzzServer::Get();
  request.set_session_handle(server.Session());
  v1::LoadGraphResponse loaded;
  if (!server.Call("/graphd.v1.SessionService/LoadGraph", request, &loaded).ok()) return;
  auto inputs = ZeroInputs(loaded);
  if (!inputs) return;
  v1::CallGraphRequest call;
  call.set_session_handle(request.session_handle());
  call.set_name(loaded.name());
  for (auto& t : *inputs) *call.add_inputs() = std::move(t);
  server.Call("/graphd.v1.SessionService/CallGraph", call, nullptr);
}

}  // namespace graphd::fuzz
