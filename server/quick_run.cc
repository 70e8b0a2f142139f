#include "server/quick_run.h"

namespace graphd::server {
namespace {
constexpr char kNotQuickPayload[] = "graphd.dev/not-quick";
}  // namespace

Status NotQuick() {
  Status s = absl::UnavailableError("not a quick call: run it on a worker");
  s.SetPayload(kNotQuickPayload, absl::Cord("1"));
  return s;
}

bool IsNotQuick(const Status& status) { return status.GetPayload(kNotQuickPayload).has_value(); }

}  // namespace graphd::server
