// ONNX normalisations: BatchNormalization (inference, composed), and
// LayerNormalization, InstanceNormalization, LRN onto graphd's ops of those names
// (core/ops/norm_ops.cc).
#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/build_util.h"
#include "compiler/import/onnx/op_table.h"

namespace graphd::compiler::onnx_import {
namespace {

Status BatchNorm(NodeContext& n) {
  if (n.Int("training_mode", 0) != 0) return n.Unsupported("training_mode=1");
  for (int i = 1; i < n.num_outputs(); ++i) {
    if (!n.proto().output(i).empty()) return n.Unsupported("training outputs (running mean/var)");
  }
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the input"));
  if (rank < 2) return n.Invalid("input must have rank >= 2");
  std::vector<int64_t> pshape{-1};
  for (int i = 2; i < rank; ++i) pshape.push_back(1);
  std::vector<OutputRef> p;  // scale, bias, mean, var as [C,1,...]
  for (int i = 1; i <= 4; ++i) {
    ASSIGN_OR_RETURN(OutputRef v, n.input(i));
    ASSIGN_OR_RETURN(v, Reshape(n, v, pshape));
    p.push_back(v);
  }
  DType dt = TypeOf(x).dtype;
  ASSIGN_OR_RETURN(OutputRef eps, n.Scalar(dt, n.Float("epsilon", 1e-5f)));
  ASSIGN_OR_RETURN(OutputRef ve, n.Add("Add", {p[3], eps}));
  ASSIGN_OR_RETURN(OutputRef inv, n.Add("Rsqrt", {ve}));
  ASSIGN_OR_RETURN(OutputRef mul, n.Add("Mul", {inv, p[0]}));
  ASSIGN_OR_RETURN(OutputRef centered, n.Add("Sub", {x, p[2]}));
  ASSIGN_OR_RETURN(OutputRef scaled, n.Add("Mul", {centered, mul}));
  ASSIGN_OR_RETURN(OutputRef y, n.Add("Add", {scaled, p[1]}));
  return n.SetOutput(0, y);
}

// LayerNormalization -> (y, mean, inv_std_dev), bias optional.
Status LayerNorm(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(OutputRef scale, n.input(1));
  std::vector<OutputRef> inputs{x, scale};
  if (n.has_input(2)) {
    ASSIGN_OR_RETURN(OutputRef b, n.input(2));
    inputs.push_back(b);
  }
  ASSIGN_OR_RETURN(const Node* node, n.AddMulti("LayerNormalization", inputs,
                                                {{"axis", n.Int("axis", -1)}, {"epsilon", n.Float("epsilon", 1e-5f)}}));
  for (int i = 0; i < 3; ++i) RETURN_IF_ERROR(n.SetOutput(i, {node, i}));
  return absl::OkStatus();
}

Status InstanceNorm(NodeContext& n) {
  std::vector<OutputRef> inputs;
  for (int i = 0; i < 3; ++i) {
    ASSIGN_OR_RETURN(OutputRef in, n.input(i));
    inputs.push_back(in);
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add("InstanceNormalization", inputs, {{"epsilon", n.Float("epsilon", 1e-5f)}}));
  return n.SetOutput(0, y);
}

// LRN(size): depth_radius (size - 1) / 2 and alpha / size in TensorFlow's terms.
Status Lrn(NodeContext& n) {
  int64_t size = n.Int("size", 0);
  if (size <= 0) return n.Invalid("size must be positive");
  if (size % 2 == 0) return n.Unsupported("an even size (its window is not centred)");
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(OutputRef y, n.Add("LRN", {x}, {{"depth_radius", (size - 1) / 2},
                                                   {"alpha", n.Float("alpha", 1e-4f) / static_cast<float>(size)},
                                                   {"beta", n.Float("beta", 0.75f)},
                                                   {"bias", n.Float("bias", 1.0f)},
                                                   {"data_format", std::string("NCHW")}}));
  return n.SetOutput(0, y);
}

}  // namespace

void RegisterNormOps(OpTable& table) {
  table["BatchNormalization"] = BatchNorm;
  table["LayerNormalization"] = LayerNorm;
  table["InstanceNormalization"] = InstanceNorm;
  table["LRN"] = Lrn;
}

}  // namespace graphd::compiler::onnx_import
