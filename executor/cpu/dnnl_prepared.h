// A oneDNN primitive call prepared once and rerun with new data pointers.
//
// A call through RunPrimitive wraps each tensor in a fresh dnnl::memory, builds the
// argument map and the descriptors, and frees them all after: on a small convolution
// that bookkeeping is most of the call (perf on kernels_bench's tiny depthwise
// convolution: ~34% of its time in malloc and free, 6% building descriptors), and
// MobileNetV3-small runs ~35 such convolutions per call. A PreparedCall holds the
// primitive, one memory object per argument (made once, without data) and the
// argument array; Run sets nothing but the data pointers (SetData) and executes
// through oneDNN's C API, with the calling thread's scratchpad.
//
// A PreparedCall is used by one thread at a time: a kernel keeps its last one in a
// PreparedSlot, which a call Takes (an empty lease when another thread holds it: that
// call goes the slow way, and may leave its own behind for the next).
#ifndef GRAPHD_EXECUTOR_CPU_DNNL_PREPARED_H_
#define GRAPHD_EXECUTOR_CPU_DNNL_PREPARED_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "dnnl.hpp"

namespace graphd::executor::cpu {

// The calling thread's oneDNN scratchpad of at least `bytes` (grown as needed, valid
// until the thread next asks for more), for primitives made with a user scratchpad
// (PrimitiveAttr's mode): the one RunPrimitive and PreparedCall::Run pass. Throws
// std::bad_alloc (keeping the scratchpad it had).
void* ThreadScratchpad(size_t bytes);
// The scratchpad `prim` asks for (of size 0: none).
dnnl::memory::desc ScratchpadDesc(const dnnl::primitive& prim);

// How many times PreparedCall::Run has run in this process (for tests: whether a
// kernel took its prepared call).
int64_t PreparedCallRuns();

class PreparedCall {
 public:
  // `prim` made with a user scratchpad (as PrimitiveAttr), for OpenMP teams of `team`.
  PreparedCall(dnnl::primitive prim, int team);

  // Adds argument `arg` (DNNL_ARG_*) of layout `desc`, its data given per run by
  // SetData(returned index, ...).
  int Add(int arg, const dnnl::memory::desc& desc);
  // Adds argument `arg` bound to `mem`'s data for good (packed weights).
  void AddFixed(int arg, const dnnl::memory& mem);
  void SetData(int index, const void* data);

  // Runs the primitive on the calling thread's stream and waits. The caller's team
  // (ApplyIntraOpThreads) must be `team()`. Throws dnnl::error as the C++ API does.
  void Run();
  int team() const { return team_; }

 private:
  dnnl::primitive prim_;
  int team_;
  size_t scratchpad_bytes_ = 0;
  std::vector<dnnl::memory> memories_;  // parallel to args_ (the first the scratchpad's, if any)
  std::vector<dnnl_exec_arg_t> args_;
};

// One prepared value of type T per kernel, lent to one thread at a time.
template <typename T>
class PreparedSlot {
 public:
  class Lease {
   public:
    Lease() = default;
    explicit Lease(PreparedSlot* slot) : slot_(slot) {}
    Lease(Lease&& other) noexcept : slot_(std::exchange(other.slot_, nullptr)) {}
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (slot_ != nullptr) slot_->busy_.store(false, std::memory_order_release);
    }
    explicit operator bool() const { return slot_ != nullptr; }
    // The value held (null before the first Put). Only with a lease.
    T* get() const { return slot_->value_.get(); }
    void Put(std::unique_ptr<T> value) const { slot_->value_ = std::move(value); }

   private:
    PreparedSlot* slot_ = nullptr;
  };

  // The slot, or an empty lease while another thread has it.
  Lease Take() {
    if (busy_.exchange(true, std::memory_order_acquire)) return Lease();
    return Lease(this);
  }

 private:
  std::atomic<bool> busy_{false};
  std::unique_ptr<T> value_;  // guarded by busy_
};

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_DNNL_PREPARED_H_
