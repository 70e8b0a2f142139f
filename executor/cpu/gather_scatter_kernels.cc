// GatherElements, GatherNd, ScatterElements and the TensorScatter* ops (semantics in
// core/ops/gather_scatter_ops.cc). Each kernel first turns its indices into validated
// flat offsets (one per index element or index tuple), then moves or combines
// elements of the real dtype: DispatchElement where elements are only moved (any
// dtype, strings included), DispatchNumeric where they are combined.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "executor/cpu/broadcast.h"  // kCheckEvery
#include "executor/cpu/dispatch.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/wrap_math.h"

namespace graphd::executor::cpu {
namespace {

enum class Reduce { kNone, kAdd, kSub, kMul, kMax, kMin };

Reduce ReduceFromName(absl::string_view name) {
  if (name == "add") return Reduce::kAdd;
  if (name == "mul") return Reduce::kMul;
  if (name == "max") return Reduce::kMax;
  if (name == "min") return Reduce::kMin;
  return Reduce::kNone;
}

int64_t IndexAt(const Tensor& indices, int64_t i) {
  return indices.dtype() == DType::kInt32 ? int64_t{indices.data<int32_t>()[i]}
                                          : indices.data<int64_t>()[i];
}

// `i` made non-negative for a dimension of `size`; an error outside [-size, size).
StatusOr<int64_t> Normalize(KernelContext& ctx, int64_t i, int64_t size, int dim,
                            const Shape& shape) {
  if (i < -size || i >= size) {
    return ctx.Error(absl::StrCat("index ", i, " is out of range [", -size, ", ", size,
                                  ") in dimension ", dim, " of ", shape.ToString()));
  }
  return i < 0 ? i + size : i;
}

std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int d = shape.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dim(d + 1);
  return strides;
}

// For each element of `indices` (same rank as `data`, no larger off `axis`), the flat
// offset in `data` it addresses: its own position off `axis`, its value on `axis`.
StatusOr<std::vector<int64_t>> ElementOffsets(KernelContext& ctx, const Shape& data,
                                              const Tensor& indices, int axis) {
  const Shape& is = indices.shape();
  if (is.rank() != data.rank()) {
    return ctx.Error(
        absl::StrCat("indices ", is.ToString(), " and data ", data.ToString(), " differ in rank"));
  }
  for (int d = 0; d < is.rank(); ++d) {
    if (d != axis && is.dim(d) > data.dim(d)) {
      return ctx.Error(absl::StrCat("indices ", is.ToString(), " exceed data ", data.ToString(),
                                    " in dimension ", d));
    }
  }
  const std::vector<int64_t> stride = Strides(data);
  std::vector<int64_t> offsets(indices.num_elements());
  std::vector<int64_t> pos(is.rank(), 0);
  int64_t base = 0;  // the offset of `pos` with 0 on `axis`
  for (int64_t p = 0; p < indices.num_elements(); ++p) {
    if (p % kCheckEvery == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
    ASSIGN_OR_RETURN(int64_t i, Normalize(ctx, IndexAt(indices, p), data.dim(axis), axis, data));
    offsets[p] = base + i * stride[axis];
    for (int d = is.rank() - 1; d >= 0; --d) {
      if (d != axis) base += stride[d];
      if (++pos[d] < is.dim(d)) break;
      if (d != axis) base -= stride[d] * is.dim(d);
      pos[d] = 0;
    }
  }
  return offsets;
}

// For each index tuple (the last dim of `indices`, depth r) the flat offset of the
// slice of `data` it selects, within batch entry (tuple / per_batch) of the first
// `batch_dims` dims. `slice` receives the slice's element count.
StatusOr<std::vector<int64_t>> SliceOffsets(KernelContext& ctx, const Shape& data,
                                            const Tensor& indices, int batch_dims, int64_t* slice) {
  const Shape& is = indices.shape();
  const int64_t r = is.rank() > 0 ? is.dim(is.rank() - 1) : 0;
  if (is.rank() < batch_dims + 1 || r < 1 || batch_dims + r > data.rank()) {
    return ctx.Error(absl::StrCat("indices ", is.ToString(), " do not index ", data.ToString(),
                                  " with batch_dims ", batch_dims));
  }
  int64_t batch = 1;
  for (int d = 0; d < batch_dims; ++d) {
    if (is.dim(d) != data.dim(d)) {
      return ctx.Error(absl::StrCat("data ", data.ToString(), " and indices ", is.ToString(),
                                    " differ in batch dimension ", d));
    }
    batch *= data.dim(d);
  }
  const std::vector<int64_t> stride = Strides(data);
  *slice = 1;
  for (int d = batch_dims + static_cast<int>(r); d < data.rank(); ++d) *slice *= data.dim(d);
  const int64_t tuples = r == 0 ? 0 : indices.num_elements() / r;
  const int64_t per_batch = batch == 0 ? 0 : tuples / batch;
  const int64_t batch_size = batch_dims == 0 ? 0 : stride[batch_dims - 1];
  std::vector<int64_t> offsets(tuples);
  for (int64_t t = 0; t < tuples; ++t) {
    if (t % kCheckEvery == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
    int64_t off = batch_dims == 0 ? 0 : (t / per_batch) * batch_size;
    for (int k = 0; k < r; ++k) {
      const int d = batch_dims + k;
      ASSIGN_OR_RETURN(int64_t i,
                       Normalize(ctx, IndexAt(indices, t * r + k), data.dim(d), d, data));
      off += i * stride[d];
    }
    offsets[t] = off;
  }
  return offsets;
}

template <typename T>
void Combine(Reduce reduce, T& dst, const T& src) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    switch (reduce) {
      case Reduce::kAdd: dst = WrapAdd(dst, src); return;
      case Reduce::kSub: dst = WrapSub(dst, src); return;
      case Reduce::kMul: dst = WrapMul(dst, src); return;
      case Reduce::kMax: dst = std::max(dst, src); return;
      case Reduce::kMin: dst = std::min(dst, src); return;
      case Reduce::kNone: break;
    }
  }
  dst = src;
}

// out = copy of `data`, then out[offsets[j] + e] (combined with) updates[j * slice + e].
Status ScatterInto(KernelContext& ctx, Reduce reduce, const Tensor& data, const Tensor& updates,
                   const std::vector<int64_t>& offsets, int64_t slice) {
  if (updates.num_elements() != static_cast<int64_t>(offsets.size()) * slice) {
    return ctx.Error(absl::StrCat("updates ", updates.shape().ToString(), " do not match ",
                                  offsets.size(), " indices of slices of ", slice, " elements"));
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, data.shape()));
  auto run = [&]<typename T>() -> Status {
    const T* src = data.data<T>();
    std::copy(src, src + data.num_elements(), out->data<T>());
    T* dst = out->data<T>();
    const T* upd = updates.data<T>();
    for (size_t j = 0; j < offsets.size(); ++j) {
      for (int64_t e = 0; e < slice; ++e)
        Combine<T>(reduce, dst[offsets[j] + e], upd[j * slice + e]);
    }
    return absl::OkStatus();
  };
  if (reduce == Reduce::kNone) return DispatchElement(data.dtype(), run);
  return DispatchNumeric(data.dtype(), [&]<typename T>() -> Status {
    if constexpr (std::is_same_v<T, bool>) {
      return ctx.Error("bool is not supported by a combining scatter");
    } else {
      return run.template operator()<T>();
    }
  });
}

