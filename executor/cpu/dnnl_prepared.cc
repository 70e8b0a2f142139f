#include "executor/cpu/dnnl_prepared.h"

#include <cstdlib>
#include <memory>
#include <new>

#include "executor/cpu/dnnl_util.h"

namespace graphd::executor::cpu {
namespace {

std::atomic<int64_t> prepared_runs{0};

}  // namespace

void* ThreadScratchpad(size_t bytes) {
  // Grown as needed, reused by every primitive this thread runs (runs are synchronous).
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<void, Free> scratchpad;
  thread_local size_t capacity = 0;
  if (capacity < bytes) {
    const size_t rounded = (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
    void* grown = std::aligned_alloc(kTensorAlignment, rounded);
    if (grown == nullptr) throw std::bad_alloc();  // the old one stays, with its capacity
    scratchpad.reset(grown);
    capacity = rounded;
  }
  return scratchpad.get();
}

dnnl::memory::desc ScratchpadDesc(const dnnl::primitive& prim) {
  const dnnl_memory_desc_t* md = dnnl_primitive_desc_query_md(prim.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
  return md == nullptr ? dnnl::memory::desc() : dnnl::memory::desc(*md);
}

int64_t PreparedCallRuns() { return prepared_runs.load(std::memory_order_relaxed); }

PreparedCall::PreparedCall(dnnl::primitive prim, int team) : prim_(std::move(prim)), team_(team) {
  const dnnl::memory::desc scratchpad = ScratchpadDesc(prim_);
  scratchpad_bytes_ = scratchpad.get_size();
  if (scratchpad_bytes_ > 0) {  // argument 0: Run points it at the thread's scratchpad
    memories_.emplace_back(scratchpad, Engine(), static_cast<void*>(nullptr));
    args_.push_back({DNNL_ARG_SCRATCHPAD, memories_.back().get()});
  }
}

int PreparedCall::Add(int arg, const dnnl::memory::desc& desc) {
  memories_.emplace_back(desc, Engine(), static_cast<void*>(nullptr));
  args_.push_back({arg, memories_.back().get()});
  return static_cast<int>(memories_.size()) - 1;
}

void PreparedCall::AddFixed(int arg, const dnnl::memory& mem) {
  memories_.emplace_back(mem.get_desc(), Engine(), mem.get_data_handle());
  args_.push_back({arg, memories_.back().get()});
}

void PreparedCall::SetData(int index, const void* data) {
  memories_[index].set_data_handle(const_cast<void*>(data));
}

void PreparedCall::Run() {
  if (scratchpad_bytes_ > 0) memories_[0].set_data_handle(ThreadScratchpad(scratchpad_bytes_));
  dnnl::stream& stream = ThreadStream();
  dnnl::error::wrap_c_api(
      dnnl_primitive_execute(prim_.get(), stream.get(), static_cast<int>(args_.size()), args_.data()),
      "could not execute a prepared primitive");
  stream.wait();
  prepared_runs.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace graphd::executor::cpu
