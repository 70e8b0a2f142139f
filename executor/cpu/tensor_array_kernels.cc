// TensorArrayWrite on the CPU (see core/ops/tensor_array_ops.cc).
#include <cstring>

#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

Status WriteFn(KernelContext& ctx) {
  const Tensor& buffer = ctx.input(0);
  const Tensor& index = ctx.input(1);
  const Tensor& value = ctx.input(2);
  int64_t i = index.dtype() == DType::kInt32 ? index.data<int32_t>()[0] : index.data<int64_t>()[0];
  if (i < 0) return ctx.Error(absl::StrCat("TensorArray index ", i, " is negative"));
  const bool empty = buffer.shape().rank() <= 1 && buffer.num_elements() == 0;
  int64_t rows = empty ? 0 : buffer.shape().dim(0);
  if (!empty) {
    std::vector<int64_t> elem(buffer.shape().dims().begin() + 1, buffer.shape().dims().end());
    if (elem != value.shape().dims()) {
      return ctx.Error("TensorArray elements have shape " + Shape(elem).ToString() + ", cannot write " +
                       value.shape().ToString());
    }
  }
  std::vector<int64_t> dims = {std::max(rows, i + 1)};
  dims.insert(dims.end(), value.shape().dims().begin(), value.shape().dims().end());
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(dims)));
  const int64_t row = value.num_elements();
  if (value.dtype() == DType::kString) {
    auto* o = out->data<std::string>();
    for (int64_t k = 0; k < rows * row; ++k) o[k] = buffer.data<std::string>()[k];
    for (int64_t k = 0; k < row; ++k) o[i * row + k] = value.data<std::string>()[k];
    return absl::OkStatus();
  }
  const size_t elem = DTypeSize(value.dtype());
  auto* o = static_cast<char*>(out->raw_data());
  std::memset(o, 0, out->bytes());
  if (rows > 0) std::memcpy(o, buffer.raw_data(), static_cast<size_t>(rows * row) * elem);
  if (row > 0) std::memcpy(o + static_cast<size_t>(i * row) * elem, value.raw_data(), static_cast<size_t>(row) * elem);
  return absl::OkStatus();
}

}  // namespace

void RegisterTensorArrayKernels(KernelRegistry& r) {
  r.Register("TensorArrayWrite", kCpu, DType::kInvalid, FnKernel::Factory(WriteFn));
}

}  // namespace graphd::executor::cpu
