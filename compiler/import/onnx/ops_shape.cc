// Shape and array ONNX ops. Inputs that graphd takes as attributes (shapes, axes,
// starts/ends, pads, repeats, split sizes) must be constants; they are folded here.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/build_util.h"
#include "compiler/import/onnx/op_table.h"
#include "compiler/import/onnx/tensor_proto.h"

namespace graphd::compiler::onnx_import {
namespace {

Status Constant(NodeContext& n) {
  Tensor t;
  if (const auto* a = n.attr("value")) {
    auto v = TensorFromProto(a->t());
    if (!v.ok()) return n.Invalid(v.status().message());
    t = *v;
  } else if (const auto* a = n.attr("value_float")) {
    t = Tensor::Scalar<float>(a->f());
  } else if (const auto* a = n.attr("value_int")) {
    t = Tensor::Scalar<int64_t>(a->i());
  } else if (const auto* a = n.attr("value_floats")) {
    std::vector<float> v(a->floats().begin(), a->floats().end());
    ASSIGN_OR_RETURN(t, Tensor::FromVector<float>(Shape({static_cast<int64_t>(v.size())}), v));
  } else if (const auto* a = n.attr("value_ints")) {
    std::vector<int64_t> v(a->ints().begin(), a->ints().end());
    ASSIGN_OR_RETURN(t, Tensor::FromVector<int64_t>(Shape({static_cast<int64_t>(v.size())}), v));
  } else {
    return n.Unsupported("a value other than value/value_float(s)/value_int(s)");
  }
  return n.ctx().DefineConst(n.proto().output(0), std::move(t));
}

StatusOr<Tensor> IntVector(std::vector<int64_t> v) {
  return Tensor::FromVector<int64_t>(Shape({static_cast<int64_t>(v.size())}), v);
}

// Shape and Size: constants when the input's shape is known (so shape arithmetic
// feeding Reshape folds), otherwise run-time ops.
Status ShapeOp(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  const PartialShape& s = TypeOf(x).shape;
  bool size = n.op_type() == "Size";
  if (s.fully_defined()) {
    Tensor t;
    if (size) {
      t = Tensor::Scalar<int64_t>(s.num_elements());
    } else {
      int rank = s.rank();
      int64_t start = n.Int("start", 0), end = n.Int("end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, start, rank);
      ASSIGN_OR_RETURN(t, IntVector(std::vector<int64_t>(s.dims().begin() + start, s.dims().begin() + end)));
    }
    return n.ctx().DefineConst(n.proto().output(0), std::move(t));
  }
  if (n.attr("start") || n.attr("end")) return n.Unsupported("start/end with unknown dims");
  ASSIGN_OR_RETURN(OutputRef y, n.Add(size ? "Size" : "Shape", {x}, {{"out_type", DType::kInt64}}));
  return n.SetOutput(0, y);
}

Status ReshapeOp(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, n.ConstInts(1, "the shape"));
  const PartialShape& s = TypeOf(x).shape;
  bool allowzero = n.Int("allowzero", 0) != 0;
  bool has_minus = std::count(dims.begin(), dims.end(), -1) > 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != 0 || allowzero) continue;
    if (s.known_rank() && static_cast<int>(i) < s.rank() && s.dim(i) != kUnknownDim) {
      dims[i] = s.dim(i);
    } else if (!has_minus) {
      dims[i] = -1;
      has_minus = true;
    } else {
      return n.Unsupported("a 0 (copied) dimension that is unknown");
    }
  }
  ASSIGN_OR_RETURN(OutputRef y, Reshape(n, x, dims));
  return n.SetOutput(0, y);
}

Status Flatten(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the input"));
  int64_t axis = n.Int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return n.Invalid(absl::StrCat("axis ", n.Int("axis", 1), " out of range"));
  const PartialShape& s = TypeOf(x).shape;
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t& p = i < axis ? outer : inner;
    p = (p == -1 || s.dim(i) == kUnknownDim) ? -1 : p * s.dim(i);
  }
  if (outer == -1 && inner == -1) return n.Unsupported("unknown dims on both sides of axis");
  ASSIGN_OR_RETURN(OutputRef y, Reshape(n, x, {outer, inner}));
  return n.SetOutput(0, y);
}

