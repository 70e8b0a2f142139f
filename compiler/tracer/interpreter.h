// The interpreter of graphd's Python subset: runs module-level code and calls user
// functions (their AutoGraph-converted bodies) over tracer values. Tensor semantics
// plug in through TensorHooks; without hooks an operation on a tensor is a TypeError.
//
// Bounded (DESIGN.md, issue 3 "Safety"): every statement and loop iteration counts
// against a step budget and polls the cancellation token; call depth is limited.
// Errors are Python exceptions as Status (errors.h) located at the user's line, with
// one location per frame as they propagate out of calls.
// Not thread-safe: one interpreter per module load or trace.
#ifndef GRAPHD_COMPILER_TRACER_INTERPRETER_H_
#define GRAPHD_COMPILER_TRACER_INTERPRETER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "compiler/tracer/cycles.h"
#include "compiler/tracer/objects.h"
#include "core/cancellation.h"

namespace graphd::compiler::tracer {

class ExceptionObj;

// What the interpreter asks of the tensor world (implemented by the tracer).
class TensorHooks {
 public:
  virtual ~TensorHooks() = default;
  // `a op b` where a or b is a tensor (op: an ast::BinOpKind or, for comparisons,
  // 100 + ast::CmpOpKind).
  virtual StatusOr<Value> Binary(Interpreter& interp, int op, const Value& a, const Value& b) = 0;
  virtual StatusOr<Value> Unary(Interpreter& interp, ast::UnaryOpKind op, const Value& x) = 0;
  // bool(tensor) in Python control flow that AutoGraph did not convert.
  virtual StatusOr<bool> Truth(Interpreter& interp, const Value& tensor) = 0;
  virtual StatusOr<Value> GetAttr(Interpreter& interp, const Value& tensor, const std::string& name) = 0;
  virtual StatusOr<Value> Subscript(Interpreter& interp, const Value& tensor, const Value& index) = 0;
  virtual StatusOr<std::vector<Value>> Iterate(Interpreter& interp, const Value& tensor) = 0;
  // A call of a @tf.function (`fn`; of its concrete function for `concrete`, a list
  // of TensorSpecs, when not empty): the result when the hooks handle it (eager code
  // calls the cached concrete function); nullopt runs its body as Python (inlined
  // into the trace in progress).
  virtual std::optional<StatusOr<Value>> CallFunction(Interpreter& interp, const Value& fn, CallArgs& args,
                                                      const std::vector<Value>& concrete = {}) {
    return std::nullopt;
  }
  // fn.get_concrete_function(*args): a ConcreteFunctionObj, when the hooks can trace
  // one (eager code); nullopt otherwise.
  virtual std::optional<StatusOr<Value>> GetConcreteFunction(Interpreter& interp, const Value& fn, CallArgs& args) {
    return std::nullopt;
  }
};

struct InterpreterLimits {
  int64_t max_steps = 50'000'000;  // statements + loop iterations per run
  int max_depth = 200;             // nested calls
};

class Interpreter {
 public:
  // `globals` is the module namespace; `builtins` resolves names found nowhere else.
  Interpreter(std::shared_ptr<Namespace> globals, std::shared_ptr<Namespace> builtins,
              InterpreterLimits limits = {}, const CancellationToken* token = nullptr);

  void set_tensor_hooks(TensorHooks* hooks) { hooks_ = hooks; }
  // The token polled by Step() (per call: the call's deadline); may be null.
  void set_cancellation(const CancellationToken* token) { token_ = token; }
  const CancellationToken* cancellation() const { return token_; }
  // Resets the step budget (each call starts a fresh one).
  void ResetSteps() { steps_ = 0; }
  TensorHooks* tensor_hooks() const { return hooks_; }

  // Numbers `fn` (FunctionObj::serial: function objects are numbered in the order this
  // interpreter made them) and remembers it, for ~Interpreter.
  void Adopt(const std::shared_ptr<FunctionObj>& fn);
  // Functions and their module form reference cycles (a module's globals hold its
  // functions, each function holds the globals and its closure): the destructor clears
  // every function it made, and the globals, then collects the cycles among the
  // containers the module's code made (cycles.h), so the module's memory goes.
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;
  // The variable store name of a tf.Variable created by this module's code: with a
  // prefix (the server sets one per loaded module, from its content), "<prefix><base>_<n>"
  // with n counted per interpreter, so sessions running the same code name their
  // variables alike; without one, "<base>_<n>" counted per process.
  std::string NewVariableStoreName(const std::string& base);
  void set_variable_prefix(std::string prefix) { variable_prefix_ = std::move(prefix); }

