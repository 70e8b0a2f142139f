// Runs statements and evaluates expressions in one environment: a function
// activation (Scope), the module (globals), or a class body. Used by Interpreter;
// statements in exec.cc, expressions in eval.cc.
#ifndef GRAPHD_COMPILER_TRACER_EVALUATOR_H_
#define GRAPHD_COMPILER_TRACER_EVALUATOR_H_

#include <memory>
#include <string>

#include "compiler/tracer/interpreter.h"

namespace graphd::compiler::tracer {

class ExceptionObj;

class Evaluator {
 public:
  enum class Flow { kNormal, kReturn, kBreak, kContinue };

  // `scope` null: module level. `class_ns` set: a class body (stores go there).
  Evaluator(Interpreter& interp, std::shared_ptr<Scope> scope, std::shared_ptr<Namespace> globals,
            std::shared_ptr<Namespace> class_ns = nullptr)
      : interp_(interp), scope_(std::move(scope)), globals_(std::move(globals)), class_ns_(std::move(class_ns)) {}

  StatusOr<Flow> ExecBody(const ast::Body& body);
  StatusOr<Value> Eval(const ast::Expr& e);
  // The value of the last `return`.
  const Value& return_value() const { return return_value_; }

 private:
  StatusOr<Flow> Exec(const ast::StmtPtr& s);
  StatusOr<Flow> ExecLoop(const ast::Stmt& s);
  // `with` from its item `item_index` on: enters it, runs the rest, exits it.
  StatusOr<Flow> ExecWith(const ast::With& w, size_t item_index);
  StatusOr<Flow> ExecTry(const ast::Try& t);
  Status ExecRaise(const ast::Raise& r);
  // Whether handler `h` catches `exc` (evaluating its class or tuple of classes).
  StatusOr<bool> HandlerMatches(const ast::ExceptHandler& h, const ExceptionObj& exc);
  Status ExecFunctionDef(const ast::FunctionDef& def, const std::shared_ptr<const ast::Stmt>& holder);
  Status ExecClassDef(const ast::ClassDef& def);
  Status ExecImport(const ast::Stmt& s);

  StatusOr<Value> EvalInner(const ast::Expr& e);
  StatusOr<Value> EvalCall(const ast::Call& call);
  StatusOr<Value> EvalComprehension(const ast::Expr& e);
  StatusOr<Value> EvalJoinedStr(const ast::JoinedStr& s);
  StatusOr<Value> MakeLambda(const ast::Expr& e);
  StatusOr<Value> EvalSlice(const ast::Expr& e);
  StatusOr<std::vector<Value>> EvalDefaults(const std::vector<ast::ExprPtr>& exprs);

  // The value bound to `name`; UnboundLocalError for AutoGraph's Undefined markers.
  StatusOr<Value> Load(const std::string& name);
  StatusOr<Value> LoadBinding(const std::string& name);
  Status Store(const std::string& name, Value v);
  Status Delete(const std::string& name);
  Status Assign(const ast::Expr& target, const Value& v);
  // The cell a name lives in for this environment, or null for globals/builtins.
  std::shared_ptr<Cell> CellFor(const std::string& name, bool create);

  Interpreter& interp_;
  std::shared_ptr<Scope> scope_;
  std::shared_ptr<Namespace> globals_;
  std::shared_ptr<Namespace> class_ns_;
  Value return_value_;
  std::vector<Status> handling_;  // the exceptions whose handlers are running (bare raise)
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_EVALUATOR_H_
