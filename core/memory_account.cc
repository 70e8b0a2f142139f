#include "core/memory_account.h"

#include "absl/time/time.h"

namespace graphd {
namespace {
thread_local MemoryAccount* current_account = nullptr;
}  // namespace

MemoryAccount::MemoryAccount(std::string what, int64_t limit, MemoryAccount* parent)
    : what_(std::move(what)), parent_(parent), limit_(limit) {}

bool MemoryAccount::TryCharge(int64_t bytes) {
  const int64_t now = used_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  const int64_t limit = limit_.load(std::memory_order_relaxed);
  if (limit > 0 && now > limit) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    return false;
  }
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return true;
}

Status MemoryAccount::Refusal(int64_t bytes, int64_t waited_ms) const {
  return errors::ResourceExhausted(absl::StrCat(
      "out of memory budget: ", what_, " is ", limit(), " bytes; ", used(), " bytes are in use and ", bytes,
      " more were requested", waited_ms > 0 ? absl::StrCat(" (waited ", waited_ms, " ms for memory to be freed)") : ""));
}

Status MemoryAccount::Charge(int64_t bytes) {
  if (bytes <= 0) return absl::OkStatus();
  if (!TryCharge(bytes)) {
    const int64_t wait_ms = wait_ms_.load(std::memory_order_relaxed);
    const int64_t limit = limit_.load(std::memory_order_relaxed);
    if (wait_ms <= 0 || bytes > limit) return Refusal(bytes, 0);
    // Wait for others to free memory, up to wait_ms.
    const absl::Time deadline = absl::Now() + absl::Milliseconds(wait_ms);
    bool charged = false;
    {
      absl::MutexLock lock(&mu_);
      waiters_.fetch_add(1, std::memory_order_seq_cst);
      while (!(charged = TryCharge(bytes))) {
        if (freed_.WaitWithDeadline(&mu_, deadline)) {  // timed out: one last try
          charged = TryCharge(bytes);
          break;
        }
      }
      waiters_.fetch_sub(1, std::memory_order_seq_cst);
    }
    if (!charged) return Refusal(bytes, wait_ms);
  }
  if (parent_ != nullptr) {
    if (Status s = parent_->Charge(bytes); !s.ok()) {
      Uncharge(bytes);  // this account only: the parent took nothing
      return s;
    }
  }
  return absl::OkStatus();
}

void MemoryAccount::Uncharge(int64_t bytes) {
  used_.fetch_sub(bytes, std::memory_order_seq_cst);
  if (waiters_.load(std::memory_order_seq_cst) > 0) {  // see the waiting in Charge
    absl::MutexLock lock(&mu_);
    freed_.SignalAll();
  }
}

void MemoryAccount::Credit(int64_t bytes) {
  if (bytes <= 0) return;
  for (MemoryAccount* a = this; a != nullptr; a = a->parent_) a->Uncharge(bytes);
}

MemoryAccount& RootMemoryAccount() {
  static MemoryAccount* const root = new MemoryAccount("the server's memory limit (--memory-limit)", 0);
  return *root;
}

MemoryAccount& CurrentMemoryAccount() {
  return current_account != nullptr ? *current_account : RootMemoryAccount();
}

ScopedMemoryAccount::ScopedMemoryAccount(MemoryAccount* account) : previous_(current_account) {
  current_account = account;
}

ScopedMemoryAccount::~ScopedMemoryAccount() { current_account = previous_; }

}  // namespace graphd
