// Staging of AutoGraph's control flow on tensors (the tensor half of ag__.if_stmt,
// while_stmt, for_stmt, if_exp, and_, or_): branches and loop bodies are traced into
// GraphScopes and become If and While nodes. Internal to the tracer.
#ifndef GRAPHD_COMPILER_TRACER_STAGING_H_
#define GRAPHD_COMPILER_TRACER_STAGING_H_

#include <optional>
#include <string>
#include <vector>

#include "compiler/tracer/tracer.h"

namespace graphd::compiler::tracer {

// Helpers the staging files share.
bool IsUndefined(const Value& v);        // ag__.Undefined(...)
bool IsUndefinedReturn(const Value& v);  // ag__.UndefinedReturnValue()
// A leaf a staged branch or loop can carry as a tensor: a tensor, number, str, bytes.
bool LeafConvertible(const Value& v);
// The captures of several bodies of one node, without repeats, in first-seen order.
std::vector<std::shared_ptr<TensorObj>> UnionOfCaptures(const std::vector<GraphScope*>& scopes);
// Arguments of `scope` for `captures`, in that order (bringing missing ones in).
StatusOr<std::vector<const Node*>> CaptureArgs(GraphScope& scope,
                                               const std::vector<std::shared_ptr<TensorObj>>& captures);

// A traced body: its scope (already popped) and the values it produced.
struct TracedBody {
  std::unique_ptr<GraphScope> scope;
  std::vector<Value> outputs;
};

// Runs `fn` (returning the values to stage) inside a new child scope of the current
// one, with `arg_values` bound as new Args first when given (their types).
StatusOr<TracedBody> TraceBody(Interpreter& interp, Tracer& tracer, const std::string& name,
                               const std::vector<TensorType>& arg_types,
                               const std::function<StatusOr<std::vector<Value>>(const std::vector<Value>& args)>& fn);

// Stages `if cond:` with both branches' state (one value per name in `names`):
// returns the state after the If. TensorFlow's rules: a name undefined, None or
// without a return value in one branch, or of another structure or dtype in the
// other, is an error; tuples, lists and dicts are taken apart into their leaves;
// numbers become tensors, the same non-tensor object in both branches passes through.
StatusOr<std::vector<Value>> StageCond(Interpreter& interp, Tracer& tracer, const Value& cond,
                                       const std::vector<std::string>& names, TracedBody then_body,
                                       TracedBody else_body);

// Stages a while loop over `init` (the state before it, one value per name): its
// leaves are the loop variables. `invariants`, when not empty, has one entry per leaf
// of `init`: a shape it may take in the loop (from shape_invariants), more general
// than its shape before the loop. State undefined before the loop (or None, or the
// return value) is found by tracing the body once and starts as zeros of what one
// iteration makes it; the loop must then run at least once (a run-time error says
// so otherwise), as in TensorFlow.
StatusOr<std::vector<Value>> StageWhile(Interpreter& interp, Tracer& tracer, const std::vector<std::string>& names,
                                        const std::vector<Value>& init,
                                        const std::function<StatusOr<Value>()>& test,
                                        const std::function<Status()>& body,
                                        const std::function<StatusOr<std::vector<Value>>()>& get_state,
                                        const std::function<Status(const std::vector<Value>&)>& set_state,
                                        const std::vector<std::optional<PartialShape>>& invariants = {});

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_STAGING_H_
