// Matrix products on the GPU with cuBLAS (float32, CUBLAS_PEDANTIC_MATH: no TF32):
//   MatMul(a, b[, bias]; transpose_a, transpose_b, activation "" | Relu | Clip): one
//     sgemm, then the bias/activation epilogue kernel (nn.cu) when present.
//   BatchMatMulV2(x, y; adj_x, adj_y): batch dims broadcast NumPy-style; one strided
//     batched sgemm when each operand's batch is either the output's or a single
//     matrix, else one sgemm per output matrix.
// Row-major operands are passed to column-major cuBLAS as their transposes:
// C^T = op(B)^T op(A)^T, so the call computes [n, m] column-major = C row-major.
#include <climits>

#include "absl/strings/str_cat.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

struct Gemm {
  bool ta = false, tb = false;
  int64_t m = 0, n = 0, k = 0;
};

Status CheckInt(const Gemm& g) {
  for (int64_t v : {g.m, g.n, g.k}) {
    if (v > INT_MAX) return errors::Unimplemented(absl::StrCat("matrix dimension ", v, " exceeds cuBLAS's int range"));
  }
  return absl::OkStatus();
}

// C[m, n] = op(A) op(B) for `batch` row-major matrices at the given element strides.
Status RowMajorGemm(const GpuRuntime& rt, const Gemm& g, const float* a, int64_t stride_a, const float* b,
                    int64_t stride_b, float* c, int64_t batch) {
  RETURN_IF_ERROR(CheckInt(g));
  ASSIGN_OR_RETURN(cublasHandle_t handle, rt.CublasHandle());
  const float alpha = 1.f, beta = 0.f;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int lda = g.ta ? m : k, ldb = g.tb ? k : n;
  const cublasOperation_t op_a = g.ta ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = g.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (batch == 1) {
    return CublasCall(rt.cublas(), rt.cublas().Sgemm(handle, op_b, op_a, n, m, k, &alpha, b, ldb, a, lda, &beta, c, n),
                      "cublasSgemm");
  }
  if (batch > INT_MAX) return errors::Unimplemented("batch exceeds cuBLAS's int range");
  return CublasCall(rt.cublas(),
                    rt.cublas().SgemmStridedBatched(handle, op_b, op_a, n, m, k, &alpha, b, ldb, stride_b, a, lda,
                                                    stride_a, &beta, c, n, g.m * g.n, static_cast<int>(batch)),
                    "cublasSgemmStridedBatched");
}

// Zeros `t` (a product with k = 0).
Status Zero(const Tensor& t, cudaStream_t stream) {
  if (t.bytes() == 0) return absl::OkStatus();
  return CudaCall(cudaMemsetAsync(t.raw_data(), 0, t.bytes(), stream), "cudaMemsetAsync");
}

class MatMulKernel : public GpuKernel {
 public:
  MatMulKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node)
      : GpuKernel(std::move(runtime)), act_(ReadEpilogueActivation(node)) {
    ta_ = AttrOr<bool>(node, "transpose_a", false);
    tb_ = AttrOr<bool>(node, "transpose_b", false);
  }

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.shape().rank() != 2 || b.shape().rank() != 2) return errors::InvalidArgument("inputs must be matrices");
    Gemm g{.ta = ta_, .tb = tb_};
    g.m = a.shape().dim(ta_ ? 1 : 0);
    g.k = a.shape().dim(ta_ ? 0 : 1);
    g.n = b.shape().dim(tb_ ? 0 : 1);
    if (b.shape().dim(tb_ ? 1 : 0) != g.k) {
      return errors::InvalidArgument(
          absl::StrCat("inner dimensions differ: ", a.shape().ToString(), " x ", b.shape().ToString()));
    }
    ASSIGN_OR_RETURN(Tensor c, AllocateOutput(ctx, 0, Shape({g.m, g.n}), stream));
    if (g.m == 0 || g.n == 0) return absl::OkStatus();
    if (g.k == 0) {
      RETURN_IF_ERROR(Zero(c, stream));
    } else {
      RETURN_IF_ERROR(RowMajorGemm(runtime(), g, a.data<float>(), 0, b.data<float>(), 0, c.data<float>(), 1));
    }
    const float* bias = nullptr;
    if (ctx.num_inputs() > 2) {
      const Tensor& t = ctx.input(2);
      if (t.num_elements() != g.n) {
        return errors::InvalidArgument(
            absl::StrCat("bias ", t.shape().ToString(), " does not match ", g.n, " columns"));
      }
      bias = t.data<float>();
    }
    if (bias == nullptr && act_.act == EpilogueAct::kNone) return absl::OkStatus();
    return CudaCall(LaunchEpilogue(c.data<float>(), c.num_elements(), bias, g.n, 1, nullptr, act_.act, act_.lo, act_.hi, stream),
                    "MatMul epilogue kernel launch");
  }

 private:
  bool ta_ = false, tb_ = false;
  const EpilogueActivation act_;
};

