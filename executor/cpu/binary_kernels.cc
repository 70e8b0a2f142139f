// Add, Sub, Mul, Div, Maximum, Minimum, FloorDiv, FloorMod, TruncateMod, Pow, FusedElementwise and
// BiasAdd (an Add with the bias viewed along the channel dimension).
#include <vector>

#include "executor/cpu/elementwise.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

Status BiasAddFn(KernelContext& ctx) {
  const Tensor& value = ctx.input(0);
  const Tensor& bias = ctx.input(1);
  const bool nchw = AttrOr<std::string>(ctx.node(), "data_format", "NHWC") == "NCHW";
  const int rank = value.shape().rank();
  const int channel_dim = nchw ? 1 : rank - 1;
  if (rank < 2 || bias.shape().rank() != 1 || bias.shape().dim(0) != value.shape().dim(channel_dim)) {
    return ctx.Error(absl::StrCat("bias ", bias.shape().ToString(), " does not match the channels of ",
                                  value.shape().ToString(), nchw ? " (NCHW)" : " (NHWC)"));
  }
  // NCHW: bias as [C, 1, ..., 1] so that broadcasting puts it on dimension 1.
  std::vector<int64_t> dims(rank - channel_dim, 1);
  dims[0] = bias.shape().dim(0);
  ASSIGN_OR_RETURN(Tensor view, bias.Reshaped(Shape(dims)));
  auto out = ComputeBinary(BinaryOp::kAdd, value, view, &ctx.cancellation());
  if (!out.ok()) return ctx.Error(out.status());
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

}  // namespace

// FusedElementwise (fused_elementwise_kernel.cc), registered with the binary kernels.
void RegisterFusedElementwiseKernels(KernelRegistry& r);

void RegisterBinaryKernels(KernelRegistry& r) {
  RegisterFusedElementwiseKernels(r);
  // ComputeBinary's dtypes: 16-bit floats through float32.
  std::vector<DType> dtypes(std::begin(kArithmeticDTypes), std::end(kArithmeticDTypes));
  dtypes.insert(dtypes.end(), std::begin(kWideUnsignedDTypes), std::end(kWideUnsignedDTypes));
  dtypes.insert(dtypes.end(), std::begin(kHalfDTypes), std::end(kHalfDTypes));
  for (const char* name :
       {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "FloorDiv", "FloorMod", "TruncateMod",
        "Pow"}) {
    r.Register(name, kCpu, dtypes,
               [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
                 ASSIGN_OR_RETURN(BinaryOp op, BinaryOpFromName(node.op_name()));
                 return std::make_unique<FnKernel>([op](KernelContext& ctx) -> Status {
                   auto out = ComputeBinary(op, ctx.input(0), ctx.input(1), &ctx.cancellation());
                   if (!out.ok()) return ctx.Error(out.status());
                   ctx.set_output(0, *std::move(out));
                   return absl::OkStatus();
                 });
               });
  }
  r.Register("BiasAdd", kCpu, kArithmeticDTypes, FnKernel::Factory(BiasAddFn));
}

}  // namespace graphd::executor::cpu
