// GatherV2 (out-of-range indices are InvalidArgument), Slice, StridedSlice
// (core/ops/strided_slice.h), DynamicSlice, SelectV2 (three-way broadcasting) and OneHot.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/ops/strided_slice.h"
#include "executor/cpu/broadcast.h"
#include "executor/cpu/dispatch.h"
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

// "[1,2]" for flat position `i` of a tensor of shape `s` (for error messages).
std::string IndexString(const Shape& s, int64_t i) {
  std::vector<int64_t> index(s.rank());
  for (int k = s.rank() - 1; k >= 0; --k) {
    index[k] = s.dim(k) == 0 ? 0 : i % s.dim(k);
    i = s.dim(k) == 0 ? 0 : i / s.dim(k);
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

Status GatherFn(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const std::vector<int64_t>& pd = params.shape().dims();
  const std::vector<int64_t>& id = indices.shape().dims();
  const int prank = params.shape().rank(), irank = indices.shape().rank();
  int64_t axis = AttrOr<int64_t>(ctx.node(), "axis", 0);
  int64_t bd = AttrOr<int64_t>(ctx.node(), "batch_dims", 0);
  if (bd < 0) bd += irank;
  if (axis < -prank || axis >= prank) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for a tensor of rank ", prank));
  }
  axis = Canonical(axis, prank);
  if (bd < 0 || bd > irank || bd > axis) {
    return ctx.Error(absl::StrCat("batch_dims ", bd, " must be in [0, min(", irank, ", ", axis, ")]"));
  }
  for (int i = 0; i < bd; ++i) {
    if (pd[i] != id[i]) {
      return ctx.Error(absl::StrCat("params ", params.shape().ToString(), " and indices ",
                                    indices.shape().ToString(), " differ in batch dimension ", i));
    }
  }
  std::vector<int64_t> out_dims(pd.begin(), pd.begin() + axis);
  out_dims.insert(out_dims.end(), id.begin() + bd, id.end());
  out_dims.insert(out_dims.end(), pd.begin() + axis + 1, pd.end());
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(out_dims)));
  const int64_t batch = Product(pd, 0, static_cast<int>(bd));
  const int64_t outer = Product(pd, static_cast<int>(bd), static_cast<int>(axis));
  const int64_t n = pd[axis], inner = Product(pd, static_cast<int>(axis) + 1, prank);
  const int64_t per_batch = Product(id, static_cast<int>(bd), irank);
  // Indices as int64, checked once.
  std::vector<int64_t> idx(indices.num_elements());
  for (int64_t i = 0; i < indices.num_elements(); ++i) {
    idx[i] = indices.dtype() == DType::kInt32 ? indices.data<int32_t>()[i]
                                              : indices.data<int64_t>()[i];
    if (idx[i] < 0 || idx[i] >= n) {
      return ctx.Error(absl::StrCat("indices", IndexString(indices.shape(), i), " = ", idx[i],
                                    " is not in [0, ", n, ")"));
    }
  }
  if (out->num_elements() == 0) return absl::OkStatus();
  return DispatchElement(params.dtype(), [&]<typename T>() -> Status {
    const T* src = params.data<T>();
    T* dst = out->data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o = 0; o < outer; ++o) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        const T* block = src + (b * outer + o) * n * inner;
        T* out_block = dst + (b * outer + o) * per_batch * inner;
        for (int64_t j = 0; j < per_batch; ++j) {
          const T* from = block + idx[b * per_batch + j] * inner;
          if constexpr (std::is_trivially_copyable_v<T>) {
            std::memcpy(out_block + j * inner, from, static_cast<size_t>(inner) * sizeof(T));
          } else {
            std::copy(from, from + inner, out_block + j * inner);
          }
        }
      }
    }
    return absl::OkStatus();
  });
}

