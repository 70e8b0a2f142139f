// Eager execution for module-level code: an op on concrete tensors is run at once.
// The tracer builds a one-op body and asks the runner (the server's executor) to
// run it against the session's variables.
#ifndef GRAPHD_COMPILER_TRACER_EAGER_H_
#define GRAPHD_COMPILER_TRACER_EAGER_H_

#include <vector>

#include "core/graph/function.h"

namespace graphd::compiler::tracer {

class EagerRunner {
 public:
  virtual ~EagerRunner() = default;
  // Runs a body without arguments and returns its results.
  virtual StatusOr<std::vector<Tensor>> Run(const Function& body) = 0;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_EAGER_H_
