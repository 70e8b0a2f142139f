// Structured control flow: Arg (a function body's argument), If and While. Branches
// and loop bodies are Functions held in attributes (core/graph/function.h).
#include "core/graph/function.h"
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {
namespace {

Status InferArg(InferenceContext& c) {
  // `index` orders the arguments when a body is made from its graph alone.
  ASSIGN_OR_RETURN(int64_t index, c.AttrOr<int64_t>("index", 0));
  if (index < 0) return c.Error("argument index must be >= 0");
  ASSIGN_OR_RETURN(DType dtype, c.Attr<DType>("dtype"));
  ASSIGN_OR_RETURN(PartialShape shape, c.AttrOr<PartialShape>("shape", PartialShape()));
  c.AddOutput(dtype, shape);
  return absl::OkStatus();
}

// Checks that `fn` takes arguments of `types` (dtype equal, shapes compatible).
Status CheckArgs(InferenceContext& c, absl::string_view what, const Function& fn,
                 const std::vector<TensorType>& types) {
  if (fn.num_args() != static_cast<int>(types.size())) {
    return c.Error(absl::StrCat(what, " '", fn.name, "' takes ", fn.num_args(), " arguments, given ",
                                types.size()));
  }
  for (int i = 0; i < fn.num_args(); ++i) {
    const TensorType& want = fn.arg_type(i);
    if (want.dtype != types[i].dtype) {
      return c.Error(absl::StrCat(what, " '", fn.name, "' argument ", i, " is ",
                                  DTypeName(want.dtype), ", given ", DTypeName(types[i].dtype)));
    }
  }
  return absl::OkStatus();
}

Status InferIf(InferenceContext& c) {
  const TensorType& pred = c.input(0);
  if (pred.dtype != DType::kBool) {
    return c.Error(absl::StrCat("the condition must be bool, got ", DTypeName(pred.dtype)));
  }
  if (pred.shape.known_rank() && pred.shape.rank() != 0) {
    return c.Error(absl::StrCat("the condition must be a scalar, got shape ", pred.shape.ToString()));
  }
  ASSIGN_OR_RETURN(FunctionRef then_fn, c.Attr<FunctionRef>("then_branch"));
  ASSIGN_OR_RETURN(FunctionRef else_fn, c.Attr<FunctionRef>("else_branch"));
  if (!then_fn || !else_fn) return c.Error("missing branch");
  std::vector<TensorType> args;
  for (int i = 1; i < c.num_inputs(); ++i) args.push_back(c.input(i));
  RETURN_IF_ERROR(CheckArgs(c, "then_branch", *then_fn, args));
  RETURN_IF_ERROR(CheckArgs(c, "else_branch", *else_fn, args));
  if (then_fn->num_results() != else_fn->num_results()) {
    return c.Error(absl::StrCat("the branches return ", then_fn->num_results(), " and ",
                                else_fn->num_results(), " values"));
  }
  for (int i = 0; i < then_fn->num_results(); ++i) {
    const TensorType& t = then_fn->result_type(i);
    const TensorType& e = else_fn->result_type(i);
    if (t.dtype != e.dtype) {
      return c.Error(absl::StrCat("result ", i, " is ", DTypeName(t.dtype), " in the true branch and ",
                                  DTypeName(e.dtype), " in the false branch"));
    }
    c.AddOutput(t.dtype, MostSpecificCommonShape(t.shape, e.shape));
  }
  return absl::OkStatus();
}

// While(vars...) with cond: vars -> bool scalar, body: vars -> vars. Each result of the
// body must keep its variable's dtype, and a shape compatible with the variable's
// (the loop's output shape is what both allow).
Status InferWhile(InferenceContext& c) {
  ASSIGN_OR_RETURN(FunctionRef cond, c.Attr<FunctionRef>("cond"));
  ASSIGN_OR_RETURN(FunctionRef body, c.Attr<FunctionRef>("body"));
  if (!cond || !body) return c.Error("missing cond or body");
  std::vector<TensorType> vars;
  for (int i = 0; i < c.num_inputs(); ++i) vars.push_back(c.input(i));
  RETURN_IF_ERROR(CheckArgs(c, "cond", *cond, vars));
  RETURN_IF_ERROR(CheckArgs(c, "body", *body, vars));
  if (cond->num_results() != 1 || cond->result_type(0).dtype != DType::kBool) {
    return c.Error("cond must return one bool scalar");
  }
  if (body->num_results() != c.num_inputs()) {
    return c.Error(absl::StrCat("body returns ", body->num_results(), " values for ",
                                c.num_inputs(), " loop variables"));
  }
  for (int i = 0; i < c.num_inputs(); ++i) {
    const TensorType& out = body->result_type(i);
    if (out.dtype != vars[i].dtype) {
      return c.Error(absl::StrCat("loop variable ", i, " is ", DTypeName(vars[i].dtype),
                                  " on entry but ", DTypeName(out.dtype), " after an iteration"));
    }
    // The body's argument shape is the loop's shape invariant for this variable.
    c.AddOutput(out.dtype, body->arg_type(i).shape);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterControlFlowOps(OpRegistry& r) {
  r.Register({.name = "Arg", .num_inputs = 0, .infer = InferArg});
  r.Register({.name = "If", .num_inputs = OpDef::kVariadic, .min_inputs = 1, .stateful = true,
              .infer = InferIf});
  r.Register({.name = "While", .num_inputs = OpDef::kVariadic, .min_inputs = 0, .stateful = true,
              .infer = InferWhile});
}

}  // namespace graphd
