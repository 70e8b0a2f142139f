// Reading a node's attributes in kernels, with a default.
#ifndef GRAPHD_CORE_GRAPH_NODE_ATTR_H_
#define GRAPHD_CORE_GRAPH_NODE_ATTR_H_

#include <variant>

#include "absl/strings/string_view.h"
#include "core/graph/graph.h"

namespace graphd {

// The attribute `name` as T, or `fallback` when absent or of another type.
template <typename T>
T AttrOr(const Node& node, absl::string_view name, T fallback) {
  auto it = node.attrs().find(name);
  if (it == node.attrs().end()) return fallback;
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  return fallback;
}

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_NODE_ATTR_H_
