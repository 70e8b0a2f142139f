// What a session's front ends (TF1 runs, source modules, loaded graphs) compile
// with: the session's device, the compile target for it (its passes and the
// executor's planner; compiler/cache/compile.h) and the server's one function cache.
//
// CPU sessions share concrete functions: a key's content is what is compiled plus the
// target, nothing of the session. A session whose device accounts memory per session
// (a GPU session: its memory must go back when it closes) has an `owner`: its entries
// are its own (the owner is part of their content) and are erased when it closes.
#ifndef GRAPHD_SERVER_COMPILE_CONTEXT_H_
#define GRAPHD_SERVER_COMPILE_CONTEXT_H_

#include <memory>
#include <string>

#include "compiler/cache/compile.h"
#include "compiler/cache/function_cache.h"
#include "core/fingerprint.h"
#include "executor/device.h"
#include "executor/runtime/plan.h"

namespace graphd::server {

// The executor's plan as the compiler's Executable.
class PlanExecutable : public compiler::Executable {
 public:
  explicit PlanExecutable(std::unique_ptr<const executor::Plan> plan) : plan_(std::move(plan)) {}
  const executor::Plan& plan() const { return *plan_; }

 private:
  std::unique_ptr<const executor::Plan> plan_;
};

// The plan of an Executable made by a target from MakeCompileTarget.
inline const executor::Plan& PlanOf(const compiler::Executable& e) {
  return static_cast<const PlanExecutable&>(e).plan();
}

// A target planning on `device` (which must outlive it) after `passes` (may be null).
compiler::CompileTarget MakeCompileTarget(std::string name, const executor::Device& device,
                                          const compiler::passes::Pipeline* passes);

struct CompileContext {
  const executor::Device& device;
  const compiler::CompileTarget& target;
  compiler::FunctionCache& cache;
  uint64_t owner = 0;  // nonzero: the session's entries are its own (see above)

  // Finishes a content fingerprint: `what` plus the target (and the owner).
  Fingerprint Content(Fingerprinter what) const {
    return what.Add(target.device).AddInt(static_cast<int64_t>(owner)).Finish();
  }
  // `token`: the caller's, bounding a wait for another caller's compile.
  StatusOr<compiler::FunctionCache::Ref> GetOrCompile(const Fingerprint& content, absl::string_view signature,
                                                      compiler::FunctionCache::Producer produce, bool* compiled,
                                                      const CancellationToken& token) const {
    return cache.GetOrCompile(content, signature, produce, compiled, owner, &token);
  }
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_COMPILE_CONTEXT_H_
