// Rearranging ops: Transpose, ConcatV2, Pack, Unpack, Split, SplitV, Tile, ReverseV2,
// ReverseSequence, Pad. Axes, permutations and sizes are attributes; inference checks
// them against what is known of the input shapes.
// ReverseSequence(x, seq_lengths; seq_dim, batch_dim) is TensorFlow's: for each b along
// batch_dim, the first seq_lengths[b] slices along seq_dim are reversed and the rest
// kept; seq_lengths is an int32/int64 vector of x.shape[batch_dim] entries in
// [0, x.shape[seq_dim]] (checked at run time).
#include <limits>
#include <numeric>
#include <set>

#include "core/dim_math.h"
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

// The common value of two dims (unknown if both are); error when both known and different.
StatusOr<int64_t> MergeDim(int64_t a, int64_t b) {
  if (a == kUnknownDim) return b;
  if (b == kUnknownDim || a == b) return a;
  return errors::InvalidArgument("dims differ");
}

// attr perm (list(int)); absent = reverse the dimensions.
Status InferTranspose(InferenceContext& c) {
  const TensorType& x = c.input(0);
  bool has_perm = c.attrs().contains("perm");
  ASSIGN_OR_RETURN(IntList perm, c.AttrOr<IntList>("perm", {}));
  if (!has_perm) {
    if (!x.shape.known_rank()) {
      c.AddOutput(x.dtype, PartialShape::UnknownRank());
      return absl::OkStatus();
    }
    for (int i = x.shape.rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  int rank = static_cast<int>(perm.size());
  if (x.shape.known_rank() && x.shape.rank() != rank) {
    return c.Error(absl::StrCat("perm [", absl::StrJoin(perm, ","), "] has ", rank,
                                " entries but the input ", x.shape.ToString(), " has rank ",
                                x.shape.rank()));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return c.Error(absl::StrCat("perm [", absl::StrJoin(perm, ","),
                                  "] is not a permutation of 0..", rank - 1));
    }
    seen[p] = true;
  }
  std::vector<int64_t> out(rank, kUnknownDim);
  if (x.shape.known_rank()) {
    for (int i = 0; i < rank; ++i) out[i] = x.shape.dim(static_cast<int>(perm[i]));
  }
  c.AddOutput(x.dtype, PartialShape(out));
  return absl::OkStatus();
}

// Checks that all inputs share input 0's dtype and returns the merged shape of all
// (ranks and known dims must agree, except `skip_axis` when >= 0, which is summed).
StatusOr<PartialShape> MergeInputs(InferenceContext& c, absl::string_view what, int64_t axis_attr,
                                   bool concat, int* axis_out) {
  DType d = c.input(0).dtype;
  int rank = -1;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.input(i).dtype != d) {
      return c.Error(absl::StrCat("input 0 is ", DTypeName(d), " but input ", i, " is ",
                                  DTypeName(c.input(i).dtype)));
    }
    const PartialShape& s = c.input(i).shape;
    if (!s.known_rank()) continue;
    if (rank >= 0 && s.rank() != rank) {
      return c.Error(absl::StrCat("cannot ", what, " shapes of different ranks: ",
                                  c.input(0).shape.ToString(), " and ", s.ToString(),
                                  " (input ", i, ")"));
    }
    rank = s.rank();
  }
  if (rank < 0) return PartialShape::UnknownRank();
  if (concat && rank == 0) return c.Error("cannot concatenate scalars (use Pack)");
  ASSIGN_OR_RETURN(int axis, ops::CanonicalAxis(c, axis_attr, concat ? rank : rank + 1));
  *axis_out = axis;
  std::vector<int64_t> dims(rank, kUnknownDim);
  int64_t total = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input(i).shape;
    if (!s.known_rank()) {
      total = kUnknownDim;
      continue;
    }
    for (int k = 0; k < rank; ++k) {
      if (concat && k == axis) {
        total = (total == kUnknownDim || s.dim(k) == kUnknownDim) ? kUnknownDim : total + s.dim(k);
        continue;
      }
      auto merged = MergeDim(dims[k], s.dim(k));
      if (!merged.ok()) {
        return c.Error(absl::StrCat("cannot ", what, " input ", i, " of shape ", s.ToString(),
                                    ": dimension ", k, " is ", s.dim(k), ", expected ", dims[k],
                                    concat ? " (all dimensions but the axis must match)" : ""));
      }
      dims[k] = *merged;
    }
  }
  if (concat) dims[axis] = total;
  return PartialShape(dims);
}

