// Follows tensorflow/core/util/strided_slice_op.cc: the sparse spec (one entry per
// slice index) is expanded into a dense spec (one entry per input dimension), then each
// dimension's begin/end are canonicalised and its size computed.
#include "core/ops/strided_slice.h"

#include <algorithm>

namespace graphd::ops {
namespace {

constexpr int64_t kNewAxis = -1;
constexpr int64_t kShrinkAxis = -2;

bool Bit(int64_t mask, int i) { return (mask >> i) & 1; }

int64_t IntAttr(const AttrMap& attrs, absl::string_view name, bool* ok) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return 0;
  if (const int64_t* v = std::get_if<int64_t>(&it->second)) return *v;
  *ok = false;
  return 0;
}

}  // namespace

StatusOr<StridedSliceAttrs> ParseStridedSliceAttrs(const AttrMap& attrs) {
  StridedSliceAttrs a;
  for (auto [name, list] : {std::pair<const char*, IntList*>{"begin", &a.begin},
                            {"end", &a.end}, {"strides", &a.strides}}) {
    auto it = attrs.find(name);
    if (it == attrs.end()) {
      return errors::InvalidArgument(absl::StrCat("missing attribute '", name, "'"));
    }
    const IntList* l = std::get_if<IntList>(&it->second);
    if (l == nullptr) {
      return errors::InvalidArgument(absl::StrCat("attribute '", name, "' must be list(int)"));
    }
    *list = *l;
  }
  if (a.begin.size() != a.end.size() || a.begin.size() != a.strides.size()) {
    return errors::InvalidArgument(absl::StrCat("begin, end and strides must have the same length, got ",
                                                a.begin.size(), ", ", a.end.size(), " and ",
                                                a.strides.size()));
  }
  if (a.begin.size() > 63) return errors::InvalidArgument("too many slice indices (at most 63)");
  bool ok = true;
  a.begin_mask = IntAttr(attrs, "begin_mask", &ok);
  a.end_mask = IntAttr(attrs, "end_mask", &ok);
  a.ellipsis_mask = IntAttr(attrs, "ellipsis_mask", &ok);
  a.new_axis_mask = IntAttr(attrs, "new_axis_mask", &ok);
  a.shrink_axis_mask = IntAttr(attrs, "shrink_axis_mask", &ok);
  if (!ok) return errors::InvalidArgument("the *_mask attributes must be ints");
  if (a.ellipsis_mask & (a.ellipsis_mask - 1)) {
    return errors::InvalidArgument("multiple ellipses in slice spec not allowed");
  }
  return a;
}

StatusOr<StridedSlicePlan> PlanStridedSlice(const PartialShape& input,
                                            const StridedSliceAttrs& a) {
  // Sparse spec: an ellipsis is implied at the end when there is none.
  int sparse_dims = static_cast<int>(a.begin.size());
  int64_t ellipsis_mask = a.ellipsis_mask;
  int num_add_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && Bit(a.new_axis_mask, i)) ++num_add_axis_after_ellipsis;
    if (Bit(ellipsis_mask, i)) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis_mask |= int64_t{1} << sparse_dims;
    ++sparse_dims;
  }

  // Dense spec: one entry per input dimension.
  const int dims = input.rank();
  std::vector<int64_t> begin(dims, 0), end(dims, 0), strides(dims, 1);
  std::vector<bool> begin_masked(dims, false), end_masked(dims, false), shrink(dims, false);
  std::vector<int64_t> gather;  // final shape: dense index, kNewAxis or kShrinkAxis
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (Bit(ellipsis_mask, i)) {
      int next = std::min(dims - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        begin_masked[full] = end_masked[full] = true;
        gather.push_back(full);
      }
    } else if (Bit(a.new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        return errors::InvalidArgument(absl::StrCat("index out of range using input dim ", full,
                                                    "; input has only ", dims, " dims"));
      }
      begin[full] = a.begin[i];
      end[full] = a.end[i];
      strides[full] = a.strides[i];
      begin_masked[full] = Bit(a.begin_mask, i);
      end_masked[full] = Bit(a.end_mask, i);
      if (Bit(a.shrink_axis_mask, i)) {
        gather.push_back(kShrinkAxis);
        shrink[full] = true;
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }

  StridedSlicePlan plan;
  for (int d = 0; d < dims; ++d) {
    const int64_t stride = strides[d], dim = input.dim(d);
    if (stride == 0) {
      return errors::InvalidArgument(absl::StrCat("strides[", d, "] must be non-zero"));
    }
    if (shrink[d] && stride <= 0) {
      return errors::InvalidArgument("only stride 1 allowed on non-range indexing");
    }
    int64_t b = begin[d], e = end[d], size = kUnknownDim;
    if (dim == kUnknownDim) {
      if (shrink[d]) size = 1;
    } else if (shrink[d]) {
      b = b < 0 ? dim + b : b;
      if (b < 0 || b >= dim) {
        return errors::InvalidArgument(absl::StrCat("slice index ", begin[d], " of dimension ", d,
                                                    " out of bounds for size ", dim));
      }
      size = 1;
    } else {
      // Clamp into [0, dim] going forward, [-1, dim - 1] going backward.
      const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
      auto canonical = [&](int64_t x, bool masked, bool is_begin) {
        if (masked) return (stride > 0) == is_begin ? lo : hi;
        int64_t fwd = x < 0 ? dim + x : x;
        return std::clamp(fwd, lo, hi);
      };
      b = canonical(b, begin_masked[d], true);
      e = canonical(e, end_masked[d], false);
      int64_t interval = e - b;
      if (interval == 0 || ((interval < 0) != (stride < 0))) {
        size = 0;
      } else {
        size = interval / stride + (interval % stride != 0 ? 1 : 0);
      }
    }
    plan.begin.push_back(b);
    plan.strides.push_back(stride);
    plan.processing_shape.push_back(size);
  }
  for (int64_t g : gather) {
    if (g >= 0) {
      plan.final_shape.push_back(plan.processing_shape[g]);
    } else if (g == kNewAxis) {
      plan.final_shape.push_back(1);
    }
  }
  return plan;
}

}  // namespace graphd::ops
