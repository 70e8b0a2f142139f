// Python source through the real server: LoadModule (the lexer, parser, AutoGraph and
// the interpreter running the module's top level), then each function the module
// defines called with no arguments and with one float32[3] tensor (tracing, passes,
// planning and running). The input is the source text; not UTF-8: rejected (gRPC
// refuses such a string field before graphd sees it).
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "tests/fuzz/fuzz_server.h"

namespace {

// Lead bytes and continuation bytes only (protobuf's stricter check refuses the rest).
bool IsUtf8(absl::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t more = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
    if (more == 4 || more >= s.size() - i) return false;
    for (size_t k = 1; k <= more; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += more + 1;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphd;
  using namespace graphd::fuzz;
  static int64_t inputs = 0;
  const std::string source(reinterpret_cast<const char*>(data), size);
  if (!IsUtf8(source)) return -1;
  FuzzServer& server = FuzzServer::Get();
  v1::LoadModuleRequest load;
  load.set_session_handle(server.Session());
  load.set_source(source);
  v1::LoadModuleResponse module;
  if (server.Call("/graphd.v1.SessionService/LoadModule", load, &module).ok()) {
    int calls = 0;
    for (const std::string& function : module.function()) {
      if (++calls > 3) break;
      for (int args = 0; args < 2; ++args) {
        v1::CallRequest call;
        call.set_session_handle(load.session_handle());
        call.set_module_id(module.module_id());
        call.set_function(function);
        if (args == 1) {
          v1::TensorProto* t = call.add_args()->mutable_tensor();
          t->set_dtype(v1::DT_FLOAT);
          t->mutable_shape()->add_dim(3);
          t->set_content(std::string(12, '\0'));
        }
        server.Call("/graphd.v1.SessionService/Call", call, nullptr);
      }
    }
  }
  if (++inputs % 64 == 0) server.CheckAlive();
  return 0;
}
