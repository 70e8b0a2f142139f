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

// Stages `if cond:` with both branches' state: returns the state after the If.
StatusOr<std::vector<Value>> StageCond(Interpreter& interp, Tracer& tracer, const Value& cond,
                                       const std::vector<std::string>& names, TracedBody then_body,
                                       TracedBody else_body);

// Stages a while loop over `init` (the state before it). `invariants`, when not
// empty, has one entry per loop variable: a shape it may take in the loop (from
// shape_invariants), more general than its shape before the loop.
StatusOr<std::vector<Value>> StageWhile(Interpreter& interp, Tracer& tracer, const std::vector<std::string>& names,
                                        const std::vector<Value>& init,
                                        const std::function<StatusOr<Value>()>& test,
                                        const std::function<Status()>& body,
                                        const std::function<StatusOr<std::vector<Value>>()>& get_state,
                                        const std::function<Status(const std::vector<Value>&)>& set_state,
                                        const std::vector<std::optional<PartialShape>>& invariants = {});

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_STAGING_H_
