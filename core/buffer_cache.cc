#include "core/buffer_cache.h"

#include <atomic>
#include <cstdlib>
#include <list>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/sanitizers.h"
#include "core/tensor.h"

namespace graphd {
namespace {

#if defined(GRAPHD_SANITIZED_MALLOC)
constexpr int64_t kInitialCapacity = 0;
#else
constexpr int64_t kInitialCapacity = kDefaultBufferCacheBytes;
#endif


class BlockCache {
 public:
  void* Take(size_t bytes) {
    if (bytes >= kMinCachedBytes && capacity_.load(std::memory_order_relaxed) > 0) {
      absl::MutexLock lock(&mu_);
      // Its own size first; else the block returned last among those up to
      // kMaxBlockOversize times larger (warmest in the caches).
      auto best = by_size_.end();
      const size_t largest = kMaxBlockOversize * bytes;
      for (auto it = by_size_.lower_bound(bytes); it != by_size_.end() && it->first <= largest; ++it) {
        if (it->second.empty()) continue;
        if (best == by_size_.end() || it->second.back()->seq > best->second.back()->seq) best = it;
        if (it->first == bytes) break;
      }
      if (best != by_size_.end()) {
        const auto in_age = best->second.back();
        const Entry entry = *in_age;
        best->second.pop_back();  // an emptied stack stays for the size's next return
        age_.erase(in_age);
        // A larger block's surplus stays counted as held until it comes back.
        held_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
        if (entry.bytes != bytes) lent_[entry.block] = entry.bytes;
        return entry.block;
      }
    }
    return std::aligned_alloc(kTensorAlignment, bytes);
  }

  void Return(void* block, size_t bytes) {
    if (bytes < kMinCachedBytes) {
      std::free(block);
      return;
    }
    std::vector<void*> evicted;
    {
      absl::MutexLock lock(&mu_);
      size_t real = bytes;
      if (auto it = lent_.find(block); it != lent_.end()) {
        real = it->second;
        lent_.erase(it);
        held_.fetch_sub(static_cast<int64_t>(real - bytes), std::memory_order_relaxed);
      }
      const int64_t capacity = capacity_.load(std::memory_order_relaxed);
      if (static_cast<int64_t>(real) > capacity) {
        evicted.push_back(block);
      } else {
        age_.push_front({block, real, ++seq_});
        by_size_[real].push_back(age_.begin());
        held_.fetch_add(static_cast<int64_t>(real), std::memory_order_relaxed);
        EvictLocked(capacity, evicted);
      }
    }
    for (void* b : evicted) std::free(b);
  }

  void SetCapacity(int64_t bytes) {
    capacity_.store(bytes, std::memory_order_relaxed);
    std::vector<void*> evicted;
    {
      absl::MutexLock lock(&mu_);
      EvictLocked(bytes, evicted);
    }
    for (void* b : evicted) std::free(b);
  }

  void Flush() {
    std::vector<void*> evicted;
    {
      absl::MutexLock lock(&mu_);
      EvictLocked(0, evicted);
    }
    for (void* b : evicted) std::free(b);
  }

  int64_t capacity() const { return capacity_.load(std::memory_order_relaxed); }
  int64_t held() const { return held_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    void* block;
    size_t bytes;
    uint64_t seq;  // order of return: larger is later
  };
  using Age = std::list<Entry>;

  // Drops the blocks returned longest ago until at most `capacity` bytes are held (the
  // surplus of lent larger blocks counts, and stays until they come back).
  void EvictLocked(int64_t capacity, std::vector<void*>& evicted) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (held_.load(std::memory_order_relaxed) > capacity && !age_.empty()) {
      const Entry oldest = age_.back();
      // The oldest of its size is first in its stack (each stack is in return order).
      auto stack = by_size_.find(oldest.bytes);
      stack->second.erase(stack->second.begin());
      if (stack->second.empty()) by_size_.erase(stack);
      age_.pop_back();
      held_.fetch_sub(static_cast<int64_t>(oldest.bytes), std::memory_order_relaxed);
      evicted.push_back(oldest.block);
    }
  }

  std::atomic<int64_t> capacity_{kInitialCapacity};
  std::atomic<int64_t> held_{0};
  absl::Mutex mu_;
  uint64_t seq_ ABSL_GUARDED_BY(mu_) = 0;
  Age age_ ABSL_GUARDED_BY(mu_);  // most recently returned first
  // Per size, in return order; a stack emptied by Take stays (a plan frees the same
  // sizes on every call), one emptied by eviction goes.
  std::map<size_t, std::vector<Age::iterator>> by_size_ ABSL_GUARDED_BY(mu_);
  // Blocks handed out for a smaller size: their real size.
  absl::flat_hash_map<void*, size_t> lent_ ABSL_GUARDED_BY(mu_);
};

BlockCache& Cache() {
  static auto* cache = new BlockCache();  // never destroyed: buffers may be freed at exit
  return *cache;
}

}  // namespace

void* TakeHostBlock(size_t rounded) { return Cache().Take(rounded); }
void ReturnHostBlock(void* block, size_t rounded) { Cache().Return(block, rounded); }
void SetBufferCacheCapacity(int64_t bytes) {
#if defined(GRAPHD_SANITIZED_MALLOC)
  bytes = 0;
#endif
  Cache().SetCapacity(bytes < 0 ? 0 : bytes);
}
int64_t BufferCacheCapacity() { return Cache().capacity(); }
int64_t BufferCacheBytes() { return Cache().held(); }
void FlushBufferCache() { Cache().Flush(); }

}  // namespace graphd
