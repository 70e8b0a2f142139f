#include "compiler/cache/compile.h"

#include <atomic>
#include <chrono>
#include <vector>

#include "absl/container/flat_hash_set.h"

#include "compiler/passes/spec_body.h"

namespace graphd::compiler {
namespace {

int64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// Each distinct function counted once, walked without recursion: a function that
// nested If/While nodes reach along many paths (a client's 300 nested Ifs whose two
// branches name the same next function) would otherwise be visited 2^300 times.
int64_t ConstantBytes(const Function& function) {
  int64_t bytes = 0;
  absl::flat_hash_set<const Function*> seen = {&function};
  std::vector<const Function*> pending = {&function};
  while (!pending.empty()) {
    const Function* fn = pending.back();
    pending.pop_back();
    if (fn->graph == nullptr) continue;
    for (int id = 0; id < fn->graph->num_nodes(); ++id) {
      const Node* n = fn->graph->node(id);
      if (n == nullptr) continue;
      for (const auto& [name, value] : n->attrs()) {
        if (const Tensor* t = std::get_if<Tensor>(&value)) bytes += static_cast<int64_t>(t->bytes());
        if (const FunctionRef* f = std::get_if<FunctionRef>(&value); f != nullptr && *f != nullptr) {
          if (seen.insert(f->get()).second) pending.push_back(f->get());
        }
      }
    }
  }
  return bytes;
}

uint64_t NextCompiledFunctionId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

StatusOr<std::unique_ptr<const Executable>> PlanOnly(const ExecutionSpec& spec, const CompileTarget& target) {
  if (!target.build_plan) return errors::Internal("the compile target has no plan builder");
  return target.build_plan(spec);
}

StatusOr<std::shared_ptr<CompiledFunction>> Compile(FunctionRef function, std::string signature,
                                                    const CompileTarget& target, bool optimized) {
  auto start = std::chrono::steady_clock::now();
  if (!optimized && target.passes != nullptr) {
    ASSIGN_OR_RETURN(function, passes::OptimizeFunction(*function, *target.passes));
  }
  auto compiled = std::make_shared<CompiledFunction>();
  compiled->id = NextCompiledFunctionId();
  compiled->signature = std::move(signature);
  ASSIGN_OR_RETURN(compiled->plan, PlanOnly(SpecForFunction(*function), target));
  compiled->bytes = ConstantBytes(*function);
  compiled->function = std::move(function);
  compiled->compile_us = MicrosSince(start);
  return compiled;
}

StatusOr<std::shared_ptr<CompiledFunction>> CompileSpec(const ExecutionSpec& spec, std::string signature,
                                                        const CompileTarget& target) {
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(passes::SpecBody copy, passes::BodyFromSpec("run", spec));
  if (target.passes != nullptr) RETURN_IF_ERROR(target.passes->Run(copy.body).status());
  auto compiled = std::make_shared<CompiledFunction>();
  compiled->id = NextCompiledFunctionId();
  compiled->signature = std::move(signature);
  ASSIGN_OR_RETURN(compiled->function, std::move(copy.body).ToFunction());
  ASSIGN_OR_RETURN(compiled->plan, PlanOnly(passes::SpecWithout(*compiled->function, copy.not_run), target));
  compiled->bytes = ConstantBytes(*compiled->function);
  compiled->compile_us = MicrosSince(start);
  return compiled;
}

}  // namespace graphd::compiler