class BatchMatMulKernel : public GpuKernel {
 public:
  BatchMatMulKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node)
      : GpuKernel(std::move(runtime)),
        adj_x_(AttrOr<bool>(node, "adj_x", false)),
        adj_y_(AttrOr<bool>(node, "adj_y", false)) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Shape& xs = ctx.input(0).shape();
    const Shape& ys = ctx.input(1).shape();
    const int rx = xs.rank(), ry = ys.rank();
    if (rx < 2 || ry < 2) return errors::InvalidArgument("inputs must have rank >= 2");
    Gemm g{.ta = adj_x_, .tb = adj_y_};
    g.m = xs.dim(adj_x_ ? rx - 1 : rx - 2);
    g.k = xs.dim(adj_x_ ? rx - 2 : rx - 1);
    g.n = ys.dim(adj_y_ ? ry - 2 : ry - 1);
    if (ys.dim(adj_y_ ? ry - 1 : ry - 2) != g.k) {
      return errors::InvalidArgument(absl::StrCat("inner dimensions differ: ", xs.ToString(), " x ", ys.ToString()));
    }
    // Batch dims, right-aligned, and each operand's matrix stride per output batch dim.
    const int rb = std::max(rx, ry) - 2;
    std::vector<int64_t> out_dims(rb), x_strides(rb), y_strides(rb);
    int64_t x_batch = 1, y_batch = 1, batch = 1;
    for (int d = rb - 1; d >= 0; --d) {
      const int xi = d - (rb - (rx - 2)), yi = d - (rb - (ry - 2));
      const int64_t xd = xi >= 0 ? xs.dim(xi) : 1, yd = yi >= 0 ? ys.dim(yi) : 1;
      if (xd != yd && xd != 1 && yd != 1) {
        return errors::InvalidArgument(
            absl::StrCat("batch dims of ", xs.ToString(), " and ", ys.ToString(), " do not broadcast"));
      }
      out_dims[d] = xd == 1 ? yd : xd;
      x_strides[d] = xd == 1 ? 0 : x_batch;
      y_strides[d] = yd == 1 ? 0 : y_batch;
      x_batch *= xd;
      y_batch *= yd;
      batch *= out_dims[d];
    }
    std::vector<int64_t> shape = out_dims;
    shape.push_back(g.m);
    shape.push_back(g.n);
    ASSIGN_OR_RETURN(Tensor c, AllocateOutput(ctx, 0, Shape(shape), stream));
    if (c.num_elements() == 0) return absl::OkStatus();
    if (g.k == 0) return Zero(c, stream);
    const float* x = ctx.input(0).data<float>();
    const float* y = ctx.input(1).data<float>();
    const int64_t x_mat = g.m * g.k, y_mat = g.k * g.n;
    if ((x_batch == batch || x_batch == 1) && (y_batch == batch || y_batch == 1)) {
      return RowMajorGemm(runtime(), g, x, x_batch == 1 ? 0 : x_mat, y, y_batch == 1 ? 0 : y_mat, c.data<float>(),
                          batch);
    }
    for (int64_t o = 0; o < batch; ++o) {
      int64_t rest = o, xo = 0, yo = 0;
      for (int d = rb - 1; d >= 0; --d) {
        const int64_t coord = rest % out_dims[d];
        rest /= out_dims[d];
        xo += coord * x_strides[d];
        yo += coord * y_strides[d];
      }
      RETURN_IF_ERROR(
          RowMajorGemm(runtime(), g, x + xo * x_mat, 0, y + yo * y_mat, 0, c.data<float>() + o * g.m * g.n, 1));
    }
    return absl::OkStatus();
  }

 private:
  const bool adj_x_, adj_y_;
};

bool AllFloat32(const Node& node) {
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    if (InputDType(node, i) != DType::kFloat32) return false;
  }
  return true;
}

}  // namespace

void RegisterGpuMatMulKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  table.Add(
      "MatMul", {DType::kFloat32},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(new MatMulKernel(runtime, node));
      },
      [](const Node& node) {
        const std::string act = AttrOr<std::string>(node, "activation", "");
        return AllFloat32(node) && (act.empty() || act == "Relu" || act == "Clip");
      });
  table.Add(
      "BatchMatMulV2", {DType::kFloat32},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(new BatchMatMulKernel(runtime, node));
      },
      AllFloat32);
}

}  // namespace graphd::executor::gpu
