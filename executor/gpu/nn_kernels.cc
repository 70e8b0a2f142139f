// Softmax and LogSoftmax over the last axis, Sum, Mean (global average pooling), Max
// and Min over axes, and BiasAdd (NHWC or NCHW), float32, on the GPU. The CUDA code is
// in nn.cu.
#include <set>

#include "absl/strings/str_cat.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

class SoftmaxKernel : public GpuKernel {
 public:
  SoftmaxKernel(std::shared_ptr<GpuRuntime> runtime, bool log) : GpuKernel(std::move(runtime)), log_(log) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    if (x.shape().rank() < 1) return errors::InvalidArgument("input must have rank >= 1");
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, x.shape(), stream));
    const int64_t cols = x.shape().dim(x.shape().rank() - 1);
    const int64_t rows = cols == 0 ? 0 : x.num_elements() / cols;
    return CudaCall(LaunchSoftmax(x.data<float>(), y.data<float>(), rows, cols, log_, stream), "Softmax kernel launch");
  }

 private:
  const bool log_;
};

// y = value + bias along the channel dim: the last (NHWC) or dim 1 (NCHW).
class BiasAddKernel : public GpuKernel {
 public:
  BiasAddKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node)
      : GpuKernel(std::move(runtime)), nchw_(AttrOr<std::string>(node, "data_format", "NHWC") == "NCHW") {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    const int rank = x.shape().rank();
    if (rank < 2) return errors::InvalidArgument(absl::StrCat("value must have rank >= 2, got ", x.shape().ToString()));
    const int channel_dim = nchw_ ? 1 : rank - 1;
    const int64_t channels = x.shape().dim(channel_dim);
    if (bias.num_elements() != channels) {
      return errors::InvalidArgument(absl::StrCat("bias ", bias.shape().ToString(), " does not match ", channels,
                                                  " channels of ", x.shape().ToString()));
    }
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < rank; ++d) inner *= x.shape().dim(d);
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, x.shape(), stream));
    if (y.num_elements() == 0) return absl::OkStatus();
    RETURN_IF_ERROR(CudaCall(cudaMemcpyAsync(y.raw_data(), x.raw_data(), x.bytes(), cudaMemcpyDeviceToDevice, stream),
                             "cudaMemcpyAsync (BiasAdd)"));
    return CudaCall(LaunchEpilogue(y.data<float>(), y.num_elements(), bias.data<float>(), channels, inner, nullptr,
                                   EpilogueAct::kNone, 0, 0, stream),
                    "BiasAdd kernel launch");
  }

 private:
  const bool nchw_;
};

class ReduceKernel : public GpuKernel {
 public:
  ReduceKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node, ReduceKind kind)
      : GpuKernel(std::move(runtime)), kind_(kind) {
    keep_dims_ = AttrOr<bool>(node, "keep_dims", false);
    auto it = node.attrs().find("axis");
    all_ = it == node.attrs().end();
    if (!all_) {
      if (const int64_t* one = std::get_if<int64_t>(&it->second)) {
        axes_ = {*one};
      } else {
        axes_ = AttrOr<IntList>(node, "axis", {});
      }
    }
  }

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    const int rank = x.shape().rank();
    if (rank > kMaxKernelRank) return errors::InvalidArgument(absl::StrCat("rank ", rank, " exceeds ", kMaxKernelRank));
    std::set<int> reduce;
    for (int i = 0; all_ && i < rank; ++i) reduce.insert(i);
    for (int64_t a : axes_) {
      const int64_t axis = a < 0 ? a + rank : a;
      if (axis < 0 || axis >= rank) {
        return errors::InvalidArgument(absl::StrCat("axis ", a, " is out of range for ", x.shape().ToString()));
      }
      reduce.insert(static_cast<int>(axis));
    }
    ReduceIndex index;
    std::vector<int64_t> out_dims;
    std::vector<int64_t> strides(rank);
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= x.shape().dim(d);
    }
    for (int d = 0; d < rank; ++d) {
      const int64_t n = x.shape().dim(d);
      if (reduce.contains(d)) {
        index.reduced_dims[index.reduced_rank] = n;
        index.reduced_strides[index.reduced_rank++] = strides[d];
        index.reduced_count *= n;
        if (keep_dims_) out_dims.push_back(1);
      } else {
        index.kept_dims[index.kept_rank] = n;
        index.kept_strides[index.kept_rank++] = strides[d];
        out_dims.push_back(n);
      }
    }
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, Shape(out_dims), stream));
    return CudaCall(LaunchReduce(kind_, x.data<float>(), y.data<float>(), y.num_elements(), index, stream),
                    "reduction kernel launch");
  }

 private:
  const ReduceKind kind_;
  bool keep_dims_ = false;
  bool all_ = false;
  IntList axes_;
};

bool Float32SmallRank(const Node& node) {
  if (InputDType(node, 0) != DType::kFloat32) return false;
  const PartialShape& s = node.inputs()[0].node->output(node.inputs()[0].index).shape;
  return s.known_rank() && s.rank() <= kMaxKernelRank;
}

}  // namespace

void RegisterGpuNnKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  for (const bool log : {false, true}) {
    table.Add(
        log ? "LogSoftmax" : "Softmax", {DType::kFloat32},
        [runtime, log](const Node&) -> StatusOr<std::unique_ptr<OpKernel>> {
          return std::unique_ptr<OpKernel>(new SoftmaxKernel(runtime, log));
        },
        [](const Node& node) { return InputDType(node, 0) == DType::kFloat32; });
  }
  table.Add(
      "BiasAdd", {DType::kFloat32},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(new BiasAddKernel(runtime, node));
      },
      [](const Node& node) {
        return InputDType(node, 0) == DType::kFloat32 && InputDType(node, 1) == DType::kFloat32;
      });
  const std::pair<const char*, ReduceKind> reductions[] = {
      {"Sum", ReduceKind::kSum}, {"Mean", ReduceKind::kMean}, {"Max", ReduceKind::kMax}, {"Min", ReduceKind::kMin}};
  for (const auto& [op, kind] : reductions) {
    table.Add(
        op, {DType::kFloat32},
        [runtime, kind = kind](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
          return std::unique_ptr<OpKernel>(new ReduceKernel(runtime, node, kind));
        },
        Float32SmallRank);
  }
}

}  // namespace graphd::executor::gpu
