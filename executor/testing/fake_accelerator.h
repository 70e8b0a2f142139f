// A stand-in accelerator for testing placement and copies without a GPU: used by
// unit tests, and by the server as its "GPU" when GRAPHD_TEST_FAKE_GPU is set (so the
// integration suites can drive device="gpu" sessions through placement and copies on
// machines without a GPU; never for serving).
//
// Its memory is host memory tagged as memory space kFakeSpace, so CPU kernels can do
// the arithmetic, while every boundary is checked: its kernels fail (Internal) when an
// input is not in its memory (unless declared InputOnHost), and the host device paired
// with it (CheckedHost) fails when a CPU kernel is handed fake-device memory. A plan that
// forgets a copy therefore fails instead of silently reading the wrong memory. Counts
// copies and live allocations so tests can assert both.
#ifndef GRAPHD_EXECUTOR_TESTING_FAKE_ACCELERATOR_H_
#define GRAPHD_EXECUTOR_TESTING_FAKE_ACCELERATOR_H_

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "executor/cpu/cpu_device.h"

namespace graphd::executor::testing {

inline constexpr int kFakeSpace = 7;

// Checks that the inputs of a wrapped kernel are in the expected memory spaces.
class SpaceCheckingKernel : public OpKernel {
 public:
  // `host_input(i)`: whether input i must be in host memory (else in `space`).
  template <typename HostInput>
  SpaceCheckingKernel(std::unique_ptr<OpKernel> inner, int space, HostInput host_input, const Node& node)
      : inner_(std::move(inner)), space_(space) {
    for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) host_inputs_.push_back(host_input(i));
  }
  Status Compute(KernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      if (!t.valid()) continue;  // ref inputs
      const int want = host_inputs_[i] ? kHostMemory : space_;
      if (t.memory_space() != want) {
        return errors::Internal(absl::StrCat("input ", i, " is in memory space ", t.memory_space(),
                                             ", the kernel reads space ", want));
      }
    }
    return inner_->Compute(ctx);
  }

 protected:
  std::unique_ptr<OpKernel> inner_;
  const int space_;
  std::vector<bool> host_inputs_;
};

// The CPU device, with its kernels' inputs checked to be host memory.
class CheckedHost : public Device {
 public:
  const DeviceInfo& info() const override { return cpu_.info(); }
  bool SupportsOp(const Node& node) const override { return cpu_.SupportsOp(node); }
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node) const override {
    ASSIGN_OR_RETURN(auto inner, cpu_.CreateKernel(node));
    return std::unique_ptr<OpKernel>(
        new SpaceCheckingKernel(std::move(inner), kHostMemory, [](int) { return true; }, node));
  }
  StatusOr<Tensor> Allocate(DType dtype, const Shape& shape) const override { return cpu_.Allocate(dtype, shape); }
  StatusOr<Tensor> CopyFromHost(const Tensor& host) const override { return host; }
  StatusOr<Tensor> CopyToHost(const Tensor& t) const override { return t; }
  Status Synchronize() const override { return absl::OkStatus(); }

 private:
  cpu::CpuDevice cpu_;
};

class FakeAccelerator : public Device {
 public:
  // Runs `ops` (when the CPU has a kernel for the node); the rest falls back to `host`.
  FakeAccelerator(const Device& host, std::set<std::string> ops)
      : FakeAccelerator(host, [ops = std::move(ops)](const Node& n) { return ops.contains(n.op_name()); },
                        DeviceInfo{.name = "/device:FAKE:0", .device_type = "FAKE", .description = "test accelerator"}) {}
  // Runs the nodes `accepts` says yes to, when the CPU has a kernel for them and they
  // are stateless and numeric (variables, strings and resources stay on the host).
  FakeAccelerator(const Device& host, std::function<bool(const Node&)> accepts, DeviceInfo info)
      : host_(host), accepts_(std::move(accepts)), info_(std::move(info)) {}

  const DeviceInfo& info() const override { return info_; }
  const Device* fallback() const override { return &host_; }
  int memory_space() const override { return kFakeSpace; }
  // Sub reads its second operand from host memory (as a GPU kernel reads a shape or
  // axis operand before launching), to test host-memory inputs.
  bool InputOnHost(const Node& node, int input) const override { return node.op_name() == "Sub" && input == 1; }

