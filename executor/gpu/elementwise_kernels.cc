// Elementwise kernels on the GPU: Add, Sub, Mul, Div, Maximum, Minimum (float32, int32,
// int64) and Pow (float32) with NumPy broadcasting up to rank 8, unary math and Gelu,
// and Cast between float32, int32, int64 and bool. The CUDA code is in elementwise.cu.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

// Known rank <= kMaxKernelRank for every input.
bool KnownSmallRanks(const Node& node) {
  for (const OutputRef& in : node.inputs()) {
    const PartialShape& s = in.node->output(in.index).shape;
    if (!s.known_rank() || s.rank() > kMaxKernelRank) return false;
  }
  return true;
}

bool AllInputsAre(const Node& node, std::initializer_list<DType> dtypes) {
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    DType d = InputDType(node, i);
    if (std::find(dtypes.begin(), dtypes.end(), d) == dtypes.end()) return false;
  }
  return true;
}

// The broadcast of `a` and `b` (output shape and per-operand strides).
StatusOr<BroadcastIndex> Broadcast(const Shape& a, const Shape& b, Shape* out) {
  BroadcastIndex index;
  index.rank = std::max(a.rank(), b.rank());
  if (index.rank > kMaxKernelRank) {
    return errors::InvalidArgument(absl::StrCat("rank ", index.rank, " exceeds the GPU kernels' ", kMaxKernelRank));
  }
  std::vector<int64_t> dims(index.rank);
  int64_t a_stride = 1, b_stride = 1;
  for (int d = index.rank - 1; d >= 0; --d) {
    const int ai = d - (index.rank - a.rank()), bi = d - (index.rank - b.rank());
    const int64_t ad = ai >= 0 ? a.dim(ai) : 1, bd = bi >= 0 ? b.dim(bi) : 1;
    if (ad != bd && ad != 1 && bd != 1) {
      return errors::InvalidArgument(absl::StrCat("shapes ", a.ToString(), " and ", b.ToString(), " do not broadcast"));
    }
    dims[d] = ad == 1 ? bd : ad;
    index.dims[d] = dims[d];
    index.a_strides[d] = ad == 1 ? 0 : a_stride;
    index.b_strides[d] = bd == 1 ? 0 : b_stride;
    a_stride *= ad;
    b_stride *= bd;
  }
  *out = Shape(std::move(dims));
  return index;
}

class BinaryKernel : public GpuKernel {
 public:
  BinaryKernel(std::shared_ptr<GpuRuntime> runtime, BinaryKind kind, ElemType type)
      : GpuKernel(std::move(runtime)), kind_(kind), type_(type) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.shape() == b.shape()) {
      ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, 0, a.shape(), stream));
      return CudaCall(
          LaunchBinary(kind_, type_, a.raw_data(), b.raw_data(), out.raw_data(), out.num_elements(), nullptr, stream),
          "binary elementwise kernel launch");
    }
    Shape shape;
    ASSIGN_OR_RETURN(BroadcastIndex index, Broadcast(a.shape(), b.shape(), &shape));
    ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, 0, shape, stream));
    return CudaCall(
        LaunchBinary(kind_, type_, a.raw_data(), b.raw_data(), out.raw_data(), out.num_elements(), &index, stream),
        "broadcasting elementwise kernel launch");
  }

 private:
  const BinaryKind kind_;
  const ElemType type_;
};

class UnaryKernel : public GpuKernel {
 public:
  UnaryKernel(std::shared_ptr<GpuRuntime> runtime, UnaryKind kind, ElemType type)
      : GpuKernel(std::move(runtime)), kind_(kind), type_(type) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, x.shape(), stream));
    return CudaCall(LaunchUnary(kind_, type_, x.raw_data(), y.raw_data(), x.num_elements(), stream),
                    "unary elementwise kernel launch");
  }

 private:
  const UnaryKind kind_;
  const ElemType type_;
};

class CastKernel : public GpuKernel {
 public:
  CastKernel(std::shared_ptr<GpuRuntime> runtime, ElemType src, ElemType dst)
      : GpuKernel(std::move(runtime)), src_(src), dst_(dst) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, x.shape(), stream));
    if (src_ == dst_) {
      if (x.bytes() == 0) return absl::OkStatus();
      return CudaCall(cudaMemcpyAsync(y.raw_data(), x.raw_data(), x.bytes(), cudaMemcpyDeviceToDevice, stream),
                      "cudaMemcpyAsync (Cast to the same dtype)");
    }
    return CudaCall(LaunchCast(src_, dst_, x.raw_data(), y.raw_data(), x.num_elements(), stream), "Cast kernel launch");
  }

 private:
  const ElemType src_, dst_;
};