Status SliceFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const IntList begin = AttrOr<IntList>(ctx.node(), "begin", {});
  IntList size = AttrOr<IntList>(ctx.node(), "size", {});
  const int rank = x.shape().rank();
  if (static_cast<int>(begin.size()) != rank || static_cast<int>(size.size()) != rank) {
    return ctx.Error(absl::StrCat("begin and size must have ", rank, " entries for input ",
                                  x.shape().ToString()));
  }
  std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
  Box box{.src_strides = strides};
  for (int i = 0; i < rank; ++i) {
    const int64_t d = x.shape().dim(i);
    if (begin[i] < 0 || begin[i] > d) {
      return ctx.Error(absl::StrCat("expected begin[", i, "] in [0, ", d, "], got ", begin[i]));
    }
    if (size[i] == -1) size[i] = d - begin[i];
    if (size[i] < 0 || begin[i] + size[i] > d) {
      return ctx.Error(absl::StrCat("expected size[", i, "] in [0, ", d - begin[i], "], got ",
                                    size[i]));
    }
    box.src_offset += begin[i] * strides[i];
  }
  if (size == x.shape().dims()) {
    ctx.set_output(0, x);
    return absl::OkStatus();
  }
  box.shape = size;
  box.dst_strides = RowMajorStrides(size);
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(size)));
  return CopyBox(x, *out, std::move(box), &ctx.cancellation());
}

int64_t IntAt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kInt32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

// ONNX Slice semantics: negative bounds count from the end, then bounds are clamped.
Status DynamicSliceFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& starts = ctx.input(1);
  const Tensor& ends = ctx.input(2);
  const IntList axes = AttrOr<IntList>(ctx.node(), "axes", {});
  const IntList steps = AttrOr<IntList>(ctx.node(), "steps", IntList(axes.size(), 1));
  const int64_t n = static_cast<int64_t>(axes.size());
  if (starts.num_elements() != n || ends.num_elements() != n) {
    return ctx.Error(absl::StrCat("starts and ends must have ", n, " entries, got ", starts.num_elements(),
                                  " and ", ends.num_elements()));
  }
  std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
  std::vector<int64_t> dims = x.shape().dims();
  Box box{.src_strides = strides};
  for (int64_t j = 0; j < n; ++j) {
    const int64_t a = axes[j], st = steps[j], d = dims[a];
    int64_t b = IntAt(starts, j), e = IntAt(ends, j);
    if (b < 0) b += d;
    if (e < 0) e += d;
    int64_t count;
    if (st > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      count = e > b ? (e - b + st - 1) / st : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      count = b > e ? (b - e - st - 1) / -st : 0;
    }
    box.src_offset += b * strides[a];
    box.src_strides[a] = strides[a] * st;
    dims[a] = count;
  }
  box.shape = dims;
  box.dst_strides = RowMajorStrides(dims);
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(dims)));
  if (out->num_elements() == 0) return absl::OkStatus();
  return CopyBox(x, *out, std::move(box), &ctx.cancellation());
}

class StridedSliceKernel : public OpKernel {
 public:
  explicit StridedSliceKernel(ops::StridedSliceAttrs attrs) : attrs_(std::move(attrs)) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    auto plan = ops::PlanStridedSlice(x.shape(), attrs_);
    if (!plan.ok()) return ctx.Error(plan.status());
    std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dims());
    Box box{.shape = plan->processing_shape};
    for (int d = 0; d < x.shape().rank(); ++d) {
      box.src_offset += plan->begin[d] * in_strides[d];
      box.src_strides.push_back(plan->strides[d] * in_strides[d]);
    }
    box.dst_strides = RowMajorStrides(box.shape);
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(plan->final_shape)));
    return CopyBox(x, *out, std::move(box), &ctx.cancellation());
  }

 private:
  ops::StridedSliceAttrs attrs_;
};

