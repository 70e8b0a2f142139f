#include "server/quick_run.h"

namespace graphd::server {
namespace {
constexpr char kNotQuickPayload[] = "graphd.dev/not-quick";
thread_local int64_t quick_limit_us = 0;
}  // namespace

QuickScope::QuickScope(int64_t limit_us) : saved_(quick_limit_us) { quick_limit_us = limit_us; }
QuickScope::~QuickScope() { quick_limit_us = saved_; }

Status CheckQuick(const compiler::CompiledFunction* compiled) {
  if (quick_limit_us <= 0) return absl::OkStatus();
  if (compiled == nullptr || !compiled->cost.Within(quick_limit_us)) return NotQuick();
  return absl::OkStatus();
}

Status NotQuick() {
  Status s = absl::UnavailableError("not a quick call: run it on a worker");
  s.SetPayload(kNotQuickPayload, absl::Cord("1"));
  return s;
}

bool IsNotQuick(const Status& status) { return status.GetPayload(kNotQuickPayload).has_value(); }

}  // namespace graphd::server
