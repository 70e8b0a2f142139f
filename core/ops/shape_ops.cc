// Shape, Size, Rank; ExpandDims, Squeeze and BroadcastTo (attributes give the axes
// and the target shape).
#include <set>

#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

Status InferShape(InferenceContext& c) {
  ASSIGN_OR_RETURN(DType out, c.AttrOr<DType>("out_type", DType::kInt32));
  RETURN_IF_ERROR(ops::CheckDType(c, out, {DType::kInt32, DType::kInt64}, "out_type"));
  const PartialShape& s = c.input(0).shape;
  c.AddOutput(out, PartialShape(std::vector<int64_t>{s.known_rank() ? s.rank() : kUnknownDim}));
  return absl::OkStatus();
}

Status InferSize(InferenceContext& c) {
  ASSIGN_OR_RETURN(DType out, c.AttrOr<DType>("out_type", DType::kInt32));
  RETURN_IF_ERROR(ops::CheckDType(c, out, {DType::kInt32, DType::kInt64}, "out_type"));
  c.AddOutput(out, PartialShape(std::vector<int64_t>{}));
  return absl::OkStatus();
}

Status InferRank(InferenceContext& c) {
  c.AddOutput(DType::kInt32, PartialShape(std::vector<int64_t>{}));
  return absl::OkStatus();
}

// attr axis (int) in [-rank-1, rank]: where the new dimension of size 1 goes.
Status InferExpandDims(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(int64_t axis, c.Attr<int64_t>("axis"));
  if (!x.shape.known_rank()) {
    c.AddOutput(x.dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(int a, ops::CanonicalAxis(c, axis, x.shape.rank() + 1));
  std::vector<int64_t> dims = x.shape.dims();
  dims.insert(dims.begin() + a, 1);
  c.AddOutput(x.dtype, PartialShape(dims));
  return absl::OkStatus();
}

// attr squeeze_dims (list(int)): the size-1 dimensions to remove; empty = all of them.
Status InferSqueeze(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(IntList axes, c.AttrOr<IntList>("squeeze_dims", {}));
  if (!x.shape.known_rank()) {
    c.AddOutput(x.dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  int rank = x.shape.rank();
  std::set<int> squeeze;
  for (int64_t a : axes) {
    ASSIGN_OR_RETURN(int axis, ops::CanonicalAxis(c, a, rank));
    int64_t d = x.shape.dim(axis);
    if (d != 1 && d != kUnknownDim) {
      return c.Error(absl::StrCat("cannot squeeze dimension ", a, " of shape ",
                                  x.shape.ToString(), ": its size is ", d, ", not 1"));
    }
    squeeze.insert(axis);
  }
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    int64_t d = x.shape.dim(i);
    if (axes.empty() && d == kUnknownDim) {  // might be 1: the rank is unknown
      c.AddOutput(x.dtype, PartialShape::UnknownRank());
      return absl::OkStatus();
    }
    if (squeeze.contains(i) || (axes.empty() && d == 1)) continue;
    out.push_back(d);
  }
  c.AddOutput(x.dtype, PartialShape(out));
  return absl::OkStatus();
}

// attr shape (list(int)): the input must broadcast to exactly this shape.
Status InferBroadcastTo(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(IntList shape, ops::IntListAttr(c, "shape", 0));
  if (x.shape.known_rank()) {
    int rank = x.shape.rank(), n = static_cast<int>(shape.size());
    bool ok = rank <= n;
    for (int i = 0; ok && i < rank; ++i) {
      int64_t d = x.shape.dim(rank - 1 - i), t = shape[n - 1 - i];
      ok = d == kUnknownDim || d == 1 || d == t;
    }
    if (!ok) {
      return c.Error(absl::StrCat("cannot broadcast shape ", x.shape.ToString(), " to [",
                                  absl::StrJoin(shape, ","), "]"));
    }
  }
  c.AddOutput(x.dtype, PartialShape(shape));
  return absl::OkStatus();
}

}  // namespace

void RegisterShapeOps(OpRegistry& r) {
  r.Register({.name = "Shape", .num_inputs = 1, .infer = InferShape});
  r.Register({.name = "Size", .num_inputs = 1, .infer = InferSize});
  r.Register({.name = "Rank", .num_inputs = 1, .infer = InferRank});
  r.Register({.name = "ExpandDims", .num_inputs = 1, .infer = InferExpandDims});
  r.Register({.name = "Squeeze", .num_inputs = 1, .infer = InferSqueeze});
  r.Register({.name = "BroadcastTo", .num_inputs = 1, .infer = InferBroadcastTo});
}

}  // namespace graphd
