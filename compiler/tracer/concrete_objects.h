// What `f.get_concrete_function(...)` returns in source: a concrete function that can
// be called (arguments checked against its signature) and inspected as TensorFlow's
// are (`cf.graph.as_graph_def().node`, each node with `.name` and `.op`), as the seed
// articles do to show what AutoGraph staged.
#ifndef GRAPHD_COMPILER_TRACER_CONCRETE_OBJECTS_H_
#define GRAPHD_COMPILER_TRACER_CONCRETE_OBJECTS_H_

#include <string>
#include <vector>

#include "compiler/tracer/objects.h"

namespace graphd::compiler::tracer {

class ConcreteFunctionObj : public Object {
 public:
  // `fn`: the tf.function; `specs`: its concrete signature (TensorSpecObj values), or
  // empty when the trace had Python arguments (calls then go through `fn`).
  // `nodes`: the traced graph's top-level nodes (name, op).
  ConcreteFunctionObj(Value fn, std::string name, std::vector<std::pair<std::string, std::string>> nodes,
                      std::vector<Value> specs)
      : fn_(std::move(fn)), name_(std::move(name)), nodes_(std::move(nodes)), specs_(std::move(specs)) {}
  std::string TypeName() const override { return "ConcreteFunction"; }
  std::string Repr() const override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;
  StatusOr<Value> Call(Interpreter& interp, CallArgs& args) override;

 private:
  Value fn_;
  std::string name_;
  std::vector<std::pair<std::string, std::string>> nodes_;
  std::vector<Value> specs_;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_CONCRETE_OBJECTS_H_
