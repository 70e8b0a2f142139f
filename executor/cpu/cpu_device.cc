#include "executor/cpu/cpu_device.h"

#include <unistd.h>

#include <thread>

#include "dnnl.hpp"
#include "executor/cpu/kernels.h"
#include "executor/cpu/team.h"

namespace graphd::executor::cpu {
namespace {

// Keeps library exceptions (oneDNN throws dnnl::error, allocation bad_alloc) inside
// the CPU backend: they become an Internal status naming the node.
class GuardedKernel : public OpKernel {
 public:
  explicit GuardedKernel(std::unique_ptr<OpKernel> inner) : inner_(std::move(inner)) {}
  Status Compute(KernelContext& ctx) override {
    DecideTeam();  // one team size for the whole kernel (team.h)
    try {
      return inner_->Compute(ctx);
    } catch (const std::exception& e) {
      return ctx.Error(errors::Internal(absl::StrCat("CPU kernel failed: ", e.what())));
    }
  }
  const Tensor* ConstantOutput() const override { return inner_->ConstantOutput(); }

 private:
  std::unique_ptr<OpKernel> inner_;
};

}  // namespace

CpuDevice::CpuDevice() {
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
  ApplyIntraOpThreads();
  try {
    ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, (*factory)(node));
    return std::unique_ptr<OpKernel>(std::make_unique<GuardedKernel>(std::move(kernel)));
  } catch (const std::exception& e) {
    return errors::WithNode(errors::Internal(absl::StrCat("node '", node.name(),
                                                          "': creating its CPU kernel failed: ",
                                                          e.what())),
                            node.name());
  }
}

StatusOr<Tensor> CpuDevice::Allocate(DType dtype, const Shape& shape) const {
  return Tensor::Allocate(dtype, shape);
}

}  // namespace graphd::executor::cpu
