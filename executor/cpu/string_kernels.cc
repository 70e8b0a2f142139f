// StringJoin (any number of string inputs, numpy broadcasting, a separator) and
// StringLength (bytes or UTF-8 characters).
#include "executor/cpu/broadcast.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

Status StringJoinFn(KernelContext& ctx) {
  const std::string sep = AttrOr<std::string>(ctx.node(), "separator", "");
  PartialShape shape(std::vector<int64_t>{});
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    auto s = BroadcastShapes(shape, ctx.input(i).shape());
    if (!s.ok()) return ctx.Error(s.status());
    shape = *s;
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, shape.ToShape()));
  const Shape& os = out->shape();
  const int k = ctx.num_inputs();
  std::vector<std::vector<int64_t>> strides;
  for (int i = 0; i < k; ++i) strides.push_back(BroadcastStrides(ctx.input(i).shape(), os));
  std::vector<int64_t> index(os.rank(), 0), offset(k, 0);
  std::string* po = out->data<std::string>();
  for (int64_t e = 0; e < out->num_elements(); ++e) {
    if (e % kCheckEvery == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
    std::string& s = po[e];
    for (int i = 0; i < k; ++i) {
      if (i > 0) s += sep;
      s += ctx.input(i).data<std::string>()[offset[i]];
    }
    for (int d = os.rank() - 1; d >= 0; --d) {
      for (int i = 0; i < k; ++i) offset[i] += strides[i][d];
      if (++index[d] < os.dim(d)) break;
      for (int i = 0; i < k; ++i) offset[i] -= strides[i][d] * os.dim(d);
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

Status StringLengthFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const bool utf8 = AttrOr<std::string>(ctx.node(), "unit", "BYTE") == "UTF8_CHAR";
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, x.shape()));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const std::string& s = x.data<std::string>()[i];
    int64_t n = static_cast<int64_t>(s.size());
    if (utf8) {  // count the bytes that start a character (not 10xxxxxx)
      n = 0;
      for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
    }
    out->data<int32_t>()[i] = static_cast<int32_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterStringKernels(KernelRegistry& r) {
  r.Register("StringJoin", kCpu, DType::kString, FnKernel::Factory(StringJoinFn));
  r.Register("StringLength", kCpu, DType::kInt32, FnKernel::Factory(StringLengthFn));
}

}  // namespace graphd::executor::cpu