// Output dtype -> ElemType of the node (its registry key); false when unsupported.
bool OutputType(const Node& node, ElemType* type) {
  return node.num_outputs() == 1 && ToElemType(node.output(0).dtype, type);
}

}  // namespace

void RegisterGpuElementwiseKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  // Integer Div stays on the CPU, whose kernel reports a zero divisor and the one
  // overflowing quotient (lowest / -1) as errors; the GPU's division would return
  // whatever the hardware gives for them, silently.
  const std::pair<const char*, BinaryKind> binary[] = {{"Add", BinaryKind::kAdd},
                                                       {"Sub", BinaryKind::kSub},
                                                       {"Mul", BinaryKind::kMul},
                                                       {"Maximum", BinaryKind::kMax},
                                                       {"Minimum", BinaryKind::kMin}};
  auto binary_accept = [](const Node& node) {
    const DType d = node.output(0).dtype;
    return KnownSmallRanks(node) && InputDType(node, 0) == d && InputDType(node, 1) == d;
  };
  for (const auto& [op, kind] : {std::pair{"Pow", BinaryKind::kPow}, std::pair{"Div", BinaryKind::kDiv}}) {
    table.Add(
        op, {DType::kFloat32},
        [runtime, kind = kind](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
          return std::unique_ptr<OpKernel>(new BinaryKernel(runtime, kind, ElemType::kFloat32));
        },
        binary_accept);
  }
  for (const auto& [op, kind] : binary) {
    table.Add(
        op, {DType::kFloat32, DType::kInt32, DType::kInt64},
        [runtime, kind = kind](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
          ElemType type;
          if (!OutputType(node, &type)) return errors::Unimplemented("dtype");
          return std::unique_ptr<OpKernel>(new BinaryKernel(runtime, kind, type));
        },
        binary_accept);
  }
  const std::pair<const char*, UnaryKind> float_only[] = {
      {"Relu", UnaryKind::kRelu},   {"Relu6", UnaryKind::kRelu6}, {"Sigmoid", UnaryKind::kSigmoid},
      {"Tanh", UnaryKind::kTanh},   {"Exp", UnaryKind::kExp},     {"Log", UnaryKind::kLog},
      {"Sqrt", UnaryKind::kSqrt},   {"Rsqrt", UnaryKind::kRsqrt}, {"Reciprocal", UnaryKind::kReciprocal},
      {"Floor", UnaryKind::kFloor}, {"Ceil", UnaryKind::kCeil},   {"Round", UnaryKind::kRound},
      {"Erf", UnaryKind::kErf},     {"Sin", UnaryKind::kSin},     {"Cos", UnaryKind::kCos}};
  const std::pair<const char*, UnaryKind> signed_too[] = {
      {"Neg", UnaryKind::kNeg}, {"Abs", UnaryKind::kAbs}, {"Square", UnaryKind::kSquare}, {"Sign", UnaryKind::kSign}};
  auto unary_factory = [runtime](UnaryKind kind) {
    return [runtime, kind](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
      ElemType type;
      if (!OutputType(node, &type)) return errors::Unimplemented("dtype");
      return std::unique_ptr<OpKernel>(new UnaryKernel(runtime, kind, type));
    };
  };
  auto same_dtype = [](const Node& node) { return InputDType(node, 0) == node.output(0).dtype; };
  for (const auto& [op, kind] : float_only) table.Add(op, {DType::kFloat32}, unary_factory(kind), same_dtype);
  for (const auto& [op, kind] : signed_too) {
    table.Add(op, {DType::kFloat32, DType::kInt32, DType::kInt64}, unary_factory(kind), same_dtype);
  }
  table.Add(
      "Gelu", {DType::kFloat32},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        const UnaryKind kind = AttrOr<bool>(node, "approximate", false) ? UnaryKind::kGeluTanh : UnaryKind::kGeluErf;
        return std::unique_ptr<OpKernel>(new UnaryKernel(runtime, kind, ElemType::kFloat32));
      },
      same_dtype);
  table.Add(
      "Cast", {DType::kFloat32, DType::kInt32, DType::kInt64, DType::kBool},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        ElemType src, dst;
        if (!ToElemType(InputDType(node, 0), &src) || !OutputType(node, &dst)) return errors::Unimplemented("dtype");
        return std::unique_ptr<OpKernel>(new CastKernel(runtime, src, dst));
      },
      [](const Node& node) {
        return AllInputsAre(node, {DType::kFloat32, DType::kInt32, DType::kInt64, DType::kBool});
      });
}

}  // namespace graphd::executor::gpu
