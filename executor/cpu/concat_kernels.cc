// ConcatV2 and Pack (many inputs into one), Unpack, Split and SplitV (one input into
// many): each piece is an [outer, width] block copy between the input and the output;
// large joins copy their rows on the intra-op threads.
#include <omp.h>

#include <cstring>

#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/strided_copy.h"

namespace graphd::executor::cpu {
namespace {

int64_t Product(const std::vector<int64_t>& dims, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; ++i) p *= dims[i];
  return p;
}

// Joins whose output has at least this many bytes split their rows across the intra-op
// threads (DenseNet's channel concats of whole feature maps, channels-last: a run per
// pixel and input).
constexpr size_t kParallelJoinBytes = size_t{1} << 18;

// The join's rows [0, outer) split across the intra-op team: output row r is each
// input's row r (`widths[i]` elements) side by side. Byte copies: not for strings.
void JoinRows(KernelContext& ctx, const std::vector<int64_t>& widths, int64_t outer, int64_t out_row, Tensor& out) {
  const int64_t elem = static_cast<int64_t>(DTypeSize(out.dtype()));
  const int n = ctx.num_inputs();
  std::vector<const char*> src(n);
  for (int i = 0; i < n; ++i) src[i] = static_cast<const char*>(ctx.input(i).raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  const int team = TeamThreads();
#pragma omp parallel for num_threads(team) schedule(static)
  for (int64_t r = 0; r < outer; ++r) {
    char* row = dst + r * out_row * elem;
    for (int i = 0; i < n; ++i) {
      const int64_t bytes = widths[i] * elem;
      std::memcpy(row, src[i] + r * bytes, static_cast<size_t>(bytes));
      row += bytes;
    }
  }
}

// Copies `inputs` side by side along `axis` of `out`; `pack` treats each input as having
// an extra dimension of size 1 at `axis`.
Status JoinFn(KernelContext& ctx, bool pack) {
  const Tensor& first = ctx.input(0);
  const int in_rank = first.shape().rank();
  const int rank = pack ? in_rank + 1 : in_rank;
  const int64_t axis_attr = AttrOr<int64_t>(ctx.node(), "axis", 0);
  if (axis_attr < -rank || axis_attr >= rank) {
    return ctx.Error(absl::StrCat("axis ", axis_attr, " is out of range for a tensor of rank ", rank));
  }
  const int axis = Canonical(axis_attr, rank);
  std::vector<int64_t> out_dims = first.shape().dims();
  if (pack) out_dims.insert(out_dims.begin() + axis, 0);
  out_dims[axis] = 0;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    std::vector<int64_t> dims = ctx.input(i).shape().dims();
    if (pack) dims.insert(dims.begin() + axis, 1);
    bool ok = static_cast<int>(dims.size()) == rank;
    for (int k = 0; ok && k < rank; ++k) ok = k == axis || dims[k] == out_dims[k];
    if (!ok) {
      return ctx.Error(absl::StrCat("input ", i, " has shape ", ctx.input(i).shape().ToString(),
                                    ", incompatible with input 0's ", first.shape().ToString()));
    }
    out_dims[axis] += dims[axis];
  }
  if (ctx.num_inputs() == 1 && !pack) {
    ctx.set_output(0, first);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(out_dims)));
  const int64_t outer = Product(out_dims, 0, axis), inner = Product(out_dims, axis + 1, rank);
  const int64_t out_row = out_dims[axis] * inner;
  if (first.dtype() != DType::kString && out->bytes() >= kParallelJoinBytes && outer > 1) {
    std::vector<int64_t> widths;
    for (int i = 0; i < ctx.num_inputs(); ++i) widths.push_back((pack ? 1 : ctx.input(i).shape().dim(axis)) * inner);
    RETURN_IF_ERROR(ctx.cancellation().Check());
    JoinRows(ctx, widths, outer, out_row, *out);
    return absl::OkStatus();
  }
  int64_t offset = 0;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const int64_t width = (pack ? 1 : ctx.input(i).shape().dim(axis)) * inner;
    RETURN_IF_ERROR(CopyBox(ctx.input(i), *out,
                            Box{.shape = {outer, width}, .src_strides = {width, 1},
                                .dst_strides = {out_row, 1}, .dst_offset = offset},
                            &ctx.cancellation()));
    offset += width;
  }
  return absl::OkStatus();
}