Status GatherElementsFn(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const int axis = Canonical(AttrOr<int64_t>(ctx.node(), "axis", 0), data.shape().rank());
  ASSIGN_OR_RETURN(std::vector<int64_t> offsets, ElementOffsets(ctx, data.shape(), indices, axis));
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, indices.shape()));
  return DispatchElement(data.dtype(), [&]<typename T>() -> Status {
    const T* in = data.data<T>();
    T* o = out->data<T>();
    for (size_t p = 0; p < offsets.size(); ++p) o[p] = in[offsets[p]];
    return absl::OkStatus();
  });
}

Status GatherNdFn(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const int b = static_cast<int>(AttrOr<int64_t>(ctx.node(), "batch_dims", 0));
  int64_t slice = 0;
  ASSIGN_OR_RETURN(std::vector<int64_t> offsets,
                   SliceOffsets(ctx, params.shape(), indices, b, &slice));
  const Shape& is = indices.shape();
  std::vector<int64_t> dims(is.dims().begin(), is.dims().end() - 1);
  const int r = static_cast<int>(is.dim(is.rank() - 1));
  dims.insert(dims.end(), params.shape().dims().begin() + b + r, params.shape().dims().end());
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(dims)));
  return DispatchElement(params.dtype(), [&]<typename T>() -> Status {
    const T* in = params.data<T>();
    T* o = out->data<T>();
    for (size_t j = 0; j < offsets.size(); ++j) {
      std::copy(in + offsets[j], in + offsets[j] + slice, o + j * slice);
    }
    return absl::OkStatus();
  });
}

