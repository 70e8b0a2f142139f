// Relu, Sigmoid, Tanh and Softmax (last axis): oneDNN for float32, loops for float64.
#include <algorithm>
#include <cmath>

#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

enum class Act { kRelu, kSigmoid, kTanh, kSoftmax };

template <typename T>
void Reference(Act act, const T* x, T* y, int64_t n, int64_t inner) {
  switch (act) {
    case Act::kRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : T(0);
      break;
    case Act::kSigmoid:
      for (int64_t i = 0; i < n; ++i) y[i] = T(1) / (T(1) + std::exp(-x[i]));
      break;
    case Act::kTanh:
      for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
      break;
    case Act::kSoftmax:
      for (int64_t row = 0; row < n / inner; ++row) {
        const T* xr = x + row * inner;
        T* yr = y + row * inner;
        T mx = *std::max_element(xr, xr + inner);
        T sum = 0;
        for (int64_t i = 0; i < inner; ++i) sum += (yr[i] = std::exp(xr[i] - mx));
        for (int64_t i = 0; i < inner; ++i) yr[i] /= sum;
      }
      break;
  }
}

class ActivationKernel : public OpKernel {
 public:
  explicit ActivationKernel(Act act) : act_(act) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
    int64_t n = x.num_elements();
    if (n == 0) return absl::OkStatus();
    int64_t inner = x.shape().rank() > 0 ? x.shape().dim(x.shape().rank() - 1) : 1;
    if (x.dtype() == DType::kFloat64) {
      Reference(act_, x.data<double>(), y->data<double>(), n, inner);
    } else if (n < 64) {  // oneDNN's call overhead dominates tiny tensors
      Reference(act_, x.data<float>(), y->data<float>(), n, inner);
    } else {
      RunDnnl(x, *y);
    }
    return absl::OkStatus();
  }

 private:
  void RunDnnl(const Tensor& x, Tensor& y) {
    dnnl::memory::dims dims = DnnlDims(x.shape());
    dnnl::memory::desc md = PlainDesc(dims);
    dnnl::primitive prim = cache_.Get(dims, [&]() -> dnnl::primitive {
      auto inference = dnnl::prop_kind::forward_inference;
      if (act_ == Act::kSoftmax) {
        int axis = static_cast<int>(dims.size()) - 1;
        return dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
            dnnl::softmax_forward::desc(inference, md, axis), PrimitiveAttr(), Engine()));
      }
      auto alg = act_ == Act::kRelu      ? dnnl::algorithm::eltwise_relu
                 : act_ == Act::kSigmoid ? dnnl::algorithm::eltwise_logistic
                                         : dnnl::algorithm::eltwise_tanh;
      return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
          dnnl::eltwise_forward::desc(inference, alg, md, 0.f, 0.f), PrimitiveAttr(), Engine()));
    });
    RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(md, x)}, {DNNL_ARG_DST, Wrap(md, y)}});
  }

  Act act_;
  PrimitiveCache<dnnl::primitive> cache_;
};

KernelFactory Factory(Act act) {
  return [act](const Node&) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::make_unique<ActivationKernel>(act);
  };
}

}  // namespace

void RegisterActivationKernels(KernelRegistry& r) {
  const auto dtypes = {DType::kFloat32, DType::kFloat64};
  r.Register("Relu", kCpu, dtypes, Factory(Act::kRelu));
  r.Register("Sigmoid", kCpu, dtypes, Factory(Act::kSigmoid));
  r.Register("Tanh", kCpu, dtypes, Factory(Act::kTanh));
  r.Register("Softmax", kCpu, dtypes, Factory(Act::kSoftmax));
}

}  // namespace graphd::executor::cpu
