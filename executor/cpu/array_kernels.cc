// Const, Identity, NoOp, Placeholder, Reshape, Cast.
#include <vector>

#include "executor/cpu/cast.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

Status Noop(KernelContext&) { return absl::OkStatus(); }

Status IdentityFn(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

Status ReshapeFn(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  const IntList& want = std::get<IntList>(ctx.node().attrs().find("shape")->second);
  std::vector<int64_t> dims = want;
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      unknown = static_cast<int>(i);
    } else {
      known *= dims[i];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || in.num_elements() % known != 0) {
      return ctx.Error(absl::StrCat("cannot reshape ", in.shape().ToString(), " to [",
                                    absl::StrJoin(want, ","), "]"));
    }
    dims[unknown] = in.num_elements() / known;
  }
  auto out = in.Reshaped(Shape(dims));
  if (!out.ok()) return ctx.Error(out.status());
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

Status CastFn(KernelContext& ctx) {
  auto out = CastTensor(ctx.input(0), ctx.node().output(0).dtype, &ctx.cancellation());
  if (!out.ok()) return ctx.Error(out.status());
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// Const: the value attribute is the output, shared (never copied) across runs.
class ConstKernel : public OpKernel {
 public:
  explicit ConstKernel(Tensor value) : value_(std::move(value)) {}
  Status Compute(KernelContext& ctx) override {
    ctx.set_output(0, value_);
    return absl::OkStatus();
  }
  const Tensor* ConstantOutput() const override { return &value_; }

 private:
  Tensor value_;
};

}  // namespace

void RegisterArrayKernels(KernelRegistry& r) {
  r.Register("Const", kCpu, DType::kInvalid,
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               return std::make_unique<ConstKernel>(
                   std::get<Tensor>(node.attrs().find("value")->second));
             });
  r.Register("Identity", kCpu, DType::kInvalid, FnKernel::Factory(IdentityFn));
  r.Register("StopGradient", kCpu, DType::kInvalid, FnKernel::Factory(IdentityFn));
  r.Register("NoOp", kCpu, DType::kInvalid, FnKernel::Factory(Noop));
  // A Placeholder only runs when something depends on it by a control edge; its value
  // comes from the feed.
  r.Register("Placeholder", kCpu, DType::kInvalid, FnKernel::Factory(Noop));
  r.Register("Reshape", kCpu, DType::kInvalid, FnKernel::Factory(ReshapeFn));
  // Keyed by the destination dtype; CastTensor handles every source dtype.
  std::vector<DType> cast_types(std::begin(kCastDTypes), std::end(kCastDTypes));
  cast_types.insert(cast_types.end(), std::begin(kWideUnsignedDTypes), std::end(kWideUnsignedDTypes));
  cast_types.insert(cast_types.end(), std::begin(kHalfDTypes), std::end(kHalfDTypes));
  cast_types.push_back(DType::kString);
  r.Register("Cast", kCpu, cast_types, FnKernel::Factory(CastFn));
}

}  // namespace graphd::executor::cpu
