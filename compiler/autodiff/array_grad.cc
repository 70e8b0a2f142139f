// Gradients of the array families: shape ops (Identity, Reshape, ExpandDims,
// Squeeze, BroadcastTo), rearranging ops (Transpose, ConcatV2, Pack, Unpack, Split,
// SplitV, Tile, ReverseV2, Pad), indexing (Slice, StridedSlice, GatherV2, SelectV2),
// Cast and Fill; and the generators and shape queries that take none.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "compiler/autodiff/grad_util.h"
#include "core/ops/strided_slice.h"

namespace graphd::compiler::autodiff {
namespace {

using Dy = const std::vector<OutputRef>&;

StatusOr<Shape> KnownShape(const Node& n, int input) {
  const PartialShape& s = TypeOf(n.inputs()[input]).shape;
  if (!s.known_rank() || !s.fully_defined()) {
    return NeedsStaticShape(n, absl::StrCat("input ", input, " has shape ", s.ToString()));
  }
  return s.ToShape();
}

int64_t Canon(int64_t axis, int rank) { return axis < 0 ? axis + rank : axis; }

StatusOr<GradOut> ToInputShape(GradBuilder& b, const Node& n, OutputRef dy) {
  auto r = b.Reshape(dy, TypeOf(n.inputs()[0]).shape);
  if (!r.ok()) return NeedsStaticShape(n, r.status().message());
  GradOut out(n.inputs().size());
  out[0] = *r;
  return out;
}

void RegisterShapeOps(GradRegistry& r) {
  r.Register("Identity", [](GradBuilder&, const Node&, Dy dy) -> StatusOr<GradOut> { return GradOut{dy[0]}; });
  // A TensorArray write (its stacked buffer, an index, the value): the value gets its
  // row of dy, the earlier buffer the rest of it.
  r.Register("TensorArrayWrite", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef shape, b.Op("Shape", {n.inputs()[0]}, {{"out_type", DType::kInt64}}));
    ASSIGN_OR_RETURN(const Node* g, b.NodeOf("TensorArrayWriteGrad", {dy[0], shape, n.inputs()[1]}));
    return GradOut{OutputRef{g, 0}, std::nullopt, OutputRef{g, 1}};
  });
  for (const char* op : {"Reshape", "ExpandDims", "Squeeze"}) {
    r.Register(op, [](GradBuilder& b, const Node& n, Dy dy) { return ToInputShape(b, n, dy[0]); });
  }
  r.Register("BroadcastTo", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef g, b.SumToOperand(dy[0], n.inputs()[0]));
    return GradOut{g};
  });
  r.Register("Cast", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    const DType from = TypeOf(n.inputs()[0]).dtype;
    if (!IsFloating(from) || !IsFloating(TypeOf(dy[0]).dtype)) return GradOut{std::nullopt};
    ASSIGN_OR_RETURN(OutputRef g, b.Cast(dy[0], from));
    return GradOut{g};
  });
  // Fill(value; shape): every element is the value.
  r.Register("Fill", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef s, b.Op("Sum", {dy[0]}));
    ASSIGN_OR_RETURN(OutputRef g, b.Reshape(s, TypeOf(n.inputs()[0]).shape));
    return GradOut{g};
  });
  for (const char* op : {"StopGradient", "ZerosLike", "OnesLike", "Shape", "Size", "Rank", "Range", "OneHot", "Eye",
                         "LinSpace", "DynamicFill", "RandomUniform", "RandomStandardNormal", "StatelessRandomUniform",
                         "StatelessRandomNormal", "Assert", "PrintV2", "AssignVariableOp", "AssignAddVariableOp",
                         "AssignSubVariableOp", "Where", "Unique"}) {
    r.RegisterNonDifferentiable(op);
  }
}

