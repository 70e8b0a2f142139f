// Variables as the source path uses them (tf.Variable): the variable is named by the
// `var_name` attribute and lives in the session's VariableStore. ReadVariableOp reads
// it; AssignVariableOp / AssignAddVariableOp / AssignSubVariableOp update it and output
// the new value. All are stateful: the tracer orders them as the program does.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {
namespace {

Status InferRead(InferenceContext& c) {
  RETURN_IF_ERROR(c.Attr<std::string>("var_name").status());
  ASSIGN_OR_RETURN(DType dtype, c.Attr<DType>("dtype"));
  ASSIGN_OR_RETURN(PartialShape shape, c.AttrOr<PartialShape>("shape", PartialShape()));
  c.AddOutput(dtype, shape);
  return absl::OkStatus();
}

Status InferAssign(InferenceContext& c, bool arithmetic) {
  RETURN_IF_ERROR(c.Attr<std::string>("var_name").status());
  ASSIGN_OR_RETURN(DType dtype, c.Attr<DType>("dtype"));
  ASSIGN_OR_RETURN(PartialShape shape, c.AttrOr<PartialShape>("shape", PartialShape()));
  const TensorType& value = c.input(0);
  if (value.dtype != dtype) {
    return c.Error(absl::StrCat("the variable is ", DTypeName(dtype), " but the value is ", DTypeName(value.dtype)));
  }
  if (arithmetic && !IsNumeric(dtype)) return c.Error(absl::StrCat("dtype ", DTypeName(dtype), " is not supported"));
  if (shape.known_rank() && value.shape.known_rank()) {
    bool ok = shape.rank() == value.shape.rank();
    for (int i = 0; ok && i < shape.rank(); ++i) {
      ok = shape.dim(i) == kUnknownDim || value.shape.dim(i) == kUnknownDim || shape.dim(i) == value.shape.dim(i);
    }
    if (!ok) {
      return c.Error(absl::StrCat("the variable has shape ", shape.ToString(), " but the value has shape ",
                                  value.shape.ToString()));
    }
  }
  c.AddOutput(dtype, shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterResourceOps(OpRegistry& r) {
  r.Register({.name = "ReadVariableOp", .num_inputs = 0, .stateful = true, .infer = InferRead});
  r.Register({.name = "AssignVariableOp", .num_inputs = 1, .stateful = true,
              .infer = [](InferenceContext& c) { return InferAssign(c, false); }});
  for (const char* name : {"AssignAddVariableOp", "AssignSubVariableOp"}) {
    r.Register({.name = name, .num_inputs = 1, .stateful = true,
                .infer = [](InferenceContext& c) { return InferAssign(c, true); }});
  }
}

}  // namespace graphd
