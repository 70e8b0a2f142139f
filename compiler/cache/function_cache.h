// The function cache: the one place concrete functions live, for every front end and
// every session. Keyed by what is compiled, by content (a Fingerprint of the source
// text and function, the ONNX bytes, the GraphDef, the TF1 graph, plus the compile
// target), and by the structured signature it is specialised on (signature_key.h).
// Identical work in different sessions therefore compiles once and shares one
// CompiledFunction: one plan, one copy of the folded weights.
//
// - Lookup is a hash lookup on (fingerprint, signature bytes): nothing is allocated.
// - Misses are single-flight: concurrent callers of a key being compiled wait for
//   that compile (as long as their own token allows) and share its result, or its
//   error; a compile that was cancelled, ran out of time or failed for a reason of its
//   caller's own (CallerSpecific) is retried by the next waiter instead.
// - Bounded by entries and by bytes of constants and keys (LRU; the entry just made is never
//   the one evicted). Evicting drops the cache's reference only: sessions running or
//   holding a function (a callable) keep it alive.
//
// Thread-safe. Compiles run without the cache's lock held.
#ifndef GRAPHD_COMPILER_CACHE_FUNCTION_CACHE_H_
#define GRAPHD_COMPILER_CACHE_FUNCTION_CACHE_H_

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "compiler/cache/compiled_function.h"
#include "core/cancellation.h"
#include "core/fingerprint.h"
#include "core/status.h"

namespace graphd::compiler {

struct FunctionCacheOptions {
  size_t max_entries = 4096;
  int64_t max_bytes = int64_t{4} << 30;
};

struct FunctionCacheStats {
  int64_t hits = 0;       // calls that found a function
  int64_t misses = 0;     // GetOrCompile calls that did not
  int64_t compiles = 0;   // compiles run (successful or not)
  int64_t waits = 0;      // misses that waited for another caller's compile
  int64_t evictions = 0;
  int64_t entries = 0;
  int64_t bytes = 0;
};

// Marks a compile error as its caller's own (not the key's): waiters compile again.
Status CallerSpecific(Status status);

class FunctionCache {
 public:
  using Ref = std::shared_ptr<const CompiledFunction>;
  using Producer = absl::FunctionRef<StatusOr<std::shared_ptr<CompiledFunction>>()>;

  explicit FunctionCache(FunctionCacheOptions options = {}) : options_(options) {}
  FunctionCache(const FunctionCache&) = delete;
  FunctionCache& operator=(const FunctionCache&) = delete;

  // The function for (content, signature), or null (a hit is counted; a miss is
  // counted by the GetOrCompile that follows it).
  Ref Lookup(const Fingerprint& content, absl::string_view signature);

  // The function for (content, signature): cached, or made by `produce` (at most one
  // call of `produce` per key at a time across all callers). `*compiled` (may be
  // null) tells whether this call ran `produce`. A failed compile is not cached.
  // `owner` (nonzero, from AddOwner) marks the entry as one session's own (see
  // EraseOwner); an owner already erased gets its function without it being cached.
  // `token` (may be null) bounds the wait for another caller's compile.
  StatusOr<Ref> GetOrCompile(const Fingerprint& content, absl::string_view signature, Producer produce,
                             bool* compiled = nullptr, uint64_t owner = 0, const CancellationToken* token = nullptr);

  // A session that does not share its functions opens (AddOwner) and closes
  // (EraseOwner: its entries go, and so their device memory; a compile of its still
  // running is not cached when it ends).
  void AddOwner(uint64_t owner);
  void EraseOwner(uint64_t owner);

  // Told the duration of every compile run (successful or not), in microseconds, on
  // the compiling thread. Set before the cache is used.
  void SetCompileObserver(std::function<void(int64_t us)> observer) { observer_ = std::move(observer); }
  // Asked on the compiling thread before every compile; an error is the compile's
  // result, CallerSpecific (a tenant's compile-time quota). Set before the cache is used.
  void SetCompileAdmission(std::function<Status()> admission) { admission_ = std::move(admission); }

  FunctionCacheStats stats() const;
  const FunctionCacheOptions& options() const { return options_; }

 private:
  struct Key {
    Fingerprint content;
    std::string signature;
  };
  struct KeyView {
    Fingerprint content;
    absl::string_view signature;
  };
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(const Key& k) const { return absl::HashOf(k.content, absl::string_view(k.signature)); }
    size_t operator()(const KeyView& k) const { return absl::HashOf(k.content, k.signature); }
  };
  struct KeyEq {
    using is_transparent = void;
    static KeyView View(const Key& k) { return {k.content, k.signature}; }
    static KeyView View(const KeyView& k) { return k; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      KeyView x = View(a), y = View(b);
      return x.content == y.content && x.signature == y.signature;
    }
  };
  struct Slot {
    Key key;
    Ref value;
    uint64_t owner = 0;
    int64_t bytes = 0;  // the function's constants and the key's signature
  };
  // A compile in progress: its result, set once, then `done` notified.
  struct Flight {
    absl::Mutex mu;
    bool done ABSL_GUARDED_BY(mu) = false;
    StatusOr<Ref> result ABSL_GUARDED_BY(mu) = Ref();
    std::thread::id producer;
  };
  // Adds `value`, evicting past the bounds; what it evicts goes to `dropped`, for the
  // caller to release after the lock.
  void Insert(Key key, Ref value, uint64_t owner, std::vector<Ref>& dropped) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EraseSlot(std::list<Slot>::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const FunctionCacheOptions options_;
  std::function<void(int64_t)> observer_;
  std::function<Status()> admission_;
  mutable absl::Mutex mu_;
  std::list<Slot> lru_ ABSL_GUARDED_BY(mu_);  // most recently used first
  absl::flat_hash_map<Key, std::list<Slot>::iterator, KeyHash, KeyEq> index_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<Key, std::shared_ptr<Flight>, KeyHash, KeyEq> flights_ ABSL_GUARDED_BY(mu_);
  FunctionCacheStats stats_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<uint64_t> owners_ ABSL_GUARDED_BY(mu_);  // open, nonzero
};

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_CACHE_FUNCTION_CACHE_H_
