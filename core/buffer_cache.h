// A cache of freed host tensor storage, reused by the next allocation of the same size
// (or of a quarter of it and up).
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
// longest ago are given back to malloc. An allocation that finds no block of its own
// size takes the one returned last among those up to kMaxBlockOversize times its size:
// a call's many distinct sizes then share blocks. With exact sizes only, EfficientNet-B0
// at batch 1 held 26 MB of blocks between calls, more than the last-level cache beside
// its 21 MB of weights; 12 MB sharing up to four times the size, with the plan's large
// spares sent here (executor/runtime/tensor_pool.h; bench/buffer_footprint.py). The
// surplus of such a block counts as held by the cache until it comes back. The cache holds only free memory: what it holds is charged to no
// memory account (core/memory_account.h), and it shows in the process's RSS, which
// Flush() (called with the server's ReleaseFreeMemory) returns.
// Off under the sanitizers, which must see every free. Thread-safe.
#ifndef GRAPHD_CORE_BUFFER_CACHE_H_
#define GRAPHD_CORE_BUFFER_CACHE_H_

#include <cstddef>
#include <cstdint>

namespace graphd {

inline constexpr size_t kMinCachedBytes = size_t{16} << 10;
inline constexpr int64_t kDefaultBufferCacheBytes = int64_t{1024} << 20;
// A block up to this many times the size asked for may be handed out when none of that
// size is free.
inline constexpr size_t kMaxBlockOversize = 4;

// A block of at least `rounded` bytes (a multiple of kTensorAlignment; aligned to it):
// from the cache (of that size, or up to kMaxBlockOversize times it), or of exactly
// that size from aligned_alloc; null when out of memory. The caller uses `rounded`
// bytes of it.
void* TakeHostBlock(size_t rounded);
// Gives a block from TakeHostBlock(rounded) back, with the same `rounded`: kept in the
// cache (at its real size) when it fits, else freed.
void ReturnHostBlock(void* block, size_t rounded);

// The most bytes the cache keeps (0: none; blocks are then freed at once). Lowering it
// frees what no longer fits.
void SetBufferCacheCapacity(int64_t bytes);
int64_t BufferCacheCapacity();
// Bytes held in the cache now, with the surplus of larger blocks handed out.
int64_t BufferCacheBytes();
// Frees every cached block.
void FlushBufferCache();

}  // namespace graphd

#endif  // GRAPHD_CORE_BUFFER_CACHE_H_
