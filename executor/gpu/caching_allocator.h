// A stream-ordered caching allocator for device memory, with per-owner (per-session)
// accounting and a Trim that really hands cached memory back (issue 6).
//
// Device-independent: the memory and the stream/event primitives come from an injected
// AllocatorBackend (cudaMalloc/cudaFree/cudaEventRecord/cudaEventQuery on a GPU, a fake
// in tests). No CUDA header is needed to include or build this file.
//
// Policy (kept simple on purpose):
//   * Sizes are rounded up to kGranularity (512 bytes); a 0-byte request gets one
//     granule, so every allocation has a distinct pointer. Blocks are never split or
//     merged: one backend allocation is one block for its whole life.
//   * A request is served from the cache first, best fit: the smallest cached block of
//     at least the rounded size, and at most twice it (so at most half a block is
//     wasted; larger blocks stay for larger requests).
//   * Stream order: a block freed on stream S is reusable on S at once (work enqueued on S
//     later runs after the work that used it). For another stream it is reusable only
//     once an event recorded on S after the free has completed. The event is recorded
//     lazily, the first time another stream wants the block: an event recorded later on
//     S completes no earlier than one recorded at the free, so this is as safe and costs
//     nothing while a single stream is in use. Same-stream blocks are preferred.
//   * No fitting cached block: the backend is asked. If it says ResourceExhausted, every
//     cached block is handed back (Trim) and the backend is asked once more; if that
//     fails too, Allocate returns ResourceExhausted naming the bytes asked, in use and
//     cached.
//
// Owners: every allocation names an owner (a session handle; "" is fine). The allocator
// keeps bytes in use and the peak per owner. The cache itself is shared by all owners.
// When a session closes, call ReleaseOwner (reports leaks) and then Trim, so the
// memory returns to the device; do the same after evicting a function.
//
// Thread safety: all methods are thread-safe. The backend is called with the allocator's
// lock held, so backend calls are serialized and must not call back into the allocator.
#ifndef GRAPHD_EXECUTOR_GPU_CACHING_ALLOCATOR_H_
#define GRAPHD_EXECUTOR_GPU_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/status.h"

namespace graphd::executor::gpu {

// Opaque handles chosen by the backend (a cudaStream_t / cudaEvent_t cast to an
// integer).
using Stream = std::uintptr_t;
using Event = std::uintptr_t;

// What the allocator needs from a device. Implementations need not be
// thread-safe (the allocator serializes calls).
class AllocatorBackend {
 public:
  virtual ~AllocatorBackend() = default;
  // `bytes` (> 0) of device memory. Out of memory must be ResourceExhausted
  // (the allocator then trims and retries); any other error is passed on as is.
  virtual absl::StatusOr<void*> Malloc(size_t bytes) = 0;
  // Returns memory from Malloc. Work already enqueued on any stream may still
  // use it: the backend must not reuse it before that work completes (cudaFree
  // synchronizes).
  virtual void Free(void* ptr) = 0;
  // An event that completes when all work enqueued on `stream` so far has
  // completed.
  virtual absl::StatusOr<Event> RecordEvent(Stream stream) = 0;
  // True once `event` has completed (false while pending, and on error).
  virtual bool EventDone(Event event) = 0;
  virtual void DestroyEvent(Event event) = 0;
};

struct OwnerStats {
  size_t bytes_in_use = 0;  // rounded sizes of the owner's live blocks
  size_t peak_bytes_in_use = 0;
  size_t blocks_in_use = 0;
};

struct AllocatorStats {
  size_t bytes_in_use = 0;   // handed out, not yet freed
  size_t bytes_cached = 0;   // freed, kept for reuse
  size_t bytes_backend = 0;  // held from the backend: in use + cached
  size_t peak_bytes_in_use = 0;
  size_t blocks_in_use = 0;
  size_t blocks_cached = 0;
  int64_t backend_mallocs = 0;  // successful backend Malloc calls
  int64_t backend_frees = 0;
  int64_t cache_hits = 0;  // Allocate calls served from the cache
  int64_t oom_trims = 0;   // backend out of memory -> Trim -> retry
  // Owners that allocated and were not released yet (see ReleaseOwner).
  std::map<std::string, OwnerStats, std::less<>> owners;
};

class CachingAllocator {
 public:
  static constexpr size_t kGranularity = 512;

  // `backend` must outlive the allocator.
  explicit CachingAllocator(AllocatorBackend* backend);
  // Hands every cached block back. Blocks still in use are not freed (they leak
  // to the backend, which owns the device memory anyway); their holders must
  // not Free them.
  ~CachingAllocator();

  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `bytes` usable by work enqueued on `stream`, charged to
  // `owner`.
  absl::StatusOr<void*> Allocate(size_t bytes, Stream stream, absl::string_view owner);

  // Returns `ptr` to the cache. `stream` is the stream of the last work using
  // it (the block is reusable on that stream at once, elsewhere after an
  // event). The caller must not have enqueued uses on other streams since,
  // unless it synchronized. Free(nullptr) is a no-op. InvalidArgument for a
  // pointer not from Allocate or freed already.
  absl::Status Free(void* ptr, Stream stream);

  // Called when `owner` (a session) closes. OK if it holds nothing: its entry
  // leaves the stats. Otherwise FailedPrecondition listing the leak (blocks and
  // bytes); those blocks stay in use (a holder may still Free them) and the
  // entry stays.
  absl::Status ReleaseOwner(absl::string_view owner);

  // Hands every cached block back to the backend; returns the bytes released.
  // After every block is freed, Trim leaves the backend holding nothing.
  size_t Trim();

  // Rounded size of a live block (0 for an unknown pointer).
  size_t BlockSize(const void* ptr) const;

  AllocatorStats Stats() const;

 private:
  struct Block {
    void* ptr = nullptr;
    size_t size = 0;  // rounded; what the backend gave
    bool in_use = false;
    Stream stream = 0;       // last stream (allocation stream, then the free's stream)
    std::string owner;       // while in use
    bool has_event = false;  // cached: event recorded on `stream` after the free
    Event event = 0;
  };
  // Cached blocks ordered by (stream, size, address): same-stream best fit is
  // one lower_bound.
  struct CacheOrder {
    bool operator()(const Block* a, const Block* b) const;
  };

  static size_t RoundUp(size_t bytes);
  // Best cached block for `size` on `stream`, or null. May record/query events.
  Block* FindCached(size_t size, Stream stream) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A cached block from a stream other than `stream` whose event has completed.
  Block* FindOtherStream(size_t size, Stream stream) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  size_t TrimLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropEvent(Block* block) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MarkInUse(Block* block, Stream stream, absl::string_view owner)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  AllocatorBackend* const backend_;
  mutable absl::Mutex mu_;
  // Every block the allocator holds from the backend, in use or cached.
  absl::flat_hash_map<const void*, std::unique_ptr<Block>> blocks_ ABSL_GUARDED_BY(mu_);
  std::set<Block*, CacheOrder> cached_ ABSL_GUARDED_BY(mu_);
  AllocatorStats stats_ ABSL_GUARDED_BY(mu_);  // owners and counters kept up to date
};

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_CACHING_ALLOCATOR_H_
