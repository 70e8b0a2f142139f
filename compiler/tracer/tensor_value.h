// A tensor as the tracer sees it: symbolic (an output of a node in a graph being
// traced) or eager (a concrete value, in module-level code).
#ifndef GRAPHD_COMPILER_TRACER_TENSOR_VALUE_H_
#define GRAPHD_COMPILER_TRACER_TENSOR_VALUE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/graph/graph.h"
#include "core/tensor.h"

namespace graphd::compiler::tracer {

class GraphScope;

struct TensorObj {
  DType dtype = DType::kInvalid;
  PartialShape shape;
  // Symbolic: the graph scope the tensor lives in and its node output.
  GraphScope* scope = nullptr;
  uint64_t scope_serial = 0;  // scope->serial(): tells a live scope from a finished one
  OutputRef ref;
  // Eager: the value.
  std::optional<Tensor> value;

  bool symbolic() const { return scope != nullptr; }
  // "name:index" of a symbolic tensor.
  std::string Name() const { return ref.node ? ref.node->name() + ":" + std::to_string(ref.index) : "?"; }
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_TENSOR_VALUE_H_