Status InferConcat(InferenceContext& c) {
  ASSIGN_OR_RETURN(int64_t axis, c.Attr<int64_t>("axis"));
  int a = 0;
  ASSIGN_OR_RETURN(PartialShape out, MergeInputs(c, "concatenate", axis, true, &a));
  c.AddOutput(c.input(0).dtype, out);
  return absl::OkStatus();
}

Status InferPack(InferenceContext& c) {
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", 0));
  int a = 0;
  ASSIGN_OR_RETURN(PartialShape merged, MergeInputs(c, "stack", axis, false, &a));
  if (!merged.known_rank()) {
    c.AddOutput(c.input(0).dtype, merged);
    return absl::OkStatus();
  }
  std::vector<int64_t> dims = merged.dims();
  dims.insert(dims.begin() + a, c.num_inputs());
  c.AddOutput(c.input(0).dtype, PartialShape(dims));
  return absl::OkStatus();
}

// Splits `x` along attr axis into pieces of `sizes` (kUnknownDim = the rest / unknown).
Status AddPieces(InferenceContext& c, int axis, const std::vector<int64_t>& sizes, bool drop) {
  const TensorType& x = c.input(0);
  for (int64_t size : sizes) {
    std::vector<int64_t> dims = x.shape.dims();
    if (drop) {
      dims.erase(dims.begin() + axis);
    } else {
      dims[axis] = size;
    }
    c.AddOutput(x.dtype, PartialShape(dims));
  }
  return absl::OkStatus();
}

