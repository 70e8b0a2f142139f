#include "executor/cpu/dnnl_util.h"

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

}  // namespace graphd::executor::cpu