Status TransposeOp(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the input"));
  std::vector<int64_t> perm = n.Ints("perm").value_or(std::vector<int64_t>{});
  if (perm.empty()) {
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  ASSIGN_OR_RETURN(OutputRef y, Transpose(n, x, perm));
  return n.SetOutput(0, y);
}

Status Concat(NodeContext& n) {
  std::vector<OutputRef> inputs;
  for (int i = 0; i < n.num_inputs(); ++i) {
    ASSIGN_OR_RETURN(OutputRef in, n.input(i));
    inputs.push_back(in);
  }
  ASSIGN_OR_RETURN(int rank, KnownRank(n, inputs[0], "the first input"));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n, n.Int("axis", 0), rank));
  ASSIGN_OR_RETURN(OutputRef y, n.Add("ConcatV2", inputs, {{"axis", axis}}));
  return n.SetOutput(0, y);
}

// Axes from the `axes` attribute (before `input_from_opset`) or input 1.
StatusOr<std::optional<std::vector<int64_t>>> Axes(NodeContext& n, int64_t input_from_opset) {
  if (n.opset() < input_from_opset) return n.Ints("axes");
  if (!n.has_input(1)) return std::optional<std::vector<int64_t>>();
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, n.ConstInts(1, "axes"));
  return std::optional<std::vector<int64_t>>(std::move(axes));
}

Status SqueezeOp(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(auto axes, Axes(n, 13));
  ASSIGN_OR_RETURN(OutputRef y, Squeeze(n, x, axes.value_or(std::vector<int64_t>{})));
  return n.SetOutput(0, y);
}

Status Unsqueeze(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef y, n.input(0));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, y, "the input"));
  ASSIGN_OR_RETURN(auto axes_or, Axes(n, 13));
  if (!axes_or) return n.Invalid("axes are required");
  std::vector<int64_t> axes = *axes_or;
  int out_rank = rank + static_cast<int>(axes.size());
  for (int64_t& a : axes) {
    ASSIGN_OR_RETURN(a, NormalizeAxis(n, a, out_rank));
  }
  std::sort(axes.begin(), axes.end());
  for (int64_t a : axes) {
    ASSIGN_OR_RETURN(y, ExpandDims(n, y, a));
  }
  if (axes.empty()) {
    ASSIGN_OR_RETURN(y, n.Add("Identity", {y}));
  }
  return n.SetOutput(0, y);
}

Status Gather(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the data"));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n, n.Int("axis", 0), rank));
  OutputRef idx;
  int64_t dim = TypeOf(x).shape.dim(static_cast<int>(axis));
  const Tensor* c = n.has_input(1) ? n.ctx().GetConst(n.proto().input(1)) : nullptr;
  if (c != nullptr && dim != kUnknownDim && c->dtype() == DType::kInt64) {
    // Negative constant indices count from the end, as in numpy.
    ASSIGN_OR_RETURN(Tensor fixed, c->Clone());
    for (int64_t& v : fixed.flat<int64_t>()) v = v < 0 ? v + dim : v;
    ASSIGN_OR_RETURN(idx, n.Const(std::move(fixed)));
  } else {
    ASSIGN_OR_RETURN(idx, n.input(1));
    if (dim != kUnknownDim) {  // negative indices count from the end
      DType it = TypeOf(idx).dtype;
      ASSIGN_OR_RETURN(OutputRef zero, n.Scalar(it, 0));
      ASSIGN_OR_RETURN(OutputRef size, n.Scalar(it, static_cast<double>(dim)));
      ASSIGN_OR_RETURN(OutputRef neg, n.Add("Less", {idx, zero}));
      ASSIGN_OR_RETURN(OutputRef wrapped, n.Add("Add", {idx, size}));
      ASSIGN_OR_RETURN(idx, n.Add("SelectV2", {neg, wrapped, idx}));
    }
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add("GatherV2", {x, idx}, {{"axis", axis}}));
  return n.SetOutput(0, y);
}

// Whether input `i` is known when the graph is built: a constant, or a graph input
// whose value the build may be specialised on.
bool KnownAtBuild(NodeContext& n, int i) {
  const std::string& name = n.proto().input(i);
  return n.ctx().GetConst(name) != nullptr || n.ctx().IsArg(name);
}

