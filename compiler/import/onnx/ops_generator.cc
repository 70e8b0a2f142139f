// ONNX ops that make or mask tensors by shape: ConstantOfShape, Trilu, OneHot (Range
// maps directly: ops_elementwise.cc).
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/build_util.h"
#include "compiler/import/onnx/op_table.h"
#include "compiler/import/onnx/tensor_proto.h"
#include "core/float_to_int.h"

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

// OneHot(indices, depth, values[off, on]; axis=-1): depth and values are constant (or
// value) inputs; negative indices count back from depth; float indices are cast.
Status OneHot(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef idx, n.input(0));
  ASSIGN_OR_RETURN(Tensor depth_t, n.ConstInput(1, "depth"));
  auto depth = DoubleValues(depth_t);
  if (!depth.ok() || depth->size() != 1) return n.Invalid("depth must be a scalar");
  // Exact up to 2^53 (a depth beyond could never be allocated anyway).
  std::optional<int64_t> d = TruncateInRange<int64_t>((*depth)[0]);
  if (!d || *d < 0 || *d > (int64_t{1} << 53)) {
    return n.Invalid(absl::StrCat("depth ", (*depth)[0], " is not a size (finite, >= 0, at most 2^53)"));
  }
  ASSIGN_OR_RETURN(Tensor values, n.ConstInput(2, "values"));
  auto off = NumberAttrValue(values, 0), on = NumberAttrValue(values, 1);
  if (!off.ok() || !on.ok() || values.num_elements() != 2) return n.Invalid("values must hold [off_value, on_value]");
  DType it = TypeOf(idx).dtype;
  if (it != DType::kInt32 && it != DType::kInt64) {
    ASSIGN_OR_RETURN(idx, n.Add("Cast", {idx}, {{"DstT", DType::kInt64}}));
    it = DType::kInt64;
  }
  ASSIGN_OR_RETURN(OutputRef zero, n.Scalar(it, 0));
  ASSIGN_OR_RETURN(OutputRef size, n.Scalar(it, static_cast<double>(*d)));
  ASSIGN_OR_RETURN(OutputRef neg, n.Add("Less", {idx, zero}));
  ASSIGN_OR_RETURN(OutputRef wrapped, n.Add("Add", {idx, size}));
  ASSIGN_OR_RETURN(idx, n.Add("SelectV2", {neg, wrapped, idx}));
  int64_t axis = n.Int("axis", -1);
  if (axis < -1) {  // graphd takes -1 or a non-negative axis of the output
    ASSIGN_OR_RETURN(int rank, KnownRank(n, idx, "the indices"));
    axis += rank + 1;
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add("OneHot", {idx}, {{"depth", *d}, {"axis", axis},
                                                        {"dtype", values.dtype()},
                                                        {"off_value", *off},
                                                        {"on_value", *on}}));
  return n.SetOutput(0, y);
}

}  // namespace

void RegisterGeneratorOps(OpTable& table) {
  table["ConstantOfShape"] = ConstantOfShape;
  table["Trilu"] = Trilu;
  table["OneHot"] = OneHot;
}

}  // namespace graphd::compiler::onnx_import
