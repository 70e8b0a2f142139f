// Variables: VariableV2 holds a tensor in the session; Assign* update it.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {
namespace {

Status InferVariable(InferenceContext& c) {
  ASSIGN_OR_RETURN(DType dtype, c.Attr<DType>("dtype"));
  ASSIGN_OR_RETURN(PartialShape shape, c.AttrOr<PartialShape>("shape", PartialShape()));
  c.AddOutput(dtype, shape);
  return absl::OkStatus();
}

bool ShapesCompatible(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank()) return true;
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dim(i) != kUnknownDim && b.dim(i) != kUnknownDim && a.dim(i) != b.dim(i)) return false;
  }
  return true;
}

Status InferAssign(InferenceContext& c, bool arithmetic) {
  const TensorType& var = c.input(0);
  const TensorType& value = c.input(1);
  if (var.dtype != value.dtype) {
    return c.Error(absl::StrCat("variable is ", DTypeName(var.dtype), " but the value is ",
                                DTypeName(value.dtype)));
  }
  if (arithmetic && !IsNumeric(var.dtype)) {
    return c.Error(absl::StrCat("dtype ", DTypeName(var.dtype), " is not supported"));
  }
  ASSIGN_OR_RETURN(bool validate, c.AttrOr<bool>("validate_shape", true));
  if ((validate || arithmetic) && !ShapesCompatible(var.shape, value.shape)) {
    return c.Error(absl::StrCat("variable has shape ", var.shape.ToString(),
                                " but the value has shape ", value.shape.ToString()));
  }
  c.AddOutput(var.dtype, validate || arithmetic ? var.shape : value.shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterStateOps(OpRegistry& r) {
  r.Register({.name = "VariableV2", .num_inputs = 0, .stateful = true, .infer = InferVariable});
  r.Register({.name = "Assign", .num_inputs = 2, .ref_inputs = {0}, .stateful = true,
              .infer = [](InferenceContext& c) { return InferAssign(c, false); }});
  for (const char* name : {"AssignAdd", "AssignSub"}) {
    r.Register({.name = name, .num_inputs = 2, .ref_inputs = {0}, .stateful = true,
                .infer = [](InferenceContext& c) { return InferAssign(c, true); }});
  }
}

}  // namespace graphd