  // Runs a module's (converted) top-level statements in `globals`.
  Status ExecModule(const ast::Module& module);
  // The same in another namespace (the prelude's).
  Status ExecModule(const ast::Module& module, const std::shared_ptr<Namespace>& globals);

  // Calls any callable value.
  StatusOr<Value> Call(const Value& callee, CallArgs args);
  StatusOr<Value> CallNoArgs(const Value& callee, const SourceRange& site);

  // Python semantics helpers for builtins and the AutoGraph runtime.
  StatusOr<bool> Truthy(const Value& v);
  StatusOr<Value> GetAttr(const Value& v, const std::string& name);
  Status SetAttr(const Value& v, const std::string& name, Value value);
  StatusOr<std::vector<Value>> Iterate(const Value& iterable);
  StatusOr<Value> BinaryOp(ast::BinOpKind op, const Value& a, const Value& b);
  StatusOr<Value> CompareOp(ast::CmpOpKind op, const Value& a, const Value& b);
  StatusOr<Value> UnaryOp(ast::UnaryOpKind op, const Value& x);
  StatusOr<Value> Subscript(const Value& v, const Value& index);

  // The user expression being evaluated (the tracer gives nodes its range).
  const SourceRange& current_range() const { return current_range_; }
  void set_current_range(const SourceRange& r) { current_range_ = r; }

  // Text printed by print() (trace-time stdout).
  std::string& out() { return out_; }
  // Counts one step; ResourceExhausted / cancellation errors when over budget.
  Status Step();

  const std::shared_ptr<Namespace>& globals() const { return globals_; }
  // What `import NAME` may bind ("tensorflow", "tensorflow.compat.v2", "numpy");
  // anything else is an ImportError.
  void RegisterModule(const std::string& name, Value module) { modules_[name] = std::move(module); }
  const Value* FindModule(const std::string& name) const;
  const Value* FindBuiltin(const std::string& name) const { return builtins_->Find(name); }
  // Static scope information for a function or lambda body (cached per AST node).
  const ScopeInfo& InfoFor(const void* node, const ast::Arguments& params, const ast::Body* body,
                           const ast::Expr* lambda_body);

  // The methods running, innermost last (their class and self), for super().
  struct MethodFrame {
    std::shared_ptr<ClassObj> cls;
    Value self;
  };
  std::vector<MethodFrame>& method_frames() { return method_frames_; }

  // Runs a user function's body in a fresh activation (FunctionObj::Call binds
  // arguments into `scope` first).
  StatusOr<Value> RunBody(FunctionObj& fn, std::shared_ptr<Scope> scope);

  // `raise obj`: the Status it propagates, remembered so that `except` gets the object
  // itself back (ExceptionFor).
  Status Raise(std::shared_ptr<ExceptionObj> exc);
  // The exception object a caught Status stands for: the one last raised when the
  // Status is its, else a new instance of the Status's class with its message.
  std::shared_ptr<ExceptionObj> ExceptionFor(const Status& status);

 private:
  friend class Evaluator;
  std::shared_ptr<Namespace> globals_;
  std::shared_ptr<Namespace> builtins_;
  InterpreterLimits limits_;
  const CancellationToken* token_;
  TensorHooks* hooks_ = nullptr;
  int64_t steps_ = 0;
  int depth_ = 0;
  std::string out_;
  SourceRange current_range_;
  ContainerRegistry containers_;  // current while this interpreter runs code
  absl::flat_hash_map<const void*, std::unique_ptr<ScopeInfo>> infos_;
  std::shared_ptr<ExceptionObj> last_raised_;
  std::string last_raised_text_;  // its Status's class and message
  std::map<std::string, Value> modules_;
  int64_t function_serial_ = 0;
  std::vector<std::weak_ptr<FunctionObj>> functions_;  // made here (expired ones pruned)
  std::string variable_prefix_;
  int64_t variables_named_ = 0;
  std::vector<MethodFrame> method_frames_;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_INTERPRETER_H_
