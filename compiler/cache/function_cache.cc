#include "compiler/cache/function_cache.h"

#include <chrono>

namespace graphd::compiler {
namespace {

constexpr char kCallerSpecificPayload[] = "graphd.dev/compile-caller-specific";

// Errors that belong to the caller that compiled, not to the key: a waiter compiles
// again instead of taking them.
bool IsCallerSpecific(const Status& s) {
  return absl::IsCancelled(s) || absl::IsDeadlineExceeded(s) || s.GetPayload(kCallerSpecificPayload).has_value();
}

}  // namespace

Status CallerSpecific(Status status) {
  if (!status.ok()) status.SetPayload(kCallerSpecificPayload, absl::Cord("1"));
  return status;
}

void FunctionCache::AddOwner(uint64_t owner) {
  absl::MutexLock lock(&mu_);
  if (owner != 0) owners_.insert(owner);
}

FunctionCache::Ref FunctionCache::Lookup(const Fingerprint& content, absl::string_view signature) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(KeyView{content, signature});
  if (it == index_.end()) return nullptr;
  ++stats_.hits;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->value;
}

void FunctionCache::EraseSlot(std::list<Slot>::iterator it) {
  stats_.bytes -= it->bytes;
  index_.erase(KeyView{it->key.content, it->key.signature});
  lru_.erase(it);
  stats_.entries = static_cast<int64_t>(lru_.size());
}

void FunctionCache::Insert(Key key, Ref value, uint64_t owner, std::vector<Ref>& dropped) {
  if (auto it = index_.find(key); it != index_.end()) {  // made meanwhile
    dropped.push_back(it->second->value);
    EraseSlot(it->second);
  }
  // The key counts too: a signature carries the call's Python values.
  const int64_t bytes = value->bytes + static_cast<int64_t>(key.signature.size());
  stats_.bytes += bytes;
  lru_.push_front(Slot{key, std::move(value), owner, bytes});
  index_.emplace(std::move(key), lru_.begin());
  stats_.entries = static_cast<int64_t>(lru_.size());
  while (lru_.size() > 1 && (lru_.size() > options_.max_entries || stats_.bytes > options_.max_bytes)) {
    dropped.push_back(std::prev(lru_.end())->value);
    EraseSlot(std::prev(lru_.end()));
    ++stats_.evictions;
  }
}

void FunctionCache::EraseOwner(uint64_t owner) {
  if (owner == 0) return;
  std::vector<Ref> dropped;  // released after the lock
  absl::MutexLock lock(&mu_);
  owners_.erase(owner);
  for (auto it = lru_.begin(); it != lru_.end();) {
    auto next = std::next(it);
    if (it->owner == owner) {
      dropped.push_back(it->value);
      EraseSlot(it);
    }
    it = next;
  }
}

StatusOr<FunctionCache::Ref> FunctionCache::GetOrCompile(const Fingerprint& content, absl::string_view signature,
                                                         Producer produce, bool* compiled, uint64_t owner,
                                                         const CancellationToken* token) {
  if (compiled != nullptr) *compiled = false;
  for (;;) {
    std::shared_ptr<Flight> flight;
    bool mine = false;
    {
      absl::MutexLock lock(&mu_);
      if (auto it = index_.find(KeyView{content, signature}); it != index_.end()) {
        ++stats_.hits;
        lru_.splice(lru_.begin(), lru_, it->second);
        return it->second->value;
      }
      ++stats_.misses;
      if (auto it = flights_.find(KeyView{content, signature}); it != flights_.end()) {
        flight = it->second;
        if (flight->producer == std::this_thread::get_id()) {
          return errors::FailedPrecondition(
              "a function's compilation needs the function itself (a recursive call while tracing it)");
        }
        ++stats_.waits;
      } else {
        flight = std::make_shared<Flight>();
        flight->producer = std::this_thread::get_id();
        flights_.emplace(Key{content, std::string(signature)}, flight);
        ++stats_.compiles;
        mine = true;
      }
    }
    if (!mine) {
      absl::MutexLock lock(&flight->mu);
      while (!flight->mu.AwaitWithTimeout(absl::Condition(&flight->done), absl::Milliseconds(20))) {
        if (token != nullptr) RETURN_IF_ERROR(token->Check());  // this caller gave up waiting
      }
      if (!flight->result.ok() && IsCallerSpecific(flight->result.status())) continue;
      return flight->result;
    }
    Status admitted = admission_ ? admission_() : absl::OkStatus();
    StatusOr<Ref> result = admitted.ok() ? errors::Internal("not compiled") : admitted;
    if (admitted.ok()) {
      const auto started = std::chrono::steady_clock::now();
      result = produce();
      if (observer_) {
        observer_(std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started)
                      .count());
      }
    }
    // A quota or memory budget (the admission's, or an allocation's while compiling)
    // is the caller's own: a waiter with its own budget tries again.
    if (!result.ok() && result.status().code() == absl::StatusCode::kResourceExhausted &&
        !IsCallerSpecific(result.status())) {
      result = CallerSpecific(result.status());
    }
    {
      // Entries evicted here are released after the lock: the last reference to a
      // function frees its plan, kernels and weights, which other lookups need not wait for.
      std::vector<Ref> dropped;
      absl::MutexLock lock(&mu_);
      flights_.erase(KeyView{content, signature});
      if (result.ok() && (owner == 0 || owners_.contains(owner))) {
        Insert(Key{content, std::string(signature)}, *result, owner, dropped);
      }
    }
    {
      absl::MutexLock lock(&flight->mu);
      flight->result = result;
      flight->done = true;
    }
    if (compiled != nullptr) *compiled = true;
    return result;
  }
}

FunctionCacheStats FunctionCache::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace graphd::compiler