Status SelectFn(KernelContext& ctx) {
  const Tensor& c = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  auto te = BroadcastShapes(t.shape(), e.shape());
  if (!te.ok()) return ctx.Error(te.status());
  auto shape = BroadcastShapes(c.shape(), *te);
  if (!shape.ok()) return ctx.Error(shape.status());
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, shape->ToShape()));
  const Shape& os = out->shape();
  const int64_t n = out->num_elements();
  if (n == 0) return absl::OkStatus();
  const std::vector<int64_t> sc = BroadcastStrides(c.shape(), os);
  const std::vector<int64_t> st = BroadcastStrides(t.shape(), os);
  const std::vector<int64_t> se = BroadcastStrides(e.shape(), os);
  const bool same = c.shape() == os && t.shape() == os && e.shape() == os;
  return DispatchElement(t.dtype(), [&]<typename T>() -> Status {
    const bool* pc = c.data<bool>();
    const T* pt = t.data<T>();
    const T* pe = e.data<T>();
    T* po = out->data<T>();
    if (same) {
      for (int64_t i = 0; i < n; ++i) {
        if (i % kCheckEvery == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
        po[i] = pc[i] ? pt[i] : pe[i];
      }
      return absl::OkStatus();
    }
    std::vector<int64_t> index(os.rank(), 0);
    int64_t ic = 0, it = 0, ie = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (i % kCheckEvery == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
      po[i] = pc[ic] ? pt[it] : pe[ie];
      for (int d = os.rank() - 1; d >= 0; --d) {
        ic += sc[d];
        it += st[d];
        ie += se[d];
        if (++index[d] < os.dim(d)) break;
        ic -= sc[d] * os.dim(d);
        it -= st[d] * os.dim(d);
        ie -= se[d] * os.dim(d);
        index[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

Status OneHotFn(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Node& node = ctx.node();
  const int64_t depth = AttrOr<int64_t>(node, "depth", 0);
  const int64_t axis_attr = AttrOr<int64_t>(node, "axis", -1);
  const int rank = indices.shape().rank();
  const int axis = axis_attr == -1 ? rank : static_cast<int>(axis_attr);
  if (axis < 0 || axis > rank) {
    return ctx.Error(absl::StrCat("axis ", axis_attr, " must be -1 or in [0, ", rank, "]"));
  }
  std::vector<int64_t> dims = indices.shape().dims();
  const int64_t prefix = Product(dims, 0, axis), suffix = Product(dims, axis, rank);
  dims.insert(dims.begin() + axis, depth);
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(dims)));
  return DispatchNumeric(out->dtype(), [&]<typename T>() -> Status {
    T* po = out->data<T>();
    const T on_v = NumberAttrAs<T>(node, "on_value", 1), off_v = NumberAttrAs<T>(node, "off_value", 0);
    std::fill(po, po + out->num_elements(), off_v);
    for (int64_t p = 0; p < prefix; ++p) {
      for (int64_t s = 0; s < suffix; ++s) {
        const int64_t flat = p * suffix + s;
        int64_t k = indices.dtype() == DType::kInt32   ? indices.data<int32_t>()[flat]
                    : indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[flat]
                                                       : indices.data<uint8_t>()[flat];
        if (k >= 0 && k < depth) po[(p * depth + k) * suffix + s] = on_v;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterIndexKernels(KernelRegistry& r) {
  r.Register("GatherV2", kCpu, DType::kInvalid, FnKernel::Factory(GatherFn));
  r.Register("Slice", kCpu, DType::kInvalid, FnKernel::Factory(SliceFn));
  r.Register("DynamicSlice", kCpu, DType::kInvalid, FnKernel::Factory(DynamicSliceFn));
  r.Register("StridedSlice", kCpu, DType::kInvalid,
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               ASSIGN_OR_RETURN(ops::StridedSliceAttrs attrs,
                                ops::ParseStridedSliceAttrs(node.attrs()));
               return std::make_unique<StridedSliceKernel>(std::move(attrs));
             });
  r.Register("SelectV2", kCpu, DType::kInvalid, FnKernel::Factory(SelectFn));
  r.Register("OneHot", kCpu, kCastDTypes, FnKernel::Factory(OneHotFn));
}

}  // namespace graphd::executor::cpu
