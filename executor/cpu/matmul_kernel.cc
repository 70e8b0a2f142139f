// MatMul: oneDNN matmul for float32 (transposes expressed as strides), loops otherwise.
#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

class MatMulKernel : public OpKernel {
 public:
  MatMulKernel(bool ta, bool tb) : ta_(ta), tb_(tb) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.shape().rank() != 2 || b.shape().rank() != 2) {
      return ctx.Error(absl::StrCat("inputs must be matrices, got ", a.shape().ToString(),
                                    " and ", b.shape().ToString()));
    }
    int64_t m = a.shape().dim(ta_ ? 1 : 0), k = a.shape().dim(ta_ ? 0 : 1);
    int64_t k2 = b.shape().dim(tb_ ? 1 : 0), n = b.shape().dim(tb_ ? 0 : 1);
    if (k != k2) {
      return ctx.Error(absl::StrCat("inner dimensions differ: ", a.shape().ToString(), " x ",
                                    b.shape().ToString()));
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape({m, n})));
    if (m == 0 || n == 0) return absl::OkStatus();
    if (a.dtype() == DType::kFloat32 && k > 0) {
      RunDnnl(a, b, *out, m, k, n);
      return absl::OkStatus();
    }
    return DispatchNumeric(a.dtype(), [&]<typename T>() -> Status {
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* po = out->data<T>();
      for (int64_t i = 0; i < m; ++i) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        for (int64_t j = 0; j < n; ++j) {
          T acc{};
          for (int64_t p = 0; p < k; ++p) {
            T x = ta_ ? pa[p * m + i] : pa[i * k + p];
            T y = tb_ ? pb[j * k + p] : pb[p * n + j];
            acc = static_cast<T>(acc + x * y);
          }
          po[i * n + j] = acc;
        }
      }
      return absl::OkStatus();
    });
  }

 private:
  void RunDnnl(const Tensor& a, const Tensor& b, Tensor& out, int64_t m, int64_t k, int64_t n) {
    using dt = dnnl::memory::data_type;
    dnnl::memory::desc ad({m, k}, dt::f32, ta_ ? dnnl::memory::dims{1, m} : dnnl::memory::dims{k, 1});
    dnnl::memory::desc bd({k, n}, dt::f32, tb_ ? dnnl::memory::dims{1, k} : dnnl::memory::dims{n, 1});
    dnnl::memory::desc od({m, n}, dt::f32, dnnl::memory::dims{n, 1});
    dnnl::matmul prim = cache_.Get({m, k, n}, [&] {
      return dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, od),
                                                       PrimitiveAttr(), Engine()));
    });
    RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(ad, a)},
                        {DNNL_ARG_WEIGHTS, Wrap(bd, b)},
                        {DNNL_ARG_DST, Wrap(od, out)}});
  }

  bool ta_, tb_;
  PrimitiveCache<dnnl::matmul> cache_;
};

bool BoolAttr(const Node& node, absl::string_view name) {
  auto it = node.attrs().find(name);
  return it != node.attrs().end() && std::get<bool>(it->second);
}

}  // namespace

void RegisterMatMulKernels(KernelRegistry& r) {
  r.Register("MatMul", kCpu, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64},
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               return std::make_unique<MatMulKernel>(BoolAttr(node, "transpose_a"),
                                                     BoolAttr(node, "transpose_b"));
             });
}

}  // namespace graphd::executor::cpu
