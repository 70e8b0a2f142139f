// The server's memory budget (--memory-limit): how many bytes of host tensors the
// whole process may hold (RootMemoryAccount, core/memory_account.h), so that a
// request is refused with RESOURCE_EXHAUSTED instead of the kernel's OOM killer
// ending the process. The budget leaves room for what is not a tensor (the program,
// gRPC's buffers, compiled plans): by default 80% of the memory the process may use,
// the smaller of the machine's and its cgroup's limit.
#ifndef GRAPHD_SERVER_MEMORY_BUDGET_H_
#define GRAPHD_SERVER_MEMORY_BUDGET_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/status.h"

namespace graphd::server {

// The memory the process may use: the smaller of MemTotal (/proc/meminfo) and the
// cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes) when there is one;
// `*source` says which. 0 when neither can be read.
int64_t MemoryCapacity(std::string* source = nullptr);
// The same from given file contents ("" for a file that is missing).
int64_t MemoryCapacityFrom(absl::string_view meminfo, absl::string_view cgroup_v2_max,
                           absl::string_view cgroup_v1_limit, std::string* source = nullptr);

// The budget `spec` gives on a machine with `capacity` bytes: "off" or "0": none (0);
// "auto": 80% of capacity; "N%": N% of it (1-100); BYTES with an optional K, M, G or
// T suffix (powers of 1024, "Ki"/"KiB" etc. accepted too). InvalidArgument naming
// --memory-limit otherwise, or for a percentage when capacity is unknown.
StatusOr<int64_t> ParseMemoryLimit(absl::string_view spec, int64_t capacity);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_MEMORY_BUDGET_H_
