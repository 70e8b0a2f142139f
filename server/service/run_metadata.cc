#include "server/service/run_metadata.h"

namespace graphd::server {

void FillRunMetadata(const PooledCall& call, int64_t compile_us, int64_t execute_us,
                     const executor::RunTrace* trace, v1::RunMetadata* out) {
  out->set_queue_us(call.queue_us());
  out->set_compile_us(compile_us);
  out->set_execute_us(execute_us);
  out->set_total_us(call.elapsed_us());
  out->set_ran_inline(call.ran_inline());
  if (trace == nullptr) return;
  out->mutable_step_stats()->Reserve(static_cast<int>(trace->size()));
  for (const executor::StepTiming& t : *trace) {
    v1::NodeTiming* s = out->add_step_stats();
    s->set_node(t.node);
    s->set_op(t.op);
    s->set_device(t.device);
    s->set_start_ns(t.start_ns);
    s->set_duration_ns(t.duration_ns);
  }
}

}  // namespace graphd::server
