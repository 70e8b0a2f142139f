// The tracer: the interpreter's tensor semantics. Operations on tensors add nodes to
// the current GraphScope; AutoGraph's if/while/for on tensor conditions are staged
// into If and While nodes (staging.cc); the `tf` namespace (tf_api.cc) builds ops.
// One Tracer per trace; not thread-safe.
#ifndef GRAPHD_COMPILER_TRACER_TRACER_H_
#define GRAPHD_COMPILER_TRACER_TRACER_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/tracer/eager.h"
#include "compiler/tracer/graph_scope.h"
#include "compiler/tracer/interpreter.h"

namespace graphd::compiler::tracer {

class Tracer;

// A GradientTape recording module-level (eager) code: every op run while it records,
// and every @tf.function called, is also added to its graph.
class EagerTape {
 public:
  virtual ~EagerTape() = default;
  // An op that ran eagerly: its inputs (Consts of the eager scope) and outputs.
  virtual Status RecordOp(const std::string& op, const std::vector<OutputRef>& inputs, const AttrMap& attrs,
                          bool stateful, const std::vector<Tensor>& outputs) = 0;
  // A @tf.function that ran eagerly and returned `result`.
  virtual Status RecordCall(Interpreter& interp, Tracer& tracer, const Value& fn, CallArgs& args,
                            const Value& result) = 0;
};

class Tracer : public TensorHooks {
 public:
  // `root` is the scope of the function being traced; it and `interp` (whose current
  // source range nodes get) must outlive the tracer. `interp` may be null.
  explicit Tracer(GraphScope* root, const Interpreter* interp = nullptr) : interp_(interp) {
    scopes_.push_back(root);
  }
  // True inside a staged branch or loop body (not at the function's top level).
  bool in_staged_body() const { return scopes_.size() > 1; }

  // Eager mode (module-level code): every op runs at once through `runner` and
  // yields concrete tensors.
  void set_eager(EagerRunner* runner) { eager_ = runner; }
  bool eager() const { return eager_ != nullptr; }
  EagerRunner* eager_runner() const { return eager_; }
  // Eager tapes recording now (AddEagerTape while recording, RemoveEagerTape after).
  void AddEagerTape(EagerTape* tape) { eager_tapes_.push_back(tape); }
  void RemoveEagerTape(EagerTape* tape) { std::erase(eager_tapes_, tape); }
  const std::vector<EagerTape*>& eager_tapes() const { return eager_tapes_; }
  // While set, @tf.function calls run as Python (a tape re-tracing a call into its graph).
  void set_inline_calls(bool inline_calls) { inline_calls_ = inline_calls; }
  // Whether tf.Variable may be created (first trace of a function, or eager code).
  void set_variable_creation_allowed(bool allowed) { variables_allowed_ = allowed; }
  bool variable_creation_allowed() const { return !inline_calls_ && (variables_allowed_ || eager()); }

  GraphScope& scope() { return *scopes_.back(); }
  // tf.name_scope: nodes made inside get names under "outer/inner/".
  void PushNameScope(const std::string& name) { name_scopes_.push_back(NameScopePrefix() + name + "/"); }
  void PopNameScope() {
    if (!name_scopes_.empty()) name_scopes_.pop_back();
  }
  std::string NameScopePrefix() const { return name_scopes_.empty() ? "" : name_scopes_.back(); }
  void Push(GraphScope* s) { scopes_.push_back(s); }
  void Pop() { scopes_.pop_back(); }

  // `v` as a tensor of the current scope: tensors are brought in, Python values
  // become constants (of dtype `hint` when given, else inferred as TensorFlow does:
  // float -> float32, int -> int32, bool, str -> string).
  StatusOr<OutputRef> ToTensor(const Value& v, DType hint = DType::kInvalid);
  // A tracer value for a node output of the current scope.
  Value Wrap(OutputRef ref);
  // Adds `op` to the current scope and returns its outputs as values (one output:
  // the value itself; several: a tuple).
  StatusOr<Value> Op(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs = {},
                     const std::string& base = "", bool stateful = false);

  // TensorHooks
  // x @ y (tf.matmul): MatMul for matrices, BatchMatMulV2 (batch dims broadcast) when
  // either operand is known to have rank > 2.
  StatusOr<Value> MatMul(OutputRef x, OutputRef y, bool transpose_a, bool transpose_b);
  StatusOr<Value> Binary(Interpreter& interp, int op, const Value& a, const Value& b) override;
  StatusOr<Value> Unary(Interpreter& interp, ast::UnaryOpKind op, const Value& x) override;
  StatusOr<bool> Truth(Interpreter& interp, const Value& tensor) override;
  StatusOr<Value> GetAttr(Interpreter& interp, const Value& tensor, const std::string& name) override;
  StatusOr<Value> Subscript(Interpreter& interp, const Value& tensor, const Value& index) override;
  StatusOr<std::vector<Value>> Iterate(Interpreter& interp, const Value& tensor) override;
  // Eager mode hands @tf.function calls to the runner; a trace inlines them.
  std::optional<StatusOr<Value>> CallFunction(Interpreter& interp, const Value& fn, CallArgs& args,
                                              const std::vector<Value>& concrete) override;
  std::optional<StatusOr<Value>> GetConcreteFunction(Interpreter& interp, const Value& fn, CallArgs& args) override {
    if (eager_ == nullptr) return std::nullopt;
    return eager_->GetConcreteFunction(interp, fn, args);
  }

 private:
  // `stateful`: made as stateful (as Op's), whatever the op's definition says.
  StatusOr<Value> RunEager(const std::string& op, const std::vector<OutputRef>& inputs, AttrMap attrs, bool stateful);

  std::vector<GraphScope*> scopes_;
  std::vector<std::string> name_scopes_;  // full prefixes, innermost last
  const Interpreter* interp_;
  EagerRunner* eager_ = nullptr;
  bool variables_allowed_ = true;
  std::vector<EagerTape*> eager_tapes_;
  bool inline_calls_ = false;
};

// The interpreter's tracer, or a TypeError saying tensors need a tf.function.
StatusOr<Tracer*> TracerOf(Interpreter& interp);

// A Python value (scalar or nested lists/tuples) as a constant tensor.
StatusOr<Tensor> PythonToTensor(const Value& v, DType hint);

// The builtins of traced modules: MakeBuiltins() with a print that prints tensors at
// run time when called in a staged branch or loop body.
std::shared_ptr<Namespace> MakeTracingBuiltins();

// The `tf` namespace (tensorflow, tensorflow.compat.v2) and its submodules.
std::shared_ptr<Namespace> MakeTfModule();

// The `numpy` namespace traced code may import: dtypes (np.float32, ...) usable as
// TensorFlow dtypes, pi and e. Array math runs through tf.
std::shared_ptr<Namespace> MakeNumpyModule();

// AutoGraph's runtime with tensor-aware if/while/for, if_exp, and_/or_/not_,
// assert and list_append (falling back to Python semantics for Python values).
std::shared_ptr<Namespace> MakeStagingRuntime();

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_TRACER_H_
