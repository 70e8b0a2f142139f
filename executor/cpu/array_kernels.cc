// Const, Identity, NoOp, Placeholder, Reshape, Cast.
#include <type_traits>

#include "executor/cpu/dispatch.h"
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
  const Tensor& in = ctx.input(0);
  DType dst = ctx.node().output(0).dtype;
  if (in.dtype() == dst) {
    ctx.set_output(0, in);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, in.shape()));
  return DispatchNumeric(in.dtype(), [&]<typename S>() -> Status {
    return DispatchNumeric(dst, [&]<typename D>() -> Status {
      const S* src = in.data<S>();
      D* d = out->data<D>();
      int64_t n = in.num_elements();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<D, bool>) {
          d[i] = src[i] != S{};
        } else {
          d[i] = static_cast<D>(src[i]);
        }
      }
      return absl::OkStatus();
    });
  });
}

// Const: the value attribute is the output, shared (never copied) across runs.
class ConstKernel : public OpKernel {
 public:
  explicit ConstKernel(Tensor value) : value_(std::move(value)) {}
  Status Compute(KernelContext& ctx) override {
    ctx.set_output(0, value_);
    return absl::OkStatus();
  }

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
  r.Register("NoOp", kCpu, DType::kInvalid, FnKernel::Factory(Noop));
  // A Placeholder only runs when something depends on it by a control edge; its value
  // comes from the feed.
  r.Register("Placeholder", kCpu, DType::kInvalid, FnKernel::Factory(Noop));
  r.Register("Reshape", kCpu, DType::kInvalid, FnKernel::Factory(ReshapeFn));
  r.Register("Cast", kCpu, kCastDTypes, FnKernel::Factory(CastFn));
}

}  // namespace graphd::executor::cpu
