// ReadVariableOp, AssignVariableOp (optionally only when uninitialized: a
// tf.Variable created inside a function initialises on its first run only),
// AssignAddVariableOp, AssignSubVariableOp.
#include "executor/cpu/elementwise.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

const std::string& VarName(const Node& node) { return std::get<std::string>(node.attrs().find("var_name")->second); }

Status Read(KernelContext& ctx) {
  ASSIGN_OR_RETURN(Tensor value, ctx.variables().Read(VarName(ctx.node())));
  ctx.set_output(0, std::move(value));
  return absl::OkStatus();
}

Status Assign(KernelContext& ctx) {
  const std::string& name = VarName(ctx.node());
  auto once = ctx.node().attrs().find("only_if_uninitialized");
  if (once != ctx.node().attrs().end() && std::get<bool>(once->second)) {
    auto current = ctx.variables().Read(name);
    if (current.ok()) {
      ctx.set_output(0, *std::move(current));
      return absl::OkStatus();
    }
  }
  const Tensor& value = ctx.input(0);
  if (!ctx.node().output(0).shape.IsCompatibleWith(value.shape())) {
    return ctx.Error("the value's shape " + value.shape().ToString() + " does not match the variable's " +
                     ctx.node().output(0).shape.ToString());
  }
  ctx.variables().Assign(name, value);
  ctx.set_output(0, value);
  return absl::OkStatus();
}

KernelFactory Update(BinaryOp op) {
  return FnKernel::Factory([op](KernelContext& ctx) -> Status {
    const Tensor& delta = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor updated, ctx.variables().Update(VarName(ctx.node()), [&](const Tensor& cur) -> StatusOr<Tensor> {
      if (cur.shape() != delta.shape()) {
        return ctx.Error("the variable has shape " + cur.shape().ToString() + ", the update " + delta.shape().ToString());
      }
      return ComputeBinary(op, cur, delta);
    }));
    ctx.set_output(0, std::move(updated));
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterResourceKernels(KernelRegistry& r) {
  r.Register("ReadVariableOp", kCpu, DType::kInvalid, FnKernel::Factory(Read));
  r.Register("AssignVariableOp", kCpu, DType::kInvalid, FnKernel::Factory(Assign));
  r.Register("AssignAddVariableOp", kCpu, kArithmeticDTypes, Update(BinaryOp::kAdd));
  r.Register("AssignSubVariableOp", kCpu, kArithmeticDTypes, Update(BinaryOp::kSub));
}

}  // namespace graphd::executor::cpu
