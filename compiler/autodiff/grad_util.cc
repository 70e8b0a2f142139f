#include "compiler/autodiff/grad_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace graphd::compiler::autodiff {

StatusOr<PartialShape> RankedShape(const Node& n, int input) {
  const PartialShape& s = TypeOf(n.inputs()[input]).shape;
  if (!s.known_rank()) return NeedsStaticShape(n, absl::StrCat("the rank of input ", input));
  return s;
}

StatusOr<IntList> ReducedAxes(const Node& n) {
  ASSIGN_OR_RETURN(PartialShape s, RankedShape(n, 0));
  const int rank = s.rank();
  IntList axes;
  auto it = n.attrs().find("axis");
  if (it == n.attrs().end()) {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
    return axes;
  }
  if (const int64_t* a = std::get_if<int64_t>(&it->second)) {
    axes.push_back(*a);
  } else if (const IntList* l = std::get_if<IntList>(&it->second)) {
    axes = *l;
  }
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

StatusOr<int64_t> ReducedCount(const Node& n) {
  ASSIGN_OR_RETURN(PartialShape s, RankedShape(n, 0));
  ASSIGN_OR_RETURN(IntList axes, ReducedAxes(n));
  int64_t count = 1;
  for (int64_t a : axes) {
    if (s.dim(static_cast<int>(a)) == kUnknownDim) return NeedsStaticShape(n, "the reduced dimensions");
    count *= s.dim(static_cast<int>(a));
  }
  return count;
}

StatusOr<OutputRef> KeptReduced(GradBuilder& b, const Node& n, OutputRef t) {
  if (AttrOr<bool>(n, "keep_dims", false)) return t;
  ASSIGN_OR_RETURN(PartialShape s, RankedShape(n, 0));
  ASSIGN_OR_RETURN(IntList axes, ReducedAxes(n));
  std::vector<int64_t> kept = s.dims();
  for (int64_t a : axes) kept[a] = 1;
  ASSIGN_OR_RETURN(PartialShape shape, PartialShape::Make(kept));
  auto r = b.Reshape(t, shape);
  if (!r.ok()) return NeedsStaticShape(n, r.status().message());
  return r;
}

StatusOr<OutputRef> BroadcastLike(GradBuilder& b, OutputRef t, OutputRef like) {
  const PartialShape& s = TypeOf(like).shape;
  if (TypeOf(t).shape == s && s.known_rank() && s.fully_defined()) return t;
  if (s.known_rank() && s.fully_defined()) return b.Op("BroadcastTo", {t}, {{"shape", s.dims()}});
  ASSIGN_OR_RETURN(OutputRef zeros, b.ZerosLike(like));
  return b.Add(zeros, t);
}

StatusOr<OutputRef> BroadcastReduced(GradBuilder& b, const Node& n, OutputRef dy) {
  // Over every axis, dy is a scalar (or all 1s with keep_dims): it broadcasts to the
  // input as it is, whatever the input's rank.
  if (!n.attrs().contains("axis")) return BroadcastLike(b, dy, n.inputs()[0]);
  ASSIGN_OR_RETURN(OutputRef kept, KeptReduced(b, n, dy));
  return BroadcastLike(b, kept, n.inputs()[0]);
}

}  // namespace graphd::compiler::autodiff
