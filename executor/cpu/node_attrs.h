// Reading a node's attributes in kernel factories. Inference has already checked their
// types when the node was added, so these only supply defaults for absent attributes.
#ifndef GRAPHD_EXECUTOR_CPU_NODE_ATTRS_H_
#define GRAPHD_EXECUTOR_CPU_NODE_ATTRS_H_

#include <type_traits>

#include "core/float_to_int.h"
#include "core/graph/graph.h"
#include "core/graph/node_attr.h"

namespace graphd::executor::cpu {

using ::graphd::AttrOr;  // core/graph/node_attr.h

// The value of the Const that feeds `node`'s input `i`, or null when that producer is
// not a Const holding a tensor (a kernel may keep work derived from a constant input:
// MatMul's packed weights, the LSTM's packed recurrence).
inline const Tensor* ConstInput(const Node& node, size_t i) {
  if (i >= node.inputs().size()) return nullptr;
  const Node& producer = *node.inputs()[i].node;
  if (producer.op_name() != "Const") return nullptr;
  auto value = producer.attrs().find("value");
  return value == producer.attrs().end() ? nullptr : std::get_if<Tensor>(&value->second);
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

// `v` as an element of T; to an integer T, NaN, infinities and out-of-range values
// convert as Cast converts them (core/float_to_int.h), never undefined.
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return TruncateToInt<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

// A number attribute (int, float or bool: OneHot's on_value, Pad's constant_values)
// as an element of T, converted from its own type: an int64 never goes through a
// double (which would round values past 2^53 and take INT64_MAX out of range).
template <typename T>
T NumberAttrAs(const Node& node, absl::string_view name, double fallback) {
  auto it = node.attrs().find(name);
  if (it != node.attrs().end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) {
      if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(*i);  // wraps modulo 2^bits, as Cast between integers
      } else {
        return static_cast<T>(static_cast<double>(*i));
      }
    }
    if (const float* f = std::get_if<float>(&it->second)) return FromDouble<T>(*f);
    if (const bool* b = std::get_if<bool>(&it->second)) return FromDouble<T>(*b ? 1 : 0);
  }
  return FromDouble<T>(fallback);
}

// `axis` made non-negative for `rank` (callers have range-checked it).
inline int Canonical(int64_t axis, int rank) {
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_NODE_ATTRS_H_
