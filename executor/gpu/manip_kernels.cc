// Transpose, BroadcastTo, Slice and StridedSlice (gathers over permuted, zero or
// slicing strides, permute.cu) and ConcatV2 (one strided 2-D copy per input,
// cudaMemcpy2DAsync) on the GPU, for every fixed-size dtype.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ops/strided_slice.h"
#include "executor/gpu/cudnn_ops.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

bool FixedSize(DType d) { return d != DType::kString && d != DType::kInvalid; }

bool AcceptFixedSize(const Node& node) {
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    if (!FixedSize(InputDType(node, i))) return false;
  }
  return node.num_outputs() == 1 && FixedSize(node.output(0).dtype);
}

class TransposeKernel : public GpuKernel {
 public:
  TransposeKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node)
      : GpuKernel(std::move(runtime)),
        has_perm_(node.attrs().contains("perm")),
        perm_(AttrOr<IntList>(node, "perm", {})) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    IntList perm = perm_;
    if (!has_perm_) {
      for (int i = x.shape().rank() - 1; i >= 0; --i) perm.push_back(i);
    }
    ASSIGN_OR_RETURN(Tensor y, Permuted(runtime(), x, perm, stream));
    ctx.set_output(0, std::move(y));
    return absl::OkStatus();
  }

 private:
  const bool has_perm_;
  const IntList perm_;
};

// y (shape `out`) = the elements of x at base + sum(coord[d] * strides[d]) for each
// coordinate of `dims` (row-major; strides may be negative): Slice and StridedSlice.
StatusOr<Tensor> StridedGather(const GpuRuntime& rt, DType dtype, const Tensor& x, int64_t base,
                               const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, const Shape& out,
                               cudaStream_t stream) {
  if (dims.size() > static_cast<size_t>(kMaxKernelRank)) {
    return errors::InvalidArgument(absl::StrCat("rank ", dims.size(), " exceeds ", kMaxKernelRank));
  }
  PermuteIndex index;
  index.rank = static_cast<int>(dims.size());
  for (int d = 0; d < index.rank; ++d) {
    index.dims[d] = dims[d];
    index.in_strides[d] = strides[d];
  }
  ASSIGN_OR_RETURN(Tensor y, rt.Allocate(dtype, out, stream));
  if (y.num_elements() == 0) return y;
  const size_t elem = DTypeSize(dtype);
  const char* src = static_cast<const char*>(x.raw_data()) + base * static_cast<int64_t>(elem);
  RETURN_IF_ERROR(CudaCall(LaunchPermute(static_cast<int>(elem), src, y.raw_data(), y.num_elements(), index, stream),
                           "slice kernel launch"));
  return y;
}

std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.rank());
  int64_t stride = 1;
  for (int d = s.rank() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= s.dim(d);
  }
  return strides;
}

class SliceKernel : public GpuKernel {
 public:
  SliceKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node)
      : GpuKernel(std::move(runtime)),
        begin_(AttrOr<IntList>(node, "begin", {})),
        size_(AttrOr<IntList>(node, "size", {})) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    const int rank = x.shape().rank();
    if (static_cast<int>(begin_.size()) != rank || static_cast<int>(size_.size()) != rank) {
      return errors::InvalidArgument(
          absl::StrCat("begin and size must have ", rank, " entries for input ", x.shape().ToString()));
    }
    const std::vector<int64_t> strides = RowMajorStrides(x.shape());
    std::vector<int64_t> size = size_;
    int64_t base = 0;
    for (int i = 0; i < rank; ++i) {
      const int64_t d = x.shape().dim(i);
      if (begin_[i] < 0 || begin_[i] > d) {
        return errors::InvalidArgument(absl::StrCat("expected begin[", i, "] in [0, ", d, "], got ", begin_[i]));
      }
      if (size[i] == -1) size[i] = d - begin_[i];
      if (size[i] < 0 || begin_[i] + size[i] > d) {
        return errors::InvalidArgument(
            absl::StrCat("expected size[", i, "] in [0, ", d - begin_[i], "], got ", size[i]));
      }
      base += begin_[i] * strides[i];
    }
    ASSIGN_OR_RETURN(Tensor y, StridedGather(runtime(), x.dtype(), x, base, size, strides, Shape(size), stream));
    ctx.set_output(0, std::move(y));
    return absl::OkStatus();
  }

 private:
  const IntList begin_, size_;
};

class StridedSliceKernel : public GpuKernel {
 public:
  StridedSliceKernel(std::shared_ptr<GpuRuntime> runtime, ops::StridedSliceAttrs attrs)
      : GpuKernel(std::move(runtime)), attrs_(std::move(attrs)) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(ops::StridedSlicePlan plan, ops::PlanStridedSlice(x.shape(), attrs_));
    const std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
    std::vector<int64_t> strides;
    int64_t base = 0;
    for (int d = 0; d < x.shape().rank(); ++d) {
      base += plan.begin[d] * in_strides[d];
      strides.push_back(plan.strides[d] * in_strides[d]);
    }
    ASSIGN_OR_RETURN(Tensor y, StridedGather(runtime(), x.dtype(), x, base, plan.processing_shape, strides,
                                             Shape(plan.final_shape), stream));
    ctx.set_output(0, std::move(y));
    return absl::OkStatus();
  }

 private:
  const ops::StridedSliceAttrs attrs_;
};