  bool SupportsOp(const Node& node) const override {
    if (node.op().stateful || !node.op().ref_inputs.empty() || !accepts_(node) || !cpu_.SupportsOp(node)) return false;
    for (int o = 0; o < node.num_outputs(); ++o) {
      if (!PlainData(node.output(o).dtype)) return false;
    }
    for (const OutputRef& in : node.inputs()) {
      if (!PlainData(in.node->output(in.index).dtype)) return false;
    }
    return true;
  }
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node) const override {
    if (!SupportsOp(node)) return errors::Unimplemented(absl::StrCat(info_.name, " has no kernel for ", node.op_name()));
    ASSIGN_OR_RETURN(auto inner, cpu_.CreateKernel(node));
    return std::unique_ptr<OpKernel>(new Kernel(std::move(inner), *this, node));
  }
  StatusOr<Tensor> Allocate(DType dtype, const Shape& shape) const override {
    ASSIGN_OR_RETURN(Tensor host, Tensor::Allocate(dtype, shape));
    return Adopt(host);
  }
  StatusOr<Tensor> CopyFromHost(const Tensor& host) const override {
    if (!host.on_host()) return errors::Internal("CopyFromHost of a tensor not in host memory");
    if (fail_uploads) return errors::ResourceExhausted("fake device out of memory");
    ++uploads;
    ASSIGN_OR_RETURN(Tensor copy, host.Clone());
    return Adopt(copy);
  }
  StatusOr<Tensor> CopyToHost(const Tensor& t) const override {
    if (t.memory_space() != kFakeSpace) return errors::Internal("CopyToHost of a tensor not in FAKE memory");
    ++downloads;
    ASSIGN_OR_RETURN(Tensor host, Tensor::Allocate(t.dtype(), t.shape()));
    if (t.bytes() > 0) std::memcpy(host.raw_data(), t.raw_data(), t.bytes());
    return host;
  }
  Status Synchronize() const override { return absl::OkStatus(); }

  mutable std::atomic<int> uploads{0};
  mutable std::atomic<int> downloads{0};
  mutable std::atomic<int> live_buffers{0};
  mutable std::atomic<int64_t> live_bytes{0};
  bool fail_uploads = false;

 private:
  // The same bytes, re-tagged as FAKE memory; keeps the host buffer alive.
  StatusOr<Tensor> Adopt(const Tensor& host) const {
    auto* keep = new std::pair<std::shared_ptr<Buffer>, const FakeAccelerator*>(host.buffer(), this);
    ++live_buffers;
    live_bytes += static_cast<int64_t>(host.buffer()->bytes());
    auto buffer = Buffer::Adopt(host.raw_data(), host.buffer()->bytes(), kFakeSpace,
                                [](void* ctx, void*, size_t) {
                                  auto* k = static_cast<std::pair<std::shared_ptr<Buffer>, const FakeAccelerator*>*>(ctx);
                                  --k->second->live_buffers;
                                  k->second->live_bytes -= static_cast<int64_t>(k->first->bytes());
                                  delete k;
                                },
                                keep);
    return Tensor::FromBuffer(host.dtype(), host.shape(), std::move(buffer));
  }

  // Checks inputs, runs the CPU kernel, and moves its outputs into FAKE memory.
  class Kernel : public SpaceCheckingKernel {
   public:
    Kernel(std::unique_ptr<OpKernel> inner, const FakeAccelerator& device, const Node& node)
        : SpaceCheckingKernel(std::move(inner), kFakeSpace,
                              [&](int i) { return device.InputOnHost(node, i); }, node),
          device_(device) {}
    Status Compute(KernelContext& ctx) override {
      RETURN_IF_ERROR(SpaceCheckingKernel::Compute(ctx));
      for (int o = 0; o < ctx.node().num_outputs(); ++o) {
        Tensor* out = ctx.output_slot(o);
        if (!out->valid() || !out->on_host()) continue;  // views of FAKE inputs stay FAKE
        ASSIGN_OR_RETURN(*out, device_.Adopt(*out));
      }
      return absl::OkStatus();
    }

   private:
    const FakeAccelerator& device_;
  };

  static bool PlainData(DType t) { return t != DType::kString && t != DType::kInvalid; }

  const Device& host_;
  std::function<bool(const Node&)> accepts_;
  DeviceInfo info_;
  cpu::CpuDevice cpu_;
};

}  // namespace graphd::executor::testing

#endif  // GRAPHD_EXECUTOR_TESTING_FAKE_ACCELERATOR_H_
