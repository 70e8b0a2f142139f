// Gradients of the structured control flow ops (core/ops/control_flow_ops.cc).
//
// If: a new If on the same condition whose branches are the gradients of the
// original branches (each recomputes its branch, then differentiates it).
// While: while_grad.cc.
#include "compiler/autodiff/body_grad.h"

namespace graphd::compiler::autodiff {
namespace {

using Dy = const std::vector<OutputRef>&;

StatusOr<FunctionRef> BranchGrad(GradEnv* env, const Node& n, const Function& branch, Dy dy,
                                 const std::map<std::string, const Node*>& vars) {
  NewBody body(env);
  std::vector<OutputRef> args, seeds;
  for (size_t i = 1; i < n.inputs().size(); ++i) {
    ASSIGN_OR_RETURN(OutputRef a, body.Arg(TypeOf(n.inputs()[i]).dtype, branch.arg_type(static_cast<int>(i) - 1).shape));
    args.push_back(a);
  }
  for (const OutputRef& d : dy) {
    ASSIGN_OR_RETURN(OutputRef a, body.Arg(TypeOf(d).dtype, TypeOf(d).shape));
    seeds.push_back(a);
  }
  std::map<std::string, std::vector<OutputRef>> reads;
  ASSIGN_OR_RETURN(std::vector<OutputRef> results, InlineBody(body.b, body.sink, branch, args, &reads));
  ASSIGN_OR_RETURN(BodyGrads grads, DifferentiateBody(body, results, seeds, args, reads, vars));
  std::vector<OutputRef> outs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (grads.sources[i].has_value()) {
      outs.push_back(*grads.sources[i]);
    } else {
      ASSIGN_OR_RETURN(OutputRef z, body.b.ZerosLike(args[i]));
      outs.push_back(z);
    }
  }
  size_t k = 0;
  for (const auto& [name, read] : vars) {
    if (grads.variables[k].has_value()) {
      outs.push_back(*grads.variables[k]);
    } else {
      ASSIGN_OR_RETURN(OutputRef z, VariableZeros(body, *read));
      outs.push_back(z);
    }
    ++k;
  }
  return body.Finish(env, branch.name + "_grad", std::move(outs));
}

StatusOr<GradOut> IfGrad(GradBuilder& b, const Node& n, Dy dy) {
  GradEnv* env = b.env();
  ASSIGN_OR_RETURN(auto branches, PureBodies(env, n, "then_branch", "else_branch"));
  const auto& [then_fn, else_fn] = branches;
  const auto vars = SourceVariables(env, {then_fn, else_fn});
  ASSIGN_OR_RETURN(FunctionRef then_grad, BranchGrad(env, n, *then_fn, dy, vars));
  ASSIGN_OR_RETURN(FunctionRef else_grad, BranchGrad(env, n, *else_fn, dy, vars));
  std::vector<OutputRef> inputs = n.inputs();
  inputs.insert(inputs.end(), dy.begin(), dy.end());
  ASSIGN_OR_RETURN(const Node* g, b.NodeOf("If", inputs, {{"then_branch", then_grad}, {"else_branch", else_grad}}));
  GradOut out = {std::nullopt};
  const int nargs = static_cast<int>(n.inputs().size()) - 1;
  for (int i = 0; i < nargs; ++i) {
    out.push_back(IsFloating(TypeOf(n.inputs()[i + 1]).dtype) ? std::optional<OutputRef>(OutputRef{g, i}) : std::nullopt);
  }
  int k = nargs;
  for (const auto& [name, read] : vars) env->variable_grads[name].push_back({g, k++});
  return out;
}

}  // namespace

void RegisterControlFlowGrads(GradRegistry& r) {
  r.Register("If", IfGrad);
  r.Register("While", WhileGrad);
}

}  // namespace graphd::compiler::autodiff
