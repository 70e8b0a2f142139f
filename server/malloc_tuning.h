// The process's malloc settings (glibc; elsewhere these do nothing).
//
// Why: a request carrying large tensors (a ResNet batch of 16 is 9.6 MB) makes
// gRPC, protobuf and the tensor codec allocate several buffers of that size per
// call. With glibc's defaults each lands in a fresh mmap'd region and is unmapped
// again when freed, so every call page-faults in (and zeroes) the whole buffer
// again, which costs several times the copy itself. Each thread that allocates also
// gets its own arena (up to 8 per core), and memory freed into one arena is not
// reused by the others, so RSS grows with the number of threads that once handled
// a large request (a model load, say).
//
// TuneMalloc, called once at start before serving: every block comes from the heap
// (mmap is off for malloc: M_MMAP_MAX 0; the mmap threshold, kKeepBlockBytes, only
// matters if something turns it back on) and freed memory is kept up to
// kTrimThresholdBytes, so a repeated large request reuses warm pages; at most `arenas`
// arenas (0: glibc's default). Blocks over 32 MB (a ResNet batch of 64 is 38.5 MB)
// would otherwise always be fresh mappings, faulted in on every call: on the H200 runs
// of bench/gpu/run_gpu_bench.py (bench/README.md, "GPU"), ResNet-50 at batch 64 spent
// 25 ms of its handler outside the run before and 7 ms after.
// A block larger than a thread arena's 64 MB heap is served by the main arena (brk).
// Why one arena by default (ServerOptions::malloc_arenas): glibc gives back the free
// top of a thread arena's first heap only in free(), and only once that top reaches
// the trim threshold, which the 64 MB heap never lets it reach; malloc_trim trims the
// main arena's top alone. So every thread arena kept up to one large request for good
// (a 47 MB model load: 10 sessions' RSS 1.15-1.3x one session's with two arenas,
// 1.00-1.02x with one; bench/README.md, "One function cache shared across sessions").
// Lowering the threshold to 32 MB instead still left 1.15 in two runs of five, and
// would fault a 38.5 MB batch in again on every call. Small blocks come from each
// thread's tcache without the arena's lock.
// ReleaseFreeMemory hands free heap memory back to the system: called after work
// that allocates a lot once (model and module loads, closing a session).
// Thread-safe.
#ifndef GRAPHD_SERVER_MALLOC_TUNING_H_
#define GRAPHD_SERVER_MALLOC_TUNING_H_

#include <cstddef>

namespace graphd::server {

inline constexpr size_t kKeepBlockBytes = size_t{32} << 20;      // glibc's largest mmap threshold
inline constexpr size_t kTrimThresholdBytes = size_t{64} << 20;

// False when the C library rejected a setting (or is not glibc).
bool TuneMalloc(int arenas);
void ReleaseFreeMemory();

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_MALLOC_TUNING_H_
