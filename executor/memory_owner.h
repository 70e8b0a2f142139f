// Who the device memory allocated on the calling thread is charged to: the session
// whose request the thread is serving (the server sets it around each session RPC),
// or "" when none. Devices that account memory per owner (the GPU's caching allocator)
// read it; the CPU ignores it. Thread-local; a scope restores the previous owner.
#ifndef GRAPHD_EXECUTOR_MEMORY_OWNER_H_
#define GRAPHD_EXECUTOR_MEMORY_OWNER_H_

#include "absl/strings/string_view.h"

namespace graphd::executor {

namespace internal {
inline thread_local absl::string_view current_memory_owner;
}  // namespace internal

// The calling thread's owner; valid while the scope that set it lives.
inline absl::string_view CurrentMemoryOwner() { return internal::current_memory_owner; }

// Sets the owner for its lifetime. `owner` must outlive the scope.
class ScopedMemoryOwner {
 public:
  explicit ScopedMemoryOwner(absl::string_view owner) : previous_(internal::current_memory_owner) {
    internal::current_memory_owner = owner;
  }
  ~ScopedMemoryOwner() { internal::current_memory_owner = previous_; }
  ScopedMemoryOwner(const ScopedMemoryOwner&) = delete;
  ScopedMemoryOwner& operator=(const ScopedMemoryOwner&) = delete;

 private:
  absl::string_view previous_;
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_MEMORY_OWNER_H_
