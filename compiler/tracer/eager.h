// Eager execution for module-level code: an op on concrete tensors is run at once.
// The tracer builds a one-op body and asks the runner (the server's executor) to
// run it against the session's variables. A @tf.function called from module-level
// code goes to the runner too, which traces it into (or finds in its cache) a
// concrete function and runs that, as TensorFlow does.
#ifndef GRAPHD_COMPILER_TRACER_EAGER_H_
#define GRAPHD_COMPILER_TRACER_EAGER_H_

#include <optional>
#include <vector>

#include "compiler/tracer/objects.h"
#include "core/graph/function.h"

namespace graphd::compiler::tracer {

class EagerRunner {
 public:
  virtual ~EagerRunner() = default;
  // Runs a body without arguments and returns its results.
  virtual StatusOr<std::vector<Tensor>> Run(const Function& body) = 0;
  // Calls the @tf.function `fn` (its concrete function for the TensorSpecs `concrete`
  // when not empty) from eager code run by `interp` (what it prints goes to
  // interp.out()). nullopt (the default) runs its body as Python instead.
  virtual std::optional<StatusOr<Value>> CallFunction(Interpreter& interp, const Value& fn, const CallArgs& args,
                                                      const std::vector<Value>& concrete) {
    return std::nullopt;
  }
  // fn.get_concrete_function(*args) from eager code: traces (or finds) it without
  // running it; a ConcreteFunctionObj. nullopt (the default): not available.
  virtual std::optional<StatusOr<Value>> GetConcreteFunction(Interpreter& interp, const Value& fn,
                                                             const CallArgs& args) {
    return std::nullopt;
  }
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_EAGER_H_