// Slice with bounds computed at run time (inside loop bodies): DynamicSlice.
Status DynamicSliceOp(NodeContext& n, OutputRef x, int rank) {
  std::vector<int64_t> axes, steps;
  if (n.has_input(3)) {
    ASSIGN_OR_RETURN(axes, n.ConstInts(3, "axes"));
  } else {
    ASSIGN_OR_RETURN(TensorType t, n.input_type(1));
    if (!t.shape.known_rank() || t.shape.rank() != 1 || t.shape.dim(0) == kUnknownDim) {
      return n.Unsupported("run-time starts without axes need a known length");
    }
    for (int64_t i = 0; i < t.shape.dim(0); ++i) axes.push_back(i);
  }
  for (int64_t& a : axes) {
    ASSIGN_OR_RETURN(a, NormalizeAxis(n, a, rank));
  }
  if (n.has_input(4)) {
    ASSIGN_OR_RETURN(steps, n.ConstInts(4, "steps"));
  } else {
    steps.assign(axes.size(), 1);
  }
  ASSIGN_OR_RETURN(OutputRef starts, n.input(1));
  ASSIGN_OR_RETURN(OutputRef ends, n.input(2));
  ASSIGN_OR_RETURN(OutputRef y, n.Add("DynamicSlice", {x, starts, ends},
                                      {{"axes", IntList(axes)}, {"steps", IntList(steps)}}));
  return n.SetOutput(0, y);
}

Status Slice(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  const PartialShape& s = TypeOf(x).shape;
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the input"));
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.opset() >= 10 && n.has_input(1) && n.has_input(2) && (!KnownAtBuild(n, 1) || !KnownAtBuild(n, 2))) {
    return DynamicSliceOp(n, x, rank);
  }
  if (n.opset() < 10) {
    starts = n.Ints("starts").value_or(std::vector<int64_t>{});
    ends = n.Ints("ends").value_or(std::vector<int64_t>{});
    axes = n.Ints("axes").value_or(std::vector<int64_t>{});
  } else {
    ASSIGN_OR_RETURN(starts, n.ConstInts(1, "starts"));
    ASSIGN_OR_RETURN(ends, n.ConstInts(2, "ends"));
    if (n.has_input(3)) {
      ASSIGN_OR_RETURN(axes, n.ConstInts(3, "axes"));
    }
    if (n.has_input(4)) {
      ASSIGN_OR_RETURN(steps, n.ConstInts(4, "steps"));
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return n.Invalid("starts, ends, axes and steps must have the same length");
  }
  IntList begin(rank, 0), end(rank, 0), stride(rank, 1);
  int64_t begin_mask = 0, end_mask = 0;
  for (int i = 0; i < rank; ++i) {
    begin_mask |= int64_t{1} << i;
    end_mask |= int64_t{1} << i;
  }
  for (size_t j = 0; j < axes.size(); ++j) {
    ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(n, axes[j], rank));
    int64_t dim = s.dim(static_cast<int>(a));
    if (dim == kUnknownDim) return n.Unsupported("slicing a dimension of unknown size");
    int64_t st = steps[j], b = starts[j], e = ends[j];
    if (st == 0) return n.Invalid("steps must not be 0");
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (st > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    begin[a] = b;
    end[a] = e;
    stride[a] = st;
    begin_mask &= ~(int64_t{1} << a);
    if (e >= 0) end_mask &= ~(int64_t{1} << a);  // e == -1 (step < 0): through index 0
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add("StridedSlice", {x}, {{"begin", begin}, {"end", end}, {"strides", stride},
                                                           {"begin_mask", begin_mask}, {"end_mask", end_mask}}));
  return n.SetOutput(0, y);
}

Status PadOp(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the input"));
  std::vector<int64_t> pads;
  AttrValue value = 0.0f;
  if (n.opset() < 11) {
    pads = n.Ints("pads").value_or(std::vector<int64_t>{});
    value = static_cast<float>(n.Float("value", 0));
  } else {
    ASSIGN_OR_RETURN(pads, n.ConstInts(1, "pads"));
    if (n.has_input(2)) {
      ASSIGN_OR_RETURN(Tensor v, n.ConstInput(2, "constant_value"));
      auto a = NumberAttrValue(v, 0);
      if (!a.ok() || v.num_elements() != 1) return n.Invalid("constant_value must be a numeric scalar");
      value = *a;
    }
    if (n.has_input(3)) return n.Unsupported("the axes input");
  }
  if (static_cast<int>(pads.size()) != 2 * rank) return n.Invalid("pads must have 2 * rank values");
  IntList paddings;
  for (int i = 0; i < rank; ++i) {
    if (pads[i] < 0 || pads[rank + i] < 0) return n.Unsupported("negative pads");
    paddings.push_back(pads[i]);
    paddings.push_back(pads[rank + i]);
  }
  std::string mode = n.Str("mode", "constant");
  AttrMap attrs{{"paddings", paddings}};
  if (mode == "constant") {
    attrs["mode"] = std::string("CONSTANT");
    attrs["constant_values"] = value;
  } else if (mode == "reflect") {
    attrs["mode"] = std::string("REFLECT");
  } else if (mode == "edge") {
    attrs["mode"] = std::string("EDGE");
  } else {
    return n.Unsupported(absl::StrCat("mode '", mode, "'"));
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add("Pad", {x}, attrs));
  return n.SetOutput(0, y);
}

