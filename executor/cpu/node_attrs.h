// Reading a node's attributes in kernel factories. Inference has already checked their
// types when the node was added, so these only supply defaults for absent attributes.
#ifndef GRAPHD_EXECUTOR_CPU_NODE_ATTRS_H_
#define GRAPHD_EXECUTOR_CPU_NODE_ATTRS_H_

#include "core/graph/graph.h"

namespace graphd::executor::cpu {

// The attribute `name` as T, or `fallback` when absent or of another type (an empty
// list arrives as IntList and reads as an empty list of any type).
template <typename T>
T AttrOr(const Node& node, absl::string_view name, T fallback) {
  auto it = node.attrs().find(name);
  if (it == node.attrs().end()) return fallback;
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  return fallback;
}

// A number given as an int, float or bool attribute (OneHot's on_value, ...).
inline double NumberAttrOr(const Node& node, absl::string_view name, double fallback) {
  auto it = node.attrs().find(name);
  if (it == node.attrs().end()) return fallback;
  if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  if (const float* f = std::get_if<float>(&it->second)) return *f;
  if (const bool* b = std::get_if<bool>(&it->second)) return *b ? 1 : 0;
  return fallback;
}

// `axis` made non-negative for `rank` (callers have range-checked it).
inline int Canonical(int64_t axis, int rank) {
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_NODE_ATTRS_H_
