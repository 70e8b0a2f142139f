// ONNX ops that make or mask tensors by shape: ConstantOfShape, Trilu.
#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/build_util.h"
#include "compiler/import/onnx/op_table.h"
#include "compiler/import/onnx/tensor_proto.h"

namespace graphd::compiler::onnx_import {
namespace {

// ConstantOfShape(shape): a constant when the shape is known at import.
Status ConstantOfShape(NodeContext& n) {
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, n.ConstInts(0, "the shape"));
  Tensor value = Tensor::Scalar<float>(0.0f);
  if (const auto* a = n.attr("value")) {
    auto v = TensorFromProto(a->t());
    if (!v.ok()) return n.Invalid(v.status().message());
    if (v->num_elements() != 1) return n.Invalid("value must hold one element");
    ASSIGN_OR_RETURN(value, v->Reshaped(Shape()));
  }
  ASSIGN_OR_RETURN(OutputRef scalar, n.Const(value));
  ASSIGN_OR_RETURN(OutputRef y, n.Add("Fill", {scalar}, {{"shape", IntList(dims)}}));
  return n.SetOutput(0, y);
}

// Trilu(x[, k]): graphd's Trilu (k a run-time scalar).
Status Trilu(NodeContext& n) {
  std::vector<OutputRef> inputs;
  for (int i = 0; i < 2; ++i) {
    if (!n.has_input(i)) continue;
    ASSIGN_OR_RETURN(OutputRef in, n.input(i));
    inputs.push_back(in);
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add("Trilu", inputs, {{"upper", n.Int("upper", 1) != 0}}));
  return n.SetOutput(0, y);
}

}  // namespace

void RegisterGeneratorOps(OpTable& table) {
  table["ConstantOfShape"] = ConstantOfShape;
  table["Trilu"] = Trilu;
}

}  // namespace graphd::compiler::onnx_import
