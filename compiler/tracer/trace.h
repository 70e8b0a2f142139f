// Tracing one call of a user function into a concrete function: tensor arguments
// become the function's arguments (named after the parameters, as TensorFlow names
// them), Python arguments stay Python values, and the returned structure is split
// into a template (Python values kept, tensors replaced by numbered slots) and the
// tensors, which become the function's results.
#ifndef GRAPHD_COMPILER_TRACER_TRACE_H_
#define GRAPHD_COMPILER_TRACER_TRACE_H_

#include <string>
#include <vector>

#include "compiler/passes/pipeline.h"
#include "compiler/tracer/interpreter.h"
#include "core/graph/function.h"

namespace graphd::compiler::tracer {

// Stands for result number `index` in an output template.
class OutputSlot : public Object {
 public:
  explicit OutputSlot(int index) : index(index) {}
  std::string TypeName() const override { return "OutputSlot"; }
  int index;
};

struct ConcreteFunction {
  FunctionRef function;       // arguments: the tensor arguments in order
  Value output_template;      // the returned structure, tensors as OutputSlots
  std::string trace_stdout;   // what print() wrote while tracing
  // The top-level nodes as traced, before the passes (name, op): what TensorFlow's
  // FuncGraph shows (cf.graph.as_graph_def().node in source).
  std::vector<std::pair<std::string, std::string>> traced_nodes;
};

// A positional or keyword argument of a trace: a TensorSpecObj (a tensor argument)
// or any Python value.
struct TraceArgs {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
};

// Traces `fn` (a FunctionObj) called with `args`. The interpreter's tensor hooks are
// set for the duration of the trace.
// `allow_variable_creation`: false on later traces of a function (tf.Variable then
// raises TensorFlow's ValueError).
// `passes` (may be null) run on the function's body and on every branch and loop
// body traced inside it, as each is finished; it must outlive the call.
StatusOr<ConcreteFunction> TraceFunction(Interpreter& interp, const Value& fn, const TraceArgs& args,
                                         bool allow_variable_creation = true,
                                         const passes::Pipeline* passes = nullptr);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_TRACE_H_
