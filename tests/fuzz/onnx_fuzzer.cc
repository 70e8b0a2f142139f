// ONNX models through the real server: LoadGraph (the ONNX importer, passes, planning)
// and, when the inputs are plain tensors, a call with zeros. The input is the model's
// bytes (an onnx.ModelProto), sent as a client sends them.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphd;
  using namespace graphd::fuzz;
  static int64_t inputs = 0;
  v1::LoadGraphRequest load;
  load.set_onnx_model(reinterpret_cast<const char*>(data), size);
  LoadAndCallGraph(std::move(load));
  if (++inputs % 64 == 0) FuzzServer::Get().CheckAlive();
  return 0;
}
