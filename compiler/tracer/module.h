// A loaded source module: parsed, converted by AutoGraph, its top-level code run by
// an interpreter whose globals then hold the module's functions. Functions are traced
// on demand into concrete functions. Not thread-safe: callers serialise use.
#ifndef GRAPHD_COMPILER_TRACER_MODULE_H_
#define GRAPHD_COMPILER_TRACER_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/tracer/eager.h"
#include "compiler/tracer/trace.h"

namespace graphd::compiler::tracer {

class ModuleRuntime {
 public:
  // Parses, converts and runs `source`. Errors are located Python exceptions
  // (SyntaxError, NameError, ...). `token` bounds the top-level code.
  // `eager` runs module-level TensorFlow ops (and tf.Variable initial values); it is
  // used only during Load.
  static StatusOr<std::unique_ptr<ModuleRuntime>> Load(const std::string& source, const std::string& filename,
                                                       const CancellationToken* token, EagerRunner* eager);

  // Names of the functions the module defines at top level (def or @tf.function).
  std::vector<std::string> FunctionNames() const;
  // What the top-level code printed.
  const std::string& load_stdout() const { return load_stdout_; }

  // Passes run on every traced body (null, the default: none). Must outlive the
  // module's traces.
  void set_passes(const passes::Pipeline* passes) { passes_ = passes; }

  // Traces function `name` for `args`; NotFound when there is no such function.
  StatusOr<ConcreteFunction> Trace(const std::string& name, const TraceArgs& args, const CancellationToken* token,
                                   bool allow_variable_creation = true);
  // The function's positional parameter names.
  StatusOr<std::vector<std::string>> ParamNames(const std::string& name) const;
  // The function's input_signature (TensorSpecObj values), if it has one.
  StatusOr<std::optional<std::vector<Value>>> InputSignature(const std::string& name) const;
  // AutoGraph's converted code of function `name`.
  StatusOr<std::string> ToCode(const std::string& name) const;

 private:
  StatusOr<Value> Function(const std::string& name) const;

  std::shared_ptr<ast::Module> module_;
  std::shared_ptr<Namespace> globals_;
  std::unique_ptr<Interpreter> interp_;
  std::string load_stdout_;
  const passes::Pipeline* passes_ = nullptr;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_MODULE_H_
