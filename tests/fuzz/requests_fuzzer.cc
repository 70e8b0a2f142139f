// Every request a client can send, through the real server: byte 0 picks the method
// (every method of the session, diagnostics and KServe v2 services, sorted by full
// name; make_corpus.py numbers them the same way); the rest is the request message.
// Unless bit 7 of byte 0 is set, the request's session_handle is replaced by a live
// session's, so that inputs get past the handle check; with bit 6, a model_name is
// replaced by the served model's.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "tests/fuzz/fuzz_server.h"

namespace graphd::fuzz {
namespace {

struct Method {
  std::string path;  // "/graphd.v1.SessionService/Run"
  const google::protobuf::Message* prototype;
  const google::protobuf::Message* response;
};

std::vector<Method> AllMethods() {
  std::vector<Method> out;
  const auto* pool = google::protobuf::DescriptorPool::generated_pool();
  for (const char* name : {"graphd.v1.SessionService", "graphd.v1.DiagnosticsService", "inference.GRPCInferenceService"}) {
    const google::protobuf::ServiceDescriptor* service = pool->FindServiceByName(name);
    if (service == nullptr) std::abort();  // not linked in: the fuzzer would test nothing
    for (int i = 0; i < service->method_count(); ++i) {
      const auto* m = service->method(i);
      auto* factory = google::protobuf::MessageFactory::generated_factory();
      out.push_back({absl::StrCat("/", service->full_name(), "/", m->name()), factory->GetPrototype(m->input_type()),
                     factory->GetPrototype(m->output_type())});
    }
  }
  std::sort(out.begin(), out.end(), [](const Method& a, const Method& b) { return a.path < b.path; });
  return out;
}

void SetStringField(google::protobuf::Message& message, const char* field, const std::string& value) {
  const auto* f = message.GetDescriptor()->FindFieldByName(field);
  if (f != nullptr && f->type() == google::protobuf::FieldDescriptor::TYPE_STRING && !f->is_repeated()) {
    message.GetReflection()->SetString(&message, f, value);
  }
}

}  // namespace
}  // namespace graphd::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphd::fuzz;
  static const std::vector<Method> methods = AllMethods();
  static int64_t inputs = 0;
  if (size == 0) return -1;
  const Method& method = methods[data[0] % methods.size()];
  std::unique_ptr<google::protobuf::Message> request(method.prototype->New());
  if (!request->ParseFromArray(data + 1, static_cast<int>(size - 1))) return -1;  // gRPC refuses it first
  FuzzServer& server = FuzzServer::Get();
  if ((data[0] & 0x80) == 0) SetStringField(*request, "session_handle", server.Session());
  if ((data[0] & 0x40) != 0) SetStringField(*request, "model_name", kModelName);
  std::unique_ptr<google::protobuf::Message> response(method.response->New());
  const bool ok = server.Call(method.path, *request, response.get()).ok();
  if (method.path.ends_with("/CloseSession")) server.Renew();
  if (ok && method.path.ends_with("/CreateSession")) {  // close it, or sessions pile up to --max-sessions
    graphd::v1::CloseSessionRequest close;
    close.set_session_handle(static_cast<const graphd::v1::CreateSessionResponse&>(*response).session_handle());
    server.Call("/graphd.v1.SessionService/CloseSession", close, nullptr);
  }
  if (++inputs % 64 == 0) server.CheckAlive();
  return 0;
}
