// A loaded source module: parsed, converted by AutoGraph, its top-level code run by
// an interpreter whose globals then hold the module's functions. Functions are traced
// on demand into concrete functions. Not thread-safe: callers serialise use.
#ifndef GRAPHD_COMPILER_TRACER_MODULE_H_
#define GRAPHD_COMPILER_TRACER_MODULE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/tracer/eager.h"
#include "compiler/tracer/trace.h"

namespace graphd::compiler::tracer {

// What the function cache needs to know of a module function: a view of the
// function object (valid while it lives), made without allocating.
struct FunctionInfo {
  const std::string& name;
  // The input_signature (TensorSpecObj values), or null.
  const std::vector<Value>* input_signature = nullptr;
  bool reduce_retracing = false;
  // The function object's identity: the same for every name it is bound to, stable
  // while the module lives.
  const void* key = nullptr;
  // Its FunctionObj::serial: the same identity across sessions that loaded the same
  // source and traced the same calls in the same order.
  int64_t serial = 0;
  // Defined in a class body: called on an instance, its input_signature leaves out
  // the instance (self), as TensorFlow's does for methods.
  bool method = false;
};

class ModuleRuntime {
 public:
  // Parses and converts `source` (SyntaxError and the like, located). The top-level
  // code has not run yet: call Run.
  static StatusOr<std::unique_ptr<ModuleRuntime>> Parse(const std::string& source, const std::string& filename);
  // Runs the top-level code once. `token` bounds it. `eager` runs module-level
  // TensorFlow ops (and tf.Variable initial values) and @tf.function calls; it is used
  // only during Run (null: tensors are an error at module level).
  Status Run(const CancellationToken* token, EagerRunner* eager);
  // Parse, then Run.
  static StatusOr<std::unique_ptr<ModuleRuntime>> Load(const std::string& source, const std::string& filename,
                                                       const CancellationToken* token, EagerRunner* eager);

  // Names of the functions the module defines at top level (def or @tf.function).
  std::vector<std::string> FunctionNames() const;
  // What the top-level code printed.
  const std::string& load_stdout() const { return load_stdout_; }

  // Passes run on every traced body (null, the default: none). Must outlive the
  // module's traces.
  void set_passes(const passes::Pipeline* passes) { passes_ = passes; }
  // See Interpreter::NewVariableStoreName. Set before Run.
  void set_variable_prefix(std::string prefix);

  // The function bound to `name` at top level; NotFound when there is none.
  StatusOr<Value> FunctionValue(const std::string& name) const;
  // Names bound at top level to instances of classes (objects whose methods, and whose
  // __call__, clients may call: "layer", "layer.method").
  std::vector<std::string> ObjectNames() const;
  // What `path` names: a top-level function ("f"), a method of a top-level object
  // ("model.step", "model.encoder.forward") or a callable object ("model": its
  // __call__). The function, and the instance a method is bound to (its first
  // argument); NotFound naming the path otherwise.
  struct Callable {
    Value function;
    std::optional<Value> self;
  };
  StatusOr<Callable> ResolveCallable(const std::string& path);
  // `fn` must be a function value (FunctionValue, or one the module's code passed).
  static FunctionInfo Info(const Value& fn);
  // `fn`'s positional parameter names.
  static std::vector<std::string> ParamNames(const Value& fn);

  // Traces `fn` for `args`. `token` bounds the trace (the interpreter's previous token
  // is restored after).
  StatusOr<ConcreteFunction> Trace(const Value& fn, const TraceArgs& args, const CancellationToken* token,
                                   bool allow_variable_creation = true);
  // The same by top-level name; NotFound when there is no such function.
  StatusOr<ConcreteFunction> Trace(const std::string& name, const TraceArgs& args, const CancellationToken* token,
                                   bool allow_variable_creation = true);
  // AutoGraph's converted code of function `name`.
  StatusOr<std::string> ToCode(const std::string& name) const;

 private:
  std::shared_ptr<ast::Module> module_;
  std::shared_ptr<const ast::Module> prelude_;
  std::shared_ptr<Namespace> globals_;
  std::unique_ptr<Interpreter> interp_;
  std::string load_stdout_;
  const passes::Pipeline* passes_ = nullptr;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_MODULE_H_
