// Data-movement kernels on the GPU: Const (uploaded once), Identity, and the view ops
// Reshape, Squeeze, ExpandDims (same buffer, new shape; their shapes and axes are
// attributes, so nothing is read from device memory).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

// The dtypes data-movement kernels accept: everything with a fixed size (not strings).
bool Movable(DType dtype) { return dtype != DType::kString && dtype != DType::kInvalid; }

bool AcceptMovable(const Node& node) {
  for (int o = 0; o < node.num_outputs(); ++o) {
    if (!Movable(node.output(o).dtype)) return false;
  }
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    if (!Movable(InputDType(node, i))) return false;
  }
  return true;
}

class ConstKernel : public GpuKernel {
 public:
  ConstKernel(std::shared_ptr<GpuRuntime> runtime, Tensor value)
      : GpuKernel(std::move(runtime)), value_(std::move(value)) {}
  // Other threads' streams may still read the value: wait for the whole GPU (plans
  // are destroyed rarely).
  ~ConstKernel() override {
    if (runtime().Activate().ok()) cudaDeviceSynchronize();
  }

  static StatusOr<std::unique_ptr<OpKernel>> Make(const std::shared_ptr<GpuRuntime>& runtime, const Node& node) {
    auto it = node.attrs().find("value");
    const Tensor* host = it == node.attrs().end() ? nullptr : std::get_if<Tensor>(&it->second);
    if (host == nullptr || !host->on_host()) return errors::InvalidArgument("Const without a host value");
    ASSIGN_OR_RETURN(cudaStream_t stream, runtime->Stream());
    ASSIGN_OR_RETURN(Tensor device, runtime->Allocate(host->dtype(), host->shape(), stream));
    if (host->bytes() > 0) {
      RETURN_IF_ERROR(
          CudaCall(cudaMemcpyAsync(device.raw_data(), host->raw_data(), host->bytes(), cudaMemcpyHostToDevice, stream),
                   "cudaMemcpyAsync (Const upload)"));
    }
    // Every thread's runs read it: make the upload complete before any of them starts.
    RETURN_IF_ERROR(CudaCall(cudaStreamSynchronize(stream), "cudaStreamSynchronize (Const upload)"));
    return std::unique_ptr<OpKernel>(new ConstKernel(runtime, std::move(device)));
  }

  const Tensor* ConstantOutput() const override { return &value_; }

 protected:
  Status Run(KernelContext& ctx, cudaStream_t) override {
    ctx.set_output(0, value_);
    return absl::OkStatus();
  }

 private:
  Tensor value_;
};

// Identity and the view ops: the input's buffer under the output shape OutShape gives.
class ViewKernel : public GpuKernel {
 public:
  using OutShape = std::function<StatusOr<Shape>(const Node&, const Shape&)>;
  ViewKernel(std::shared_ptr<GpuRuntime> runtime, OutShape out_shape)
      : GpuKernel(std::move(runtime)), out_shape_(std::move(out_shape)) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t) override {
    const Tensor& in = ctx.input(0);
    ASSIGN_OR_RETURN(Shape shape, out_shape_(ctx.node(), in.shape()));
    ASSIGN_OR_RETURN(Tensor out, in.Reshaped(shape));
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }

 private:
  OutShape out_shape_;
};

StatusOr<Shape> SameShape(const Node&, const Shape& in) { return in; }

StatusOr<Shape> ReshapeShape(const Node& node, const Shape& in) {
  std::vector<int64_t> dims = AttrOr<IntList>(node, "shape", {});
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      unknown = static_cast<int>(i);
    } else {
      known *= dims[i];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || in.num_elements() % known != 0) {
      return errors::InvalidArgument(
          absl::StrCat("cannot reshape ", in.ToString(), " to [", absl::StrJoin(dims, ","), "]"));
    }
    dims[unknown] = in.num_elements() / known;
  }
  return Shape(std::move(dims));
}

StatusOr<Shape> SqueezeShape(const Node& node, const Shape& in) {
  const IntList axes = AttrOr<IntList>(node, "squeeze_dims", {});
  std::vector<bool> drop(in.rank(), false);
  for (int64_t a : axes) {
    const int64_t axis = a < 0 ? a + in.rank() : a;
    if (axis < 0 || axis >= in.rank() || in.dim(static_cast<int>(axis)) != 1) {
      return errors::InvalidArgument(absl::StrCat("cannot squeeze dimension ", a, " of ", in.ToString()));
    }
    drop[axis] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (drop[i] || (axes.empty() && in.dim(i) == 1)) continue;
    dims.push_back(in.dim(i));
  }
  return Shape(std::move(dims));
}

StatusOr<Shape> ExpandDimsShape(const Node& node, const Shape& in) {
  const int64_t a = AttrOr<int64_t>(node, "axis", 0);
  const int64_t axis = a < 0 ? a + in.rank() + 1 : a;
  if (axis < 0 || axis > in.rank()) {
    return errors::InvalidArgument(absl::StrCat("axis ", a, " is out of range for ", in.ToString()));
  }
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + axis, 1);
  return Shape(std::move(dims));
}

}  // namespace

void RegisterGpuArrayKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  table.Add(
      "Const", {DType::kInvalid}, [runtime](const Node& node) { return ConstKernel::Make(runtime, node); },
      AcceptMovable);
  const std::pair<const char*, ViewKernel::OutShape> views[] = {
      {"Identity", SameShape}, {"StopGradient", SameShape}, {"Reshape", ReshapeShape}, {"Squeeze", SqueezeShape}, {"ExpandDims", ExpandDimsShape}};
  for (const auto& [op, shape_fn] : views) {
    table.Add(
        op, {DType::kInvalid},
        [runtime, fn = shape_fn](const Node&) -> StatusOr<std::unique_ptr<OpKernel>> {
          return std::unique_ptr<OpKernel>(new ViewKernel(runtime, fn));
        },
        AcceptMovable);
  }
}

}  // namespace graphd::executor::gpu