void RegisterRearranging(GradRegistry& r) {
  r.Register("Transpose", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(PartialShape s, RankedShape(n, 0));
    IntList perm = AttrOr<IntList>(n, "perm", {});
    if (!n.attrs().contains("perm")) {
      for (int i = s.rank() - 1; i >= 0; --i) perm.push_back(i);
    }
    IntList inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[Canon(perm[i], s.rank())] = static_cast<int64_t>(i);
    ASSIGN_OR_RETURN(OutputRef g, b.Op("Transpose", {dy[0]}, {{"perm", inverse}}));
    return GradOut{g};
  });
  r.Register("ReverseV2", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef g, b.Op("ReverseV2", {dy[0]}, {{"axis", AttrOr<IntList>(n, "axis", {})}}));
    return GradOut{g};
  });
  // Each input's part of the gradient along the axis.
  r.Register("ConcatV2", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(PartialShape s0, RankedShape(n, 0));
    const int rank = s0.rank();
    const int64_t axis = Canon(AttrOr<int64_t>(n, "axis", 0), rank);
    GradOut out;
    int64_t offset = 0;
    for (size_t i = 0; i < n.inputs().size(); ++i) {
      const PartialShape& s = TypeOf(n.inputs()[i]).shape;
      if (!s.known_rank() || s.dim(static_cast<int>(axis)) == kUnknownDim) {
        return NeedsStaticShape(n, absl::StrCat("input ", i, " along axis ", axis));
      }
      IntList begin(rank, 0), size(rank, -1);
      begin[axis] = offset;
      size[axis] = s.dim(static_cast<int>(axis));
      offset += size[axis];
      ASSIGN_OR_RETURN(OutputRef g, b.Op("Slice", {dy[0]}, {{"begin", begin}, {"size", size}}));
      out.push_back(g);
    }
    return out;
  });
  r.Register("Pack", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    const int64_t num = static_cast<int64_t>(n.inputs().size());
    ASSIGN_OR_RETURN(const Node* u, b.NodeOf("Unpack", {dy[0]}, {{"axis", AttrOr<int64_t>(n, "axis", 0)}, {"num", num}}));
    GradOut out;
    for (int i = 0; i < num; ++i) out.push_back(OutputRef{u, i});
    return out;
  });
  r.Register("Unpack", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef g, b.Op("Pack", dy, {{"axis", AttrOr<int64_t>(n, "axis", 0)}}));
    return GradOut{g};
  });
  for (const char* op : {"Split", "SplitV"}) {
    r.Register(op, [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
      ASSIGN_OR_RETURN(OutputRef g, b.Op("ConcatV2", dy, {{"axis", AttrOr<int64_t>(n, "axis", 0)}}));
      return GradOut{g};
    });
  }
  // dy viewed as [m0, d0, m1, d1, ...], summed over the multiples.
  r.Register("Tile", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(Shape s, KnownShape(n, 0));
    const IntList multiples = AttrOr<IntList>(n, "multiples", {});
    IntList split, axes;
    for (int i = 0; i < s.rank(); ++i) {
      split.push_back(multiples[i]);
      split.push_back(s.dim(i));
      axes.push_back(2 * i);
    }
    ASSIGN_OR_RETURN(OutputRef v, b.Op("Reshape", {dy[0]}, {{"shape", split}}));
    ASSIGN_OR_RETURN(OutputRef g, b.Sum(v, axes, false));
    ASSIGN_OR_RETURN(OutputRef shaped, b.Reshape(g, PartialShape(s.dims())));
    return GradOut{shaped};
  });
  r.Register("Pad", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    if (AttrOr<std::string>(n, "mode", "CONSTANT") != "CONSTANT") {
      return errors::Unimplemented(absl::StrCat("the gradient of Pad in mode ", AttrOr<std::string>(n, "mode", ""),
                                                " (node '", n.name(), "') is not defined; CONSTANT is"));
    }
    ASSIGN_OR_RETURN(Shape s, KnownShape(n, 0));
    const IntList pads = AttrOr<IntList>(n, "paddings", {});
    IntList begin, size;
    for (int i = 0; i < s.rank(); ++i) {
      if (pads[2 * i] < 0 || pads[2 * i + 1] < 0) return NeedsStaticShape(n, "paddings must be >= 0");
      begin.push_back(pads[2 * i]);
      size.push_back(s.dim(i));
    }
    ASSIGN_OR_RETURN(OutputRef g, b.Op("Slice", {dy[0]}, {{"begin", begin}, {"size", size}}));
    return GradOut{g};
  });
}

