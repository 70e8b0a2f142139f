// The concrete functions one session has used for one of its functions (a source
// function, a loaded graph), by signature key, oldest first and bounded: how a source
// call finds the trace this session made or took for its signature, what
// DescribeFunction lists, and for reduce_retracing the generalised signatures later
// calls may fit. The functions live in the server's function cache; this holds them
// weakly (a loaded graph's: evicted, it is built again), or pinned (a source
// function's: tf.function never forgets a trace, and tracing again would run the
// Python code again), with the content they are keyed under there.
//
// Not thread-safe: the owner's lock guards it.
#ifndef GRAPHD_SERVER_USED_SIGNATURES_H_
#define GRAPHD_SERVER_USED_SIGNATURES_H_

#include <deque>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "compiler/cache/function_cache.h"
#include "compiler/cache/signature_key.h"

namespace graphd::server {

class UsedSignatures {
 public:
  struct Item {
    compiler::SignatureKey key;
    Fingerprint content;  // the cache key's content
    std::weak_ptr<const compiler::CompiledFunction> function;
    std::shared_ptr<const compiler::CompiledFunction> pinned;  // or null
  };
  static constexpr size_t kMaxItems = 1024;

  // Records that `function`, cached under (content, key), serves `key`.
  void Record(const Fingerprint& content, const compiler::SignatureKey& key,
              const std::shared_ptr<const compiler::CompiledFunction>& function, bool pin = false);
  // The item recorded for exactly `key`, or null. Allocates nothing. Invalidated by
  // the next Record.
  const Item* Find(absl::string_view key) const;

  // reduce_retracing: a recorded function whose key accepts `call` and which the cache
  // still holds or this record pins (`*key` gets that key), or null.
  std::shared_ptr<const compiler::CompiledFunction> FindAccepting(const compiler::SignatureKey& call,
                                                                  compiler::FunctionCache& cache,
                                                                  compiler::SignatureKey* key) const;
  // What a miss of `call` compiles: `call` generalised against the latest recorded
  // key (reduce_retracing's one policy, compiler/cache/signature_key.h) when the two
  // differ only in shapes, else `call`.
  compiler::SignatureKey Generalized(const compiler::SignatureKey& call) const;

  // Oldest first.
  template <typename F>
  void ForEach(F f) const {
    for (const std::string& k : order_) f(items_.at(k));
  }

 private:
  absl::flat_hash_map<std::string, Item> items_;
  std::deque<std::string> order_;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_USED_SIGNATURES_H_
