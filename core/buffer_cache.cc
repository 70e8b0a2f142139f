#include "core/buffer_cache.h"

#include <atomic>
#include <cstdlib>
#include <list>
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
      auto it = by_size_.find(bytes);
      if (it != by_size_.end() && !it->second.empty()) {
        auto entry = it->second.back();  // the one freed last: warmest in the caches
        it->second.pop_back();
        void* block = entry->block;
        age_.erase(entry);
        held_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
        return block;
      }
    }
    return std::aligned_alloc(kTensorAlignment, bytes);
  }

  void Return(void* block, size_t bytes) {
    const int64_t capacity = capacity_.load(std::memory_order_relaxed);
    if (bytes < kMinCachedBytes || static_cast<int64_t>(bytes) > capacity) {
      std::free(block);
      return;
    }
    std::vector<void*> evicted;
    {
      absl::MutexLock lock(&mu_);
      age_.push_front({block, bytes});
      by_size_[bytes].push_back(age_.begin());
      held_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
      EvictLocked(capacity, evicted);
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
  };
  using Age = std::list<Entry>;

  // Drops the blocks returned longest ago until at most `capacity` bytes are held.
  void EvictLocked(int64_t capacity, std::vector<void*>& evicted) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (held_.load(std::memory_order_relaxed) > capacity && !age_.empty()) {
      const Entry oldest = age_.back();
      // The oldest of its size is first in its stack (each stack is in return order).
      auto& stack = by_size_[oldest.bytes];
      stack.erase(stack.begin());
      if (stack.empty()) by_size_.erase(oldest.bytes);
      age_.pop_back();
      held_.fetch_sub(static_cast<int64_t>(oldest.bytes), std::memory_order_relaxed);
      evicted.push_back(oldest.block);
    }
  }

  std::atomic<int64_t> capacity_{kInitialCapacity};
  std::atomic<int64_t> held_{0};
  absl::Mutex mu_;
  Age age_ ABSL_GUARDED_BY(mu_);  // most recently returned first
  absl::flat_hash_map<size_t, std::vector<Age::iterator>> by_size_ ABSL_GUARDED_BY(mu_);
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
