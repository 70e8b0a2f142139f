// oneDNN plumbing shared by the CPU kernels: the engine, a per-thread stream, memory
// descriptors for dense row-major tensors, and a small per-kernel primitive cache.
#ifndef GRAPHD_EXECUTOR_CPU_DNNL_UTIL_H_
#define GRAPHD_EXECUTOR_CPU_DNNL_UTIL_H_

#include <omp.h>

#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/tensor.h"
#include "dnnl.hpp"
#include "executor/cpu/team.h"  // the team sizes every kernel asks for

namespace graphd::executor::cpu {

dnnl::engine& Engine();
// A stream owned by the calling thread (oneDNN streams are not shared across threads).
dnnl::stream& ThreadStream();

// Dims of `shape` for oneDNN (a scalar becomes {1}).
dnnl::memory::dims DnnlDims(const Shape& shape);
// Dense row-major f32 descriptor.
dnnl::memory::desc PlainDesc(const dnnl::memory::dims& dims);
dnnl::memory Wrap(const dnnl::memory::desc& desc, const Tensor& t);

// Attributes for every primitive graphd creates: a user-managed scratchpad. With the
// library's default (shared) scratchpad, one primitive run from several threads at
// once (concurrent runs of a plan) corrupts its results.
const dnnl::primitive_attr& PrimitiveAttr();
// Runs `prim` (made with PrimitiveAttr) on the calling thread's stream with a
// scratchpad owned by the calling thread, and waits for it.
// With `elements` (what the primitive reads and writes, in elements) below
// kOneThreadElements, it runs on the calling thread alone: for a memory-bound op of
// that size a second thread saves a microsecond or two when the team is spinning, and
// costs a futex wake-up (tens of microseconds on a loaded 2-core VM) when it is not.
// The encoder's residual Adds ([1, 64, 256]) took 64-327 us on two threads.
inline constexpr int64_t kOneThreadElements = int64_t{1} << 16;
void RunPrimitive(const dnnl::primitive& prim, std::unordered_map<int, dnnl::memory> args, int64_t elements = -1);

// While alive (and `active`), oneDNN primitives created or run on this thread use
// one OpenMP thread.
class OneThreadScope {
 public:
  explicit OneThreadScope(bool active);
  ~OneThreadScope();
  OneThreadScope(const OneThreadScope&) = delete;
  OneThreadScope& operator=(const OneThreadScope&) = delete;

 private:
  int saved_;
};

// Whether oneDNN chose its reference implementation ("ref:any"): a plain C++ loop,
// 100-1000x slower than its JIT kernels or graphd's own loops (a broadcast Sub of 576K
// values: 42 ms). Callers that have loops of their own use them instead.
inline bool IsReference(const dnnl::primitive_desc_base& pd) {
  const char* impl = pd.impl_info_str();
  return impl != nullptr && impl[0] == 'r' && impl[1] == 'e' && impl[2] == 'f';
}

// Primitives keyed by input dims, created on first use of a shape and reused after.
// oneDNN fixes a convolution's or product's thread count when it is made, so a key
// holds one primitive per OpenMP team size of the threads that ran it (team.h: the
// leading thread and the others differ in single-team mode). Bounded: the least
// recently used entry goes when `capacity` is reached. Thread-safe.
template <typename Prim>
class PrimitiveCache {
 public:
  using Key = std::vector<int64_t>;
  explicit PrimitiveCache(size_t capacity = 8) : capacity_(capacity) {}

  template <typename MakeFn>
  Prim Get(const Key& key, MakeFn make) {
    ApplyIntraOpThreads();
    const int team = omp_get_max_threads();
    absl::MutexLock lock(&mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->team == team && it->key == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return it->prim;
      }
    }
    Prim prim = make();
    entries_.push_front(Entry{key, team, prim});
    if (entries_.size() > capacity_) entries_.pop_back();
    return prim;
  }

 private:
  struct Entry {
    Key key;
    int team;
    Prim prim;
  };
  size_t capacity_;
  absl::Mutex mu_;
  std::list<Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_DNNL_UTIL_H_