// Copies consecutive pieces of `sizes` along `axis` into the outputs; `drop` removes
// the axis from the outputs' shapes (Unpack).
Status SplitInto(KernelContext& ctx, int axis, const std::vector<int64_t>& sizes, bool drop) {
  const Tensor& x = ctx.input(0);
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t outer = Product(dims, 0, axis), inner = Product(dims, axis + 1, x.shape().rank());
  const int64_t in_row = dims[axis] * inner;
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<int64_t> piece = dims;
    if (drop) {
      piece.erase(piece.begin() + axis);
    } else {
      piece[axis] = sizes[i];
    }
    if (sizes.size() == 1 && !drop) {
      ctx.set_output(0, x);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(static_cast<int>(i), Shape(piece)));
    const int64_t width = sizes[i] * inner;
    RETURN_IF_ERROR(CopyBox(x, *out,
                            Box{.shape = {outer, width}, .src_strides = {in_row, 1},
                                .dst_strides = {width, 1}, .src_offset = offset},
                            &ctx.cancellation()));
    offset += width;
  }
  return absl::OkStatus();
}

StatusOr<int> AxisOf(KernelContext& ctx, int rank) {
  const int64_t axis = AttrOr<int64_t>(ctx.node(), "axis", 0);
  if (axis < -rank || axis >= rank) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for a tensor of rank ", rank));
  }
  return Canonical(axis, rank);
}

Status UnpackFn(KernelContext& ctx) {
  const Shape& s = ctx.input(0).shape();
  ASSIGN_OR_RETURN(int axis, AxisOf(ctx, s.rank()));
  if (s.dim(axis) != ctx.node().num_outputs()) {
    return ctx.Error(absl::StrCat("dimension ", axis, " of ", s.ToString(), " is not ",
                                  ctx.node().num_outputs()));
  }
  return SplitInto(ctx, axis, std::vector<int64_t>(s.dim(axis), 1), true);
}

Status SplitFn(KernelContext& ctx) {
  const Shape& s = ctx.input(0).shape();
  ASSIGN_OR_RETURN(int axis, AxisOf(ctx, s.rank()));
  const int64_t num = ctx.node().num_outputs();
  if (s.dim(axis) % num != 0) {
    return ctx.Error(absl::StrCat("dimension ", axis, " of ", s.ToString(),
                                  " is not divisible by num_split ", num));
  }
  return SplitInto(ctx, axis, std::vector<int64_t>(num, s.dim(axis) / num), false);
}

Status SplitVFn(KernelContext& ctx) {
  const Shape& s = ctx.input(0).shape();
  ASSIGN_OR_RETURN(int axis, AxisOf(ctx, s.rank()));
  std::vector<int64_t> sizes = AttrOr<IntList>(ctx.node(), "size_splits", {});
  int64_t known = 0;
  int unknown = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) {
      unknown = static_cast<int>(i);
    } else {
      known += sizes[i];
    }
  }
  if (unknown >= 0 && known <= s.dim(axis)) sizes[unknown] = s.dim(axis) - known;
  if ((unknown >= 0 && known > s.dim(axis)) || (unknown < 0 && known != s.dim(axis))) {
    return ctx.Error(absl::StrCat("size_splits [", absl::StrJoin(sizes, ","),
                                  "] do not add up to dimension ", axis, " of ", s.ToString()));
  }
  return SplitInto(ctx, axis, sizes, false);
}

}  // namespace

void RegisterConcatKernels(KernelRegistry& r) {
  r.Register("ConcatV2", kCpu, DType::kInvalid,
             FnKernel::Factory([](KernelContext& ctx) { return JoinFn(ctx, false); }));
  r.Register("Pack", kCpu, DType::kInvalid,
             FnKernel::Factory([](KernelContext& ctx) { return JoinFn(ctx, true); }));
  r.Register("Unpack", kCpu, DType::kInvalid, FnKernel::Factory(UnpackFn));
  r.Register("Split", kCpu, DType::kInvalid, FnKernel::Factory(SplitFn));
  r.Register("SplitV", kCpu, DType::kInvalid, FnKernel::Factory(SplitVFn));
}

}  // namespace graphd::executor::cpu
