// What the CUDA device would run, decided without a GPU: the GPU kernel table's checks
// (op, dtypes, attributes) do not touch the device, so they can answer on any machine.
// For placement previews (the server's GRAPHD_TEST_FAKE_GPU=cuda) and tests. No CUDA
// header is needed to include this. Thread-safe.
#ifndef GRAPHD_EXECUTOR_GPU_GPU_SUPPORT_H_
#define GRAPHD_EXECUTOR_GPU_GPU_SUPPORT_H_

#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace graphd::executor::gpu {

// GpuDevice::SupportsOp(node) of a CUDA build; always false without CUDA.
bool GpuKernelClaims(const Node& node);
// The ops the CUDA device has a kernel for (for some dtypes and attributes), sorted;
// empty without CUDA.
std::vector<std::string> GpuKernelOps();

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_GPU_SUPPORT_H_
