// Helpers the gradient families share (internal to compiler/autodiff).
#ifndef GRAPHD_COMPILER_AUTODIFF_GRAD_UTIL_H_
#define GRAPHD_COMPILER_AUTODIFF_GRAD_UTIL_H_

#include "compiler/autodiff/gradients.h"
#include "core/graph/node_attr.h"

namespace graphd::compiler::autodiff {

// The axes a reduction node reduces, canonical and sorted (its `axis` attribute: an
// int, a list, or absent for all); needs its input's rank.
StatusOr<IntList> ReducedAxes(const Node& n);
// How many elements each output element of the reduction sums (static shapes only).
StatusOr<int64_t> ReducedCount(const Node& n);
// `t` (shaped like the reduction's output) with the reduced axes kept as 1s.
StatusOr<OutputRef> KeptReduced(GradBuilder& b, const Node& n, OutputRef t);
// `dy` (shaped like the reduction's output) broadcast back to its input's shape.
StatusOr<OutputRef> BroadcastReduced(GradBuilder& b, const Node& n, OutputRef dy);
// `t` broadcast to the shape of `like` (BroadcastTo when that shape is known, else
// added to zeros of `like`).
StatusOr<OutputRef> BroadcastLike(GradBuilder& b, OutputRef t, OutputRef like);

// A rank-known input shape or the error naming the node.
StatusOr<PartialShape> RankedShape(const Node& n, int input);

}  // namespace graphd::compiler::autodiff

#endif  // GRAPHD_COMPILER_AUTODIFF_GRAD_UTIL_H_
