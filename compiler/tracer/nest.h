// TensorFlow's `nest` over the values a staged branch or loop carries: tuples, lists
// and dicts are structure, everything else (tensors, numbers, objects, None, a list
// set to become a TensorArray) is a leaf. Walks are bounded in depth.
#ifndef GRAPHD_COMPILER_TRACER_NEST_H_
#define GRAPHD_COMPILER_TRACER_NEST_H_

#include <optional>
#include <string>
#include <vector>

#include "compiler/tracer/value.h"

namespace graphd::compiler::tracer {

// The deepest structure staged control flow takes apart (RecursionError beyond).
inline constexpr int kMaxNestDepth = 64;

// Objects that stand for a tensor (variables): leaves read as their value.
bool IsTensorLikeObject(const Value& v);

// Appends the leaves of `v`, in order (dict values in the order of their keys' reprs,
// as tf.nest sorts keys).
Status FlattenLeaves(const Value& v, std::vector<Value>& leaves);

// Why `a` and `b` differ in structure (kind, length or dict keys), or nullopt. With
// `sequences_alike` a list and a tuple of the same length match.
std::optional<std::string> StructureMismatch(const Value& a, const Value& b, bool sequences_alike = false);

// A copy of `like` (new lists and dicts) whose leaves are leaves[*pos], ...;
// advances *pos by the number of leaves of `like`.
Value PackLike(const Value& like, const std::vector<Value>& leaves, size_t* pos);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_NEST_H_
