// Add, Sub, Mul, Div, Maximum, Minimum.
#include "executor/cpu/elementwise.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {

void RegisterBinaryKernels(KernelRegistry& r) {
  for (const char* name :
       {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "FloorDiv", "FloorMod", "Pow"}) {
    r.Register(name, kCpu, kArithmeticDTypes,
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
}

}  // namespace graphd::executor::cpu
