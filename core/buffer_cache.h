// A cache of freed host tensor storage, reused by the next allocation of the same size.
//
// Why: a plan runs the same sequence of allocations on every call (a MobileNetV3 at
// batch 1: ~40 activations of 16 KB to 600 KB). Through malloc those blocks land at
// addresses that wander over the heap from call to call: 143 distinct blocks, 24 MB,
// over 75 calls in an ad-hoc allocation log, where one call's activations hold about
// 5 MB. That traffic evicts the model's weights from the last-level cache between
// calls, and the classifier's
// 1024x1000 MatMul read its 4 MB from DRAM (305 us, against 52 us with the weights
// cached). Blocks reused last-freed-first keep one call's working set at the same,
// cache-warm addresses. Large batches gain more: a MobileNetV2 batch of 16 allocates
// blocks of up to 77 MB, which malloc handed back to the system at each free and
// faulted in again at the next call (95 ms per call with a 128 MiB cache, 75 ms with
// the whole working set kept).
//
// Blocks of kMinCachedBytes and up (rounded to the tensor alignment) are kept, per
// size, last freed first, up to a total of `capacity` bytes; past it the blocks freed
// longest ago are given back to malloc. The cache holds only free memory: what is
// in it is charged to no memory account (core/memory_account.h), and it shows in the
// process's RSS, which Flush() (called with the server's ReleaseFreeMemory) returns.
// Off under the sanitizers, which must see every free. Thread-safe.
#ifndef GRAPHD_CORE_BUFFER_CACHE_H_
#define GRAPHD_CORE_BUFFER_CACHE_H_

#include <cstddef>
#include <cstdint>

namespace graphd {

inline constexpr size_t kMinCachedBytes = size_t{16} << 10;
inline constexpr int64_t kDefaultBufferCacheBytes = int64_t{1024} << 20;

// A block of exactly `rounded` bytes (a multiple of kTensorAlignment, aligned to it)
// from the cache, or from aligned_alloc; null when out of memory.
void* TakeHostBlock(size_t rounded);
// Gives a block from TakeHostBlock back: kept in the cache when it fits, else freed.
void ReturnHostBlock(void* block, size_t rounded);

// The most bytes the cache keeps (0: none; blocks are then freed at once). Lowering it
// frees what no longer fits.
void SetBufferCacheCapacity(int64_t bytes);
int64_t BufferCacheCapacity();
// Bytes held in the cache now.
int64_t BufferCacheBytes();
// Frees every cached block.
void FlushBufferCache();

}  // namespace graphd

#endif  // GRAPHD_CORE_BUFFER_CACHE_H_