// Zero-pads `g` along `axis` to `before + size(g) + after`.
StatusOr<OutputRef> PadAxis(GradBuilder& b, OutputRef g, int axis, int64_t before, int64_t after) {
  if (before == 0 && after == 0) return g;
  const int rank = TypeOf(g).shape.rank();
  IntList pads(2 * rank, 0);
  pads[2 * axis] = before;
  pads[2 * axis + 1] = after;
  return b.Op("Pad", {g}, {{"paddings", pads}});
}

// The gradient of a strided slice: dy scattered back to the elements read, zeros
// elsewhere, one dimension at a time (reverse for negative strides, interleave zeros
// for strides > 1, then pad to the input's size).
StatusOr<GradOut> StridedSliceGrad(GradBuilder& b, const Node& n, OutputRef dy) {
  ASSIGN_OR_RETURN(Shape s, KnownShape(n, 0));
  ASSIGN_OR_RETURN(ops::StridedSliceAttrs attrs, ops::ParseStridedSliceAttrs(n.attrs()));
  ASSIGN_OR_RETURN(ops::StridedSlicePlan plan, ops::PlanStridedSlice(PartialShape(s.dims()), attrs));
  ASSIGN_OR_RETURN(OutputRef g, b.Op("Reshape", {dy}, {{"shape", IntList(plan.processing_shape)}}));
  for (int d = 0; d < s.rank(); ++d) {
    const int64_t count = plan.processing_shape[d], size = s.dim(d);
    int64_t begin = plan.begin[d], stride = plan.strides[d];
    if (count == 0) {
      ASSIGN_OR_RETURN(g, PadAxis(b, g, d, 0, size));
      continue;
    }
    if (stride < 0) {
      ASSIGN_OR_RETURN(g, b.Op("ReverseV2", {g}, {{"axis", IntList{d}}}));
      begin += (count - 1) * stride;
      stride = -stride;
    }
    std::vector<int64_t> dims = TypeOf(g).shape.dims();
    if (stride > 1) {
      // [.., count, ..] -> [.., count, 1, ..] -> pad to [.., count, stride, ..] -> [.., count*stride, ..]
      std::vector<int64_t> split = dims;
      split.insert(split.begin() + d + 1, 1);
      ASSIGN_OR_RETURN(g, b.Op("Reshape", {g}, {{"shape", IntList(split)}}));
      ASSIGN_OR_RETURN(g, PadAxis(b, g, d + 1, 0, stride - 1));
      std::vector<int64_t> merged = dims;
      merged[d] = count * stride;
      ASSIGN_OR_RETURN(g, b.Op("Reshape", {g}, {{"shape", IntList(merged)}}));
      IntList sb(dims.size(), 0), ss(dims.size(), -1);
      ss[d] = (count - 1) * stride + 1;
      ASSIGN_OR_RETURN(g, b.Op("Slice", {g}, {{"begin", sb}, {"size", ss}}));
    }
    const int64_t span = (count - 1) * stride + 1;
    ASSIGN_OR_RETURN(g, PadAxis(b, g, d, begin, size - begin - span));
  }
  return GradOut{g};
}

StatusOr<OutputRef> IndexConst(GradBuilder& b, DType dtype, int64_t v) {
  if (dtype == DType::kInt64) return b.Op("Const", {}, {{"value", Tensor::Scalar<int64_t>(v)}});
  return b.Op("Const", {}, {{"value", Tensor::Scalar<int32_t>(static_cast<int32_t>(v))}});
}

