// Shape, Size, Rank; ExpandDims and Squeeze (views of the input's buffer); BroadcastTo.
#include <set>

#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/strided_copy.h"

namespace graphd::executor::cpu {
namespace {

// Writes `values` to output 0 as int32 or int64 (its dtype); int32 must hold them.
Status WriteInts(KernelContext& ctx, const std::vector<int64_t>& values, const Shape& shape) {
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, shape));
  for (size_t i = 0; i < values.size(); ++i) {
    if (out->dtype() == DType::kInt64) {
      out->data<int64_t>()[i] = values[i];
    } else if (values[i] > std::numeric_limits<int32_t>::max()) {
      return ctx.Error(absl::StrCat(values[i], " does not fit in int32; use out_type int64"));
    } else {
      out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
  }
  return absl::OkStatus();
}

Status ShapeFn(KernelContext& ctx) {
  const Shape& s = ctx.input(0).shape();
  return WriteInts(ctx, s.dims(), Shape({s.rank()}));
}

Status SizeFn(KernelContext& ctx) { return WriteInts(ctx, {ctx.input(0).num_elements()}, Shape()); }

Status RankFn(KernelContext& ctx) { return WriteInts(ctx, {ctx.input(0).shape().rank()}, Shape()); }

Status SetView(KernelContext& ctx, std::vector<int64_t> dims) {
  auto out = ctx.input(0).Reshaped(Shape(std::move(dims)));
  if (!out.ok()) return ctx.Error(out.status());
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

Status ExpandDimsFn(KernelContext& ctx) {
  const Shape& s = ctx.input(0).shape();
  const int64_t axis = AttrOr<int64_t>(ctx.node(), "axis", 0);
  if (axis < -s.rank() - 1 || axis > s.rank()) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for a tensor of rank ",
                                  s.rank() + 1));
  }
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + Canonical(axis, s.rank() + 1), 1);
  return SetView(ctx, std::move(dims));
}

Status SqueezeFn(KernelContext& ctx) {
  const Shape& s = ctx.input(0).shape();
  const IntList axes = AttrOr<IntList>(ctx.node(), "squeeze_dims", {});
  std::set<int> squeeze;
  for (int64_t a : axes) {
    if (a < -s.rank() || a >= s.rank()) {
      return ctx.Error(absl::StrCat("axis ", a, " is out of range for a tensor of rank ", s.rank()));
    }
    int axis = Canonical(a, s.rank());
    if (s.dim(axis) != 1) {
      return ctx.Error(absl::StrCat("cannot squeeze dimension ", a, " of shape ", s.ToString(),
                                    ": its size is ", s.dim(axis), ", not 1"));
    }
    squeeze.insert(axis);
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < s.rank(); ++i) {
    if (!(axes.empty() ? s.dim(i) == 1 : squeeze.contains(i))) dims.push_back(s.dim(i));
  }
  return SetView(ctx, std::move(dims));
}

Status BroadcastToFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const IntList target = AttrOr<IntList>(ctx.node(), "shape", {});
  const int rank = static_cast<int>(target.size()), in_rank = x.shape().rank();
  Box box{.shape = target, .dst_strides = RowMajorStrides(target)};
  std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dims());
  bool ok = in_rank <= rank;
  box.src_strides.assign(rank, 0);
  for (int i = 0; ok && i < in_rank; ++i) {
    int o = rank - in_rank + i;
    int64_t d = x.shape().dim(i);
    ok = d == target[o] || d == 1;
    box.src_strides[o] = d == 1 ? 0 : in_strides[i];
  }
  if (!ok) {
    return ctx.Error(absl::StrCat("cannot broadcast shape ", x.shape().ToString(), " to [",
                                  absl::StrJoin(target, ","), "]"));
  }
  if (x.shape().dims() == target) {
    ctx.set_output(0, x);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(target)));
  return CopyBox(x, *out, std::move(box), &ctx.cancellation());
}

}  // namespace

void RegisterShapeKernels(KernelRegistry& r) {
  const auto ints = {DType::kInt32, DType::kInt64};
  r.Register("Shape", kCpu, ints, FnKernel::Factory(ShapeFn));
  r.Register("Size", kCpu, ints, FnKernel::Factory(SizeFn));
  r.Register("Rank", kCpu, DType::kInt32, FnKernel::Factory(RankFn));
  r.Register("ExpandDims", kCpu, DType::kInvalid, FnKernel::Factory(ExpandDimsFn));
  r.Register("Squeeze", kCpu, DType::kInvalid, FnKernel::Factory(SqueezeFn));
  r.Register("BroadcastTo", kCpu, DType::kInvalid, FnKernel::Factory(BroadcastToFn));
}

}  // namespace graphd::executor::cpu