// attrs num (optional when the axis' size is known), axis (default 0).
Status InferUnpack(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", 0));
  bool has_num = c.attrs().contains("num");
  ASSIGN_OR_RETURN(int64_t num, c.AttrOr<int64_t>("num", 0));
  if (!x.shape.known_rank()) {
    if (!has_num) return c.Error("attribute 'num' is needed when the input's rank is unknown");
    for (int64_t i = 0; i < num; ++i) c.AddOutput(x.dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  if (x.shape.rank() == 0) return c.Error("cannot unstack a scalar");
  ASSIGN_OR_RETURN(int a, ops::CanonicalAxis(c, axis, x.shape.rank()));
  int64_t d = x.shape.dim(a);
  if (!has_num) {
    if (d == kUnknownDim) {
      return c.Error(absl::StrCat("cannot infer num from shape ", x.shape.ToString()));
    }
    num = d;
  }
  if (num < 0 || (d != kUnknownDim && d != num)) {
    return c.Error(absl::StrCat("num is ", num, " but dimension ", axis, " of ",
                                x.shape.ToString(), " has size ", d));
  }
  return AddPieces(c, a, std::vector<int64_t>(num, 1), /*drop=*/true);
}

// attrs num_split (>= 1), axis (default 0).
Status InferSplit(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", 0));
  ASSIGN_OR_RETURN(int64_t num, c.Attr<int64_t>("num_split"));
  if (num < 1) return c.Error(absl::StrCat("num_split must be >= 1, got ", num));
  if (!x.shape.known_rank()) {
    for (int64_t i = 0; i < num; ++i) c.AddOutput(x.dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(int a, ops::CanonicalAxis(c, axis, x.shape.rank()));
  int64_t d = x.shape.dim(a);
  if (d != kUnknownDim && d % num != 0) {
    return c.Error(absl::StrCat("dimension ", axis, " of ", x.shape.ToString(),
                                " (size ", d, ") is not divisible by num_split ", num));
  }
  return AddPieces(c, a, std::vector<int64_t>(num, d == kUnknownDim ? d : d / num), false);
}

// attrs size_splits (list(int), at most one -1 = the rest), axis (default 0).
Status InferSplitV(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", 0));
  ASSIGN_OR_RETURN(IntList sizes, ops::IntListAttr(c, "size_splits", -1));
  if (sizes.empty()) return c.Error("size_splits must not be empty");
  int unknown = -1;
  int64_t known = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (unknown >= 0) return c.Error("size_splits may contain at most one -1");
      unknown = static_cast<int>(i);
    } else {
      known += sizes[i];
    }
  }
  if (!x.shape.known_rank()) {
    for (size_t i = 0; i < sizes.size(); ++i) c.AddOutput(x.dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(int a, ops::CanonicalAxis(c, axis, x.shape.rank()));
  int64_t d = x.shape.dim(a);
  if (d != kUnknownDim) {
    if (unknown >= 0 ? known > d : known != d) {
      return c.Error(absl::StrCat("size_splits [", absl::StrJoin(sizes, ","),
                                  "] do not add up to dimension ", axis, " of ",
                                  x.shape.ToString(), " (size ", d, ")"));
    }
    if (unknown >= 0) sizes[unknown] = d - known;
  }
  return AddPieces(c, a, sizes, false);
}

// attr multiples (list(int), one per dimension, >= 0).
Status InferTile(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(IntList multiples, ops::IntListAttr(c, "multiples", 0));
  if (x.shape.known_rank() && x.shape.rank() != static_cast<int>(multiples.size())) {
    return c.Error(absl::StrCat("multiples [", absl::StrJoin(multiples, ","), "] has ",
                                multiples.size(), " entries but the input ", x.shape.ToString(),
                                " has rank ", x.shape.rank()));
  }
  std::vector<int64_t> out(multiples.size(), kUnknownDim);
  for (size_t i = 0; i < multiples.size(); ++i) {
    int64_t d = x.shape.known_rank() ? x.shape.dim(static_cast<int>(i)) : kUnknownDim;
    if (multiples[i] < 0) {
      return c.Error(absl::StrCat("multiples [", absl::StrJoin(multiples, ","), "] must be >= 0"));
    }
    if (d != kUnknownDim) {
      auto size = CheckedMul(d, multiples[i], "the output size");
      if (!size.ok()) return c.Error(size.status().message());
      out[i] = *size;
    }
    if (multiples[i] == 0) out[i] = 0;
  }
  c.AddOutput(x.dtype, PartialShape(out));
  return absl::OkStatus();
}

// attr axis (list(int)): the dimensions to reverse, each at most once.
Status InferReverse(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(IntList axes, c.AttrOr<IntList>("axis", {}));
  if (x.shape.known_rank()) {
    std::set<int> seen;
    for (int64_t a : axes) {
      ASSIGN_OR_RETURN(int axis, ops::CanonicalAxis(c, a, x.shape.rank()));
      if (!seen.insert(axis).second) return c.Error(absl::StrCat("axis ", a, " given twice"));
    }
  }
  c.AddOutput(x.dtype, x.shape);
  return absl::OkStatus();
}

Status InferReverseSequence(InferenceContext& c) {
  const TensorType& x = c.input(0);
  const TensorType& lengths = c.input(1);
  RETURN_IF_ERROR(
      ops::CheckDType(c, lengths.dtype, {DType::kInt32, DType::kInt64}, "seq_lengths dtype"));
  ASSIGN_OR_RETURN(int64_t seq_attr, c.Attr<int64_t>("seq_dim"));
  ASSIGN_OR_RETURN(int64_t batch_attr, c.AttrOr<int64_t>("batch_dim", 0));
  if (lengths.shape.known_rank() && lengths.shape.rank() != 1) {
    return c.Error(absl::StrCat("seq_lengths must be a vector, got shape ", lengths.shape.ToString()));
  }
  if (x.shape.known_rank()) {
    const int rank = x.shape.rank();
    ASSIGN_OR_RETURN(int seq, ops::CanonicalAxis(c, seq_attr, rank, "seq_dim"));
    ASSIGN_OR_RETURN(int batch, ops::CanonicalAxis(c, batch_attr, rank, "batch_dim"));
    if (seq == batch) return c.Error("seq_dim and batch_dim must differ");
    const int64_t n = x.shape.dim(batch);
    if (lengths.shape.known_rank() && n != kUnknownDim && lengths.shape.dim(0) != kUnknownDim &&
        lengths.shape.dim(0) != n) {
      return c.Error(absl::StrCat("seq_lengths ", lengths.shape.ToString(), " must have the ", n,
                                  " entries of batch_dim"));
    }
  }
  c.AddOutput(x.dtype, x.shape);
  return absl::OkStatus();
}

// attrs paddings (2 * rank ints: before, after per dimension, >= 0), mode (CONSTANT,
// REFLECT, SYMMETRIC, or EDGE: repeat the border value, ONNX's edge mode; any width
// when the dimension is not empty), constant_values (int or float; a string for string tensors).
Status InferPad(InferenceContext& c) {
  const TensorType& x = c.input(0);
  if (!IsNumeric(x.dtype) && x.dtype != DType::kBool && x.dtype != DType::kString) {
    return c.Error(absl::StrCat("dtype ", DTypeName(x.dtype), " is not supported"));
  }
  ASSIGN_OR_RETURN(IntList pads, ops::IntListAttr(c, "paddings", 0));
  ASSIGN_OR_RETURN(std::string mode,
                   ops::EnumAttr(c, "mode", {"CONSTANT", "REFLECT", "SYMMETRIC", "EDGE"}, "CONSTANT"));
  if (x.dtype == DType::kString) {
    RETURN_IF_ERROR(c.AttrOr<std::string>("constant_values", "").status());
  } else {
    RETURN_IF_ERROR(ops::NumberAttr(c, "constant_values", 0).status());
  }
  if (pads.size() % 2 != 0) {
    return c.Error(absl::StrCat("paddings must have 2 entries per dimension, got ", pads.size()));
  }
  int rank = static_cast<int>(pads.size() / 2);
  if (x.shape.known_rank() && x.shape.rank() != rank) {
    return c.Error(absl::StrCat("paddings [", absl::StrJoin(pads, ","), "] are for rank ", rank,
                                " but the input ", x.shape.ToString(), " has rank ",
                                x.shape.rank()));
  }
  std::vector<int64_t> out(rank, kUnknownDim);
  for (int i = 0; i < rank; ++i) {
    int64_t d = x.shape.known_rank() ? x.shape.dim(i) : kUnknownDim;
    if (d == kUnknownDim) continue;
    int64_t limit = mode == "REFLECT" ? d - 1 : d;
    if (mode == "EDGE") limit = d > 0 ? std::numeric_limits<int64_t>::max() : 0;
    if (mode != "CONSTANT" && (pads[2 * i] > limit || pads[2 * i + 1] > limit)) {
      return c.Error(absl::StrCat(mode, " paddings of dimension ", i, " must be <= ", limit,
                                  " for size ", d, ", got [", pads[2 * i], ",", pads[2 * i + 1],
                                  "]"));
    }
    auto padded = CheckedAdd(d, pads[2 * i], "the padded size");
    if (padded.ok()) padded = CheckedAdd(*padded, pads[2 * i + 1], "the padded size");
    if (!padded.ok()) return c.Error(padded.status().message());
    out[i] = *padded;
  }
  c.AddOutput(x.dtype, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterManipOps(OpRegistry& r) {
  r.Register({.name = "Transpose", .num_inputs = 1, .infer = InferTranspose});
  r.Register({.name = "ConcatV2", .num_inputs = OpDef::kVariadic, .min_inputs = 1,
              .infer = InferConcat});
  r.Register({.name = "Pack", .num_inputs = OpDef::kVariadic, .min_inputs = 1,
              .infer = InferPack});
  r.Register({.name = "Unpack", .num_inputs = 1, .infer = InferUnpack});
  r.Register({.name = "Split", .num_inputs = 1, .infer = InferSplit});
  r.Register({.name = "SplitV", .num_inputs = 1, .infer = InferSplitV});
  r.Register({.name = "Tile", .num_inputs = 1, .infer = InferTile});
  r.Register({.name = "ReverseV2", .num_inputs = 1, .infer = InferReverse});
  r.Register({.name = "ReverseSequence", .num_inputs = 2, .infer = InferReverseSequence});
  r.Register({.name = "Pad", .num_inputs = 1, .infer = InferPad});
}

}  // namespace graphd
