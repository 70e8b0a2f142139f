#include "executor/cpu/channels_last.h"

#include "core/ops/window_nd.h"
#include "executor/cpu/strided_copy.h"

namespace graphd::executor::cpu {
namespace {

// Strides of channels-last memory for the logical channels-first dims.
std::vector<int64_t> ChannelsLastStrides(const std::vector<int64_t>& cf_dims) {
  return ops::ToChannelsFirst(RowMajorStrides(ops::ToChannelsLast(cf_dims)));
}

}  // namespace

dnnl::memory::desc WindowDataDesc(const dnnl::memory::dims& cf_dims, bool channels_last) {
  return dnnl::memory::desc(cf_dims, dnnl::memory::data_type::f32,
                            channels_last ? ChannelsLastStrides(cf_dims) : RowMajorStrides(cf_dims));
}

StatusOr<Tensor> ChannelsFirstCopy(const Tensor& x) {
  std::vector<int64_t> cf = ops::ToChannelsFirst(x.shape().dims());
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(x.dtype(), Shape(cf)));
  RETURN_IF_ERROR(CopyBox(
      x, out, {.shape = cf, .src_strides = ChannelsLastStrides(cf), .dst_strides = RowMajorStrides(cf)}, nullptr));
  return out;
}

Status CopyToChannelsLast(const Tensor& cf, Tensor& cl) {
  const std::vector<int64_t>& dims = cf.shape().dims();
  return CopyBox(cf, cl,
                 {.shape = dims, .src_strides = RowMajorStrides(dims), .dst_strides = ChannelsLastStrides(dims)},
                 nullptr);
}

}  // namespace graphd::executor::cpu