// NumPy broadcasting of the input to the `shape` attribute.
class BroadcastToKernel : public GpuKernel {
 public:
  BroadcastToKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node)
      : GpuKernel(std::move(runtime)), shape_(AttrOr<IntList>(node, "shape", {})) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    const int rank = static_cast<int>(shape_.size()), in_rank = x.shape().rank();
    if (rank > kMaxKernelRank || in_rank > rank) {
      return errors::InvalidArgument(absl::StrCat("cannot broadcast ", x.shape().ToString(), " to rank ", rank));
    }
    PermuteIndex index;
    index.rank = rank;
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int i = d - (rank - in_rank);
      const int64_t in = i >= 0 ? x.shape().dim(i) : 1;
      if (in != shape_[d] && in != 1) {
        return errors::InvalidArgument(
            absl::StrCat("cannot broadcast ", x.shape().ToString(), " to [", absl::StrJoin(shape_, ","), "]"));
      }
      index.dims[d] = shape_[d];
      index.in_strides[d] = in == 1 ? 0 : stride;
      stride *= in;
    }
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, Shape(shape_), stream));
    return CudaCall(LaunchPermute(static_cast<int>(DTypeSize(x.dtype())), x.raw_data(), y.raw_data(), y.num_elements(),
                                  index, stream),
                    "BroadcastTo kernel launch");
  }

 private:
  const IntList shape_;
};

class ConcatKernel : public GpuKernel {
 public:
  ConcatKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node)
      : GpuKernel(std::move(runtime)), axis_(AttrOr<int64_t>(node, "axis", 0)) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Shape& first = ctx.input(0).shape();
    const int rank = first.rank();
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    if (axis < 0 || axis >= rank) {
      return errors::InvalidArgument(absl::StrCat("axis ", axis_, " is out of range for ", first.ToString()));
    }
    std::vector<int64_t> dims = first.dims();
    dims[axis] = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Shape& s = ctx.input(i).shape();
      for (int d = 0; d < rank; ++d) {
        if (s.rank() != rank || (d != axis && s.dim(d) != first.dim(d))) {
          return errors::InvalidArgument(absl::StrCat("input ", i, " ", s.ToString(), " does not match ",
                                                      first.ToString(), " outside axis ", axis));
        }
      }
      dims[axis] += s.dim(static_cast<int>(axis));
    }
    const Shape out_shape(dims);
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, out_shape, stream));
    if (y.num_elements() == 0) return absl::OkStatus();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= dims[d];
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) inner *= dims[d];
    const size_t elem = DTypeSize(y.dtype());
    const size_t dst_pitch = static_cast<size_t>(dims[axis] * inner) * elem;
    size_t offset = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      const size_t width = static_cast<size_t>(x.shape().dim(static_cast<int>(axis)) * inner) * elem;
      if (width > 0) {
        RETURN_IF_ERROR(
            CudaCall(cudaMemcpy2DAsync(static_cast<char*>(y.raw_data()) + offset, dst_pitch, x.raw_data(), width, width,
                                       static_cast<size_t>(outer), cudaMemcpyDeviceToDevice, stream),
                     absl::StrCat("cudaMemcpy2DAsync (ConcatV2 input ", i, ")")));
      }
      offset += width;
    }
    return absl::OkStatus();
  }

 private:
  const int64_t axis_;
};

}  // namespace

void RegisterGpuManipKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  table.Add(
      "Transpose", {DType::kInvalid},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(new TransposeKernel(runtime, node));
      },
      [](const Node& node) {
        const PartialShape& s = node.inputs()[0].node->output(node.inputs()[0].index).shape;
        const size_t size = DTypeSize(InputDType(node, 0));
        return AcceptFixedSize(node) && s.known_rank() && s.rank() <= kMaxKernelRank &&
               (size == 1 || size == 2 || size == 4 || size == 8);
      });
  // Input of known rank <= kMaxKernelRank and an element size the gather moves.
  auto gatherable = [](const Node& node) {
    const PartialShape& s = node.inputs()[0].node->output(node.inputs()[0].index).shape;
    const size_t size = DTypeSize(InputDType(node, 0));
    return AcceptFixedSize(node) && s.known_rank() && s.rank() <= kMaxKernelRank &&
           (size == 1 || size == 2 || size == 4 || size == 8);
  };
  table.Add(
      "Slice", {DType::kInvalid},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(new SliceKernel(runtime, node));
      },
      gatherable);
  table.Add(
      "StridedSlice", {DType::kInvalid},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        ASSIGN_OR_RETURN(ops::StridedSliceAttrs attrs, ops::ParseStridedSliceAttrs(node.attrs()));
        return std::unique_ptr<OpKernel>(new StridedSliceKernel(runtime, std::move(attrs)));
      },
      [gatherable](const Node& node) { return gatherable(node) && ops::ParseStridedSliceAttrs(node.attrs()).ok(); });
  table.Add(
      "BroadcastTo", {DType::kInvalid},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(new BroadcastToKernel(runtime, node));
      },
      [](const Node& node) {
        const size_t size = DTypeSize(InputDType(node, 0));
        return AcceptFixedSize(node) && AttrOr<IntList>(node, "shape", {}).size() <= kMaxKernelRank &&
               (size == 1 || size == 2 || size == 4 || size == 8);
      });
  table.Add(
      "ConcatV2", {DType::kInvalid},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(new ConcatKernel(runtime, node));
      },
      [](const Node& node) {
        const PartialShape& s = node.inputs()[0].node->output(node.inputs()[0].index).shape;
        return AcceptFixedSize(node) && s.known_rank() && s.rank() >= 1;
      });
}

}  // namespace graphd::executor::gpu
