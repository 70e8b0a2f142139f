#include "executor/cpu/cpu_device.h"

#include <omp.h>
#include <unistd.h>

#include <thread>

#include "dnnl.hpp"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {

CpuDevice::CpuDevice(int intra_op_threads) {
  if (intra_op_threads > 0) omp_set_num_threads(intra_op_threads);
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  const dnnl_version_t* v = dnnl_version();
  info_ = {.name = "/device:CPU:0",
           .device_type = "CPU",
           .memory_limit = static_cast<int64_t>(pages) * page_size,
           .description = absl::StrCat(std::thread::hardware_concurrency(), " cores, oneDNN ",
                                       v->major, ".", v->minor, ".", v->patch)};
  RegisterCpuKernels(kernels_);
}

bool CpuDevice::SupportsOp(const Node& node) const {
  return kernels_.Find(node, info_.device_type) != nullptr;
}

StatusOr<std::unique_ptr<OpKernel>> CpuDevice::CreateKernel(const Node& node) const {
  const KernelFactory* factory = kernels_.Find(node, info_.device_type);
  if (factory == nullptr) {
    return errors::WithNode(
        errors::Unimplemented(absl::StrCat("node '", node.name(), "': no CPU kernel for op '",
                                           node.op_name(), "' with dtype ",
                                           DTypeName(KernelRegistry::KeyDType(node)))),
        node.name());
  }
  return (*factory)(node);
}

StatusOr<Tensor> CpuDevice::Allocate(DType dtype, const Shape& shape) const {
  return Tensor::Allocate(dtype, shape);
}

}  // namespace graphd::executor::cpu
