#include "executor/cpu/dnnl_util.h"

#include <omp.h>

#include "executor/cpu/dnnl_prepared.h"

namespace graphd::executor::cpu {

dnnl::engine& Engine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

dnnl::memory::dims DnnlDims(const Shape& shape) {
  if (shape.rank() == 0) return {1};
  return dnnl::memory::dims(shape.dims().begin(), shape.dims().end());
}

dnnl::memory::desc PlainDesc(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory Wrap(const dnnl::memory::desc& desc, const Tensor& t) {
  return dnnl::memory(desc, Engine(), t.raw_data());
}

const dnnl::primitive_attr& PrimitiveAttr() {
  static const dnnl::primitive_attr* attr = [] {
    auto* a = new dnnl::primitive_attr();
    a->set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }();
  return *attr;
}

OneThreadScope::OneThreadScope(bool active) : saved_(active ? omp_get_max_threads() : 0) {
  if (saved_ > 1) omp_set_num_threads(1);
}

OneThreadScope::~OneThreadScope() {
  if (saved_ > 1) omp_set_num_threads(saved_);
}

void RunPrimitive(const dnnl::primitive& prim, std::unordered_map<int, dnnl::memory> args, int64_t elements) {
  ApplyIntraOpThreads();
  OneThreadScope one_thread(elements >= 0 && elements < kOneThreadElements);
  if (const dnnl::memory::desc md = ScratchpadDesc(prim); md.get_size() > 0) {
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(md, Engine(), ThreadScratchpad(md.get_size())));
  }
  prim.execute(ThreadStream(), args);
  ThreadStream().wait();
}

}  // namespace graphd::executor::cpu
