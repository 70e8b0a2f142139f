// Memory accounts: how many bytes of host tensor storage someone holds, against a
// limit. Every host buffer Buffer::Allocate makes is charged, before the memory is
// taken, to the calling thread's account (ScopedMemoryAccount; the root account
// when none is set) and through it to each parent, and credited back when the
// buffer is freed, on whichever thread drops it. The server makes the root its
// memory budget (--memory-limit) and one child per tenant (max_memory_bytes), so a
// tensor that would take a tenant or the server past its limit is refused with
// ResourceExhausted instead of being allocated.
//
// Only the root may wait: when it is full, a charge waits up to its wait time for
// other work to free memory before failing. A limit of 0 means unlimited; the
// counts are kept either way.
//
// Accounts must outlive every buffer charged to them; the server's are never
// destroyed. Thread-safe.
#ifndef GRAPHD_CORE_MEMORY_ACCOUNT_H_
#define GRAPHD_CORE_MEMORY_ACCOUNT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/synchronization/mutex.h"
#include "core/status.h"

namespace graphd {

class MemoryAccount {
 public:
  // `what` names the account and its limit in errors, e.g. "tenant 'a' (max_memory_bytes)".
  MemoryAccount(std::string what, int64_t limit, MemoryAccount* parent = nullptr);
  MemoryAccount(const MemoryAccount&) = delete;
  MemoryAccount& operator=(const MemoryAccount&) = delete;

  // Charges `bytes` here and to every parent, or to none: ResourceExhausted naming
  // the first account it would take past its limit, what that account holds and the
  // limit.
  Status Charge(int64_t bytes);
  // Gives back what Charge took.
  void Credit(int64_t bytes);

  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_limit(int64_t limit) { limit_.store(limit, std::memory_order_relaxed); }
  // How long a charge past the limit may wait for memory to be freed (root only).
  void set_wait(std::chrono::milliseconds wait) { wait_ms_.store(wait.count(), std::memory_order_relaxed); }
  MemoryAccount* parent() const { return parent_; }
  const std::string& what() const { return what_; }

 private:
  bool TryCharge(int64_t bytes);
  void Uncharge(int64_t bytes);
  Status Refusal(int64_t bytes, int64_t waited_ms) const;

  const std::string what_;
  MemoryAccount* const parent_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> limit_;
  std::atomic<int64_t> wait_ms_{0};
  std::atomic<int> waiters_{0};
  absl::Mutex mu_;  // only for waiting charges
  absl::CondVar freed_;
};

// The process's root account (limit 0 until the server sets one).
MemoryAccount& RootMemoryAccount();
// The calling thread's account: the innermost ScopedMemoryAccount's, else the root.
MemoryAccount& CurrentMemoryAccount();

// Charges the calling thread's allocations to `account` (null: the root) for its
// lifetime; restores the previous one.
class ScopedMemoryAccount {
 public:
  explicit ScopedMemoryAccount(MemoryAccount* account);
  ~ScopedMemoryAccount();
  ScopedMemoryAccount(const ScopedMemoryAccount&) = delete;
  ScopedMemoryAccount& operator=(const ScopedMemoryAccount&) = delete;

 private:
  MemoryAccount* previous_;
};

}  // namespace graphd

#endif  // GRAPHD_CORE_MEMORY_ACCOUNT_H_