KernelFactory ScatterElementsFactory() {
  return [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const Reduce reduce = ReduceFromName(AttrOr<std::string>(node, "reduction", "none"));
    const int64_t axis_attr = AttrOr<int64_t>(node, "axis", 0);
    return std::make_unique<FnKernel>([=](KernelContext& ctx) -> Status {
      const Tensor& data = ctx.input(0);
      const Tensor& indices = ctx.input(1);
      const Tensor& updates = ctx.input(2);
      if (indices.shape() != updates.shape()) {
        return ctx.Error(absl::StrCat("indices ", indices.shape().ToString(), " and updates ",
                                      updates.shape().ToString(), " differ in shape"));
      }
      const int axis = Canonical(axis_attr, data.shape().rank());
      ASSIGN_OR_RETURN(std::vector<int64_t> offsets,
                       ElementOffsets(ctx, data.shape(), indices, axis));
      return ScatterInto(ctx, reduce, data, updates, offsets, 1);
    });
  };
}

KernelFactory TensorScatterFactory(Reduce reduce) {
  return FnKernel::Factory([reduce](KernelContext& ctx) -> Status {
    const Tensor& tensor = ctx.input(0);
    int64_t slice = 0;
    ASSIGN_OR_RETURN(std::vector<int64_t> offsets,
                     SliceOffsets(ctx, tensor.shape(), ctx.input(1), 0, &slice));
    return ScatterInto(ctx, reduce, tensor, ctx.input(2), offsets, slice);
  });
}

}  // namespace

void RegisterGatherScatterKernels(KernelRegistry& r) {
  // Kernels that move elements serve every dtype (DType::kInvalid); ScatterElements
  // and TensorScatterUpdate check for numbers when asked to combine.
  r.Register("GatherElements", kCpu, DType::kInvalid, FnKernel::Factory(GatherElementsFn));
  r.Register("GatherNd", kCpu, DType::kInvalid, FnKernel::Factory(GatherNdFn));
  r.Register("ScatterElements", kCpu, DType::kInvalid, ScatterElementsFactory());
  r.Register("TensorScatterUpdate", kCpu, DType::kInvalid, TensorScatterFactory(Reduce::kNone));
  r.Register("TensorScatterAdd", kCpu, kArithmeticDTypes, TensorScatterFactory(Reduce::kAdd));
  r.Register("TensorScatterSub", kCpu, kArithmeticDTypes, TensorScatterFactory(Reduce::kSub));
  r.Register("TensorScatterMul", kCpu, kArithmeticDTypes, TensorScatterFactory(Reduce::kMul));
  r.Register("TensorScatterMax", kCpu, kArithmeticDTypes, TensorScatterFactory(Reduce::kMax));
  r.Register("TensorScatterMin", kCpu, kArithmeticDTypes, TensorScatterFactory(Reduce::kMin));
}

}  // namespace graphd::executor::cpu
