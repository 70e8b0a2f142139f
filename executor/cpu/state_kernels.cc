// VariableV2 (reads the session's variable), Assign, AssignAdd, AssignSub.
#include "executor/cpu/elementwise.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

// The variable an Assign-family node updates: the VariableV2 node feeding input 0.
const std::string& VariableName(const Node& node) { return node.inputs()[0].node->name(); }

Status ReadVariable(KernelContext& ctx) {
  ASSIGN_OR_RETURN(Tensor value, ctx.variables().Read(ctx.node().name()));
  ctx.set_output(0, std::move(value));
  return absl::OkStatus();
}

Status AssignFn(KernelContext& ctx) {
  const Node& var = *ctx.node().inputs()[0].node;
  const Tensor& value = ctx.input(1);
  auto validate = ctx.node().attrs().find("validate_shape");
  bool check = validate == ctx.node().attrs().end() || std::get<bool>(validate->second);
  if (check && !var.output(0).shape.IsCompatibleWith(value.shape())) {
    return ctx.Error(absl::StrCat("variable '", var.name(), "' has shape ",
                                  var.output(0).shape.ToString(), ", cannot assign ",
                                  value.shape().ToString()));
  }
  ctx.variables().Assign(var.name(), value);
  ctx.set_output(0, value);
  return absl::OkStatus();
}

KernelFactory UpdateFactory(BinaryOp op) {
  return FnKernel::Factory([op](KernelContext& ctx) -> Status {
    const Tensor& delta = ctx.input(1);
    auto updated = ctx.variables().Update(
        VariableName(ctx.node()), [&](const Tensor& current) -> StatusOr<Tensor> {
          if (current.shape() != delta.shape()) {
            return ctx.Error(absl::StrCat("variable has shape ", current.shape().ToString(),
                                          ", the update has shape ", delta.shape().ToString()));
          }
          return ComputeBinary(op, current, delta);
        });
    if (!updated.ok()) return updated.status();
    ctx.set_output(0, *std::move(updated));
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterStateKernels(KernelRegistry& r) {
  r.Register("VariableV2", kCpu, DType::kInvalid, FnKernel::Factory(ReadVariable));
  r.Register("Assign", kCpu, DType::kInvalid, FnKernel::Factory(AssignFn));
  r.Register("AssignAdd", kCpu, kArithmeticDTypes, UpdateFactory(BinaryOp::kAdd));
  r.Register("AssignSub", kCpu, kArithmeticDTypes, UpdateFactory(BinaryOp::kSub));
}

}  // namespace graphd::executor::cpu