Status Tile(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(std::vector<int64_t> reps, n.ConstInts(1, "repeats"));
  ASSIGN_OR_RETURN(OutputRef y, n.Add("Tile", {x}, {{"multiples", IntList(reps)}}));
  return n.SetOutput(0, y);
}

// Expand: bidirectional broadcast of the input with `shape`.
Status Expand(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, n.ConstInts(1, "the shape"));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the input"));
  const PartialShape& s = TypeOf(x).shape;
  int out_rank = std::max<int>(rank, static_cast<int>(shape.size()));
  IntList out(out_rank, 1);
  for (int i = 0; i < out_rank; ++i) {
    int si = i - (out_rank - static_cast<int>(shape.size()));
    int xi = i - (out_rank - rank);
    int64_t a = si >= 0 ? shape[si] : 1;
    int64_t b = xi >= 0 ? s.dim(xi) : 1;
    if (b == kUnknownDim && a == 1) return n.Unsupported("expanding a dimension of unknown size");
    if (a != 1 && b != 1 && b != kUnknownDim && a != b) {
      return n.Invalid(absl::StrCat("cannot broadcast ", s.ToString(), " to the shape given"));
    }
    out[i] = a == 1 ? b : a;
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add("BroadcastTo", {x}, {{"shape", out}}));
  return n.SetOutput(0, y);
}

Status Split(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the input"));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n, n.Int("axis", 0), rank));
  std::vector<int64_t> sizes;
  if (n.opset() < 13) {
    sizes = n.Ints("split").value_or(std::vector<int64_t>{});
  } else if (n.has_input(1)) {
    ASSIGN_OR_RETURN(sizes, n.ConstInts(1, "split"));
  }
  int num = n.num_outputs();
  const Node* node;
  if (sizes.empty()) {
    ASSIGN_OR_RETURN(node, n.AddMulti("Split", {x}, {{"axis", axis}, {"num_split", int64_t{num}}}));
  } else {
    ASSIGN_OR_RETURN(node, n.AddMulti("SplitV", {x}, {{"axis", axis}, {"size_splits", IntList(sizes)}}));
  }
  for (int i = 0; i < num; ++i) RETURN_IF_ERROR(n.SetOutput(i, {node, i}));
  return absl::OkStatus();
}

// ReverseSequence(x, sequence_lens; batch_axis=1, time_axis=0): graphd's
// ReverseSequence with seq_dim = time_axis.
Status ReverseSequence(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(OutputRef lens, n.input(1));
  ASSIGN_OR_RETURN(OutputRef y, n.Add("ReverseSequence", {x, lens},
                                      {{"seq_dim", n.Int("time_axis", 0)}, {"batch_dim", n.Int("batch_axis", 1)}}));
  return n.SetOutput(0, y);
}

}  // namespace

void RegisterShapeOps(OpTable& table) {
  table["Constant"] = Constant;
  table["Shape"] = ShapeOp;
  table["Size"] = ShapeOp;
  table["Reshape"] = ReshapeOp;
  table["Flatten"] = Flatten;
  table["Transpose"] = TransposeOp;
  table["Concat"] = Concat;
  table["Squeeze"] = SqueezeOp;
  table["Unsqueeze"] = Unsqueeze;
  table["Gather"] = Gather;
  table["Slice"] = Slice;
  table["Pad"] = PadOp;
  table["Tile"] = Tile;
  table["Expand"] = Expand;
  table["Split"] = Split;
  table["ReverseSequence"] = ReverseSequence;
}

}  // namespace graphd::compiler::onnx_import