// params [outer, N, inner] gathered along N by indices (K of them): the gradient is
// onehot(indices, N)^T @ dy viewed as [outer, K, inner], which sums repeated indices.
StatusOr<GradOut> GatherGrad(GradBuilder& b, const Node& n, OutputRef dy) {
  if (AttrOr<int64_t>(n, "batch_dims", 0) != 0) {
    return errors::Unimplemented(absl::StrCat("the gradient of GatherV2 with batch_dims (node '", n.name(),
                                              "') is not defined"));
  }
  ASSIGN_OR_RETURN(Shape params, KnownShape(n, 0));
  ASSIGN_OR_RETURN(Shape indices, KnownShape(n, 1));
  const int axis = static_cast<int>(Canon(AttrOr<int64_t>(n, "axis", 0), params.rank()));
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= params.dim(i);
  for (int i = axis + 1; i < params.rank(); ++i) inner *= params.dim(i);
  const int64_t count = params.dim(axis), k = indices.num_elements();
  const OutputRef idx = n.inputs()[1];
  const DType it = TypeOf(idx).dtype, dt = TypeOf(dy).dtype;
  ASSIGN_OR_RETURN(OutputRef flat, b.Op("Reshape", {idx}, {{"shape", IntList{k}}}));
  ASSIGN_OR_RETURN(OutputRef depth, IndexConst(b, it, count == 0 ? 1 : count));
  ASSIGN_OR_RETURN(OutputRef wrapped, b.Op("FloorMod", {flat, depth}));  // negative indices count from the end
  ASSIGN_OR_RETURN(OutputRef hot, b.Op("OneHot", {wrapped}, {{"depth", count}, {"dtype", dt}}));
  ASSIGN_OR_RETURN(OutputRef view, b.Op("Reshape", {dy}, {{"shape", IntList{outer, k, inner}}}));
  ASSIGN_OR_RETURN(OutputRef prod, b.Op("BatchMatMulV2", {hot, view}, {{"adj_x", true}, {"adj_y", false}}));
  ASSIGN_OR_RETURN(OutputRef g, b.Op("Reshape", {prod}, {{"shape", IntList(params.dims())}}));
  return GradOut{g, std::nullopt};
}

void RegisterIndexing(GradRegistry& r) {
  r.Register("Slice", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(Shape s, KnownShape(n, 0));
    const IntList begin = AttrOr<IntList>(n, "begin", {});
    const Shape out = TypeOf(OutputRef{&n, 0}).shape.ToShape();
    OutputRef g = dy[0];
    for (int i = 0; i < s.rank(); ++i) {
      ASSIGN_OR_RETURN(g, PadAxis(b, g, i, begin[i], s.dim(i) - begin[i] - out.dim(i)));
    }
    return GradOut{g};
  });
  r.Register("StridedSlice", [](GradBuilder& b, const Node& n, Dy dy) { return StridedSliceGrad(b, n, dy[0]); });
  r.Register("GatherV2", [](GradBuilder& b, const Node& n, Dy dy) { return GatherGrad(b, n, dy[0]); });
  r.Register("SelectV2", [](GradBuilder& b, const Node& n, Dy dy) -> StatusOr<GradOut> {
    const OutputRef cond = n.inputs()[0];
    ASSIGN_OR_RETURN(OutputRef zero, b.ZerosLike(dy[0]));
    ASSIGN_OR_RETURN(OutputRef ga, b.Op("SelectV2", {cond, dy[0], zero}));
    ASSIGN_OR_RETURN(OutputRef gb, b.Op("SelectV2", {cond, zero, dy[0]}));
    ASSIGN_OR_RETURN(OutputRef ra, b.SumToOperand(ga, n.inputs()[1]));
    ASSIGN_OR_RETURN(OutputRef rb, b.SumToOperand(gb, n.inputs()[2]));
    return GradOut{std::nullopt, ra, rb};
  });
}

}  // namespace

void RegisterArrayGrads(GradRegistry& r) {
  RegisterShapeOps(r);
  RegisterRearranging(r);
  RegisterIndexing(r);
}

}  // namespace graphd::compiler::autodiff
