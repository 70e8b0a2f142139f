// RunMetadata for the run RPCs (Run, RunCallable, Call, CallGraph): the call's own
// timings and, for a traced run (RunOptions.trace), its steps.
#ifndef GRAPHD_SERVER_SERVICE_RUN_METADATA_H_
#define GRAPHD_SERVER_SERVICE_RUN_METADATA_H_

#include <cstdint>

#include "executor/runtime/executor.h"
#include "graphd/v1/session.pb.h"
#include "server/service/pooled_call.h"

namespace graphd::server {

// Fills `out` from `call` (queue, total, inline) and the run's `compile_us` and
// `execute_us`; `trace` (null when the run was not traced) becomes `step_stats`.
void FillRunMetadata(const PooledCall& call, int64_t compile_us, int64_t execute_us,
                     const executor::RunTrace* trace, v1::RunMetadata* out);

// The trace to hand the run: `storage` when `options` asks for one, else null.
inline executor::RunTrace* TraceFor(const v1::RunOptions& options, executor::RunTrace& storage) {
  return options.trace() ? &storage : nullptr;
}

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_RUN_METADATA_H_
