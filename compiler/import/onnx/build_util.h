// Small graph-building helpers shared by the op families.
#ifndef GRAPHD_COMPILER_IMPORT_ONNX_BUILD_UTIL_H_
#define GRAPHD_COMPILER_IMPORT_ONNX_BUILD_UTIL_H_

#include <vector>

#include "compiler/import/onnx/node_context.h"

namespace graphd::compiler::onnx_import {

inline const TensorType& TypeOf(OutputRef r) { return r.node->output(r.index); }

inline StatusOr<OutputRef> Transpose(NodeContext& n, OutputRef x, std::vector<int64_t> perm) {
  return n.Add("Transpose", {x}, {{"perm", IntList(std::move(perm))}});
}
inline StatusOr<OutputRef> Reshape(NodeContext& n, OutputRef x, std::vector<int64_t> dims) {
  return n.Add("Reshape", {x}, {{"shape", IntList(std::move(dims))}});
}
inline StatusOr<OutputRef> ExpandDims(NodeContext& n, OutputRef x, int64_t axis) {
  return n.Add("ExpandDims", {x}, {{"axis", axis}});
}
inline StatusOr<OutputRef> Squeeze(NodeContext& n, OutputRef x, std::vector<int64_t> axes) {
  return n.Add("Squeeze", {x}, {{"squeeze_dims", IntList(std::move(axes))}});
}

// The rank of `x`; Unimplemented naming `what` when unknown.
inline StatusOr<int> KnownRank(NodeContext& n, OutputRef x, absl::string_view what) {
  const PartialShape& s = TypeOf(x).shape;
  if (!s.known_rank()) return n.Unsupported(absl::StrCat(what, " must have a known rank"));
  return s.rank();
}

// `axis` in [-rank, rank) made non-negative (InvalidArgument outside).
inline StatusOr<int64_t> NormalizeAxis(NodeContext& n, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return n.Invalid(absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace graphd::compiler::onnx_import

#endif  // GRAPHD_COMPILER_IMPORT_ONNX_BUILD_UTIL_H_
