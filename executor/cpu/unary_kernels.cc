// Unary math: Abs, Neg, Sign, Square (float32/float64/int32/int64); Exp, Log, Sqrt,
// Rsqrt, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Erf, Round
// (half to even), Floor, Ceil, Reciprocal (float32/float64); IsNan, IsInf (float in,
// bool out).
// float32 tensors of kDnnlMinElements or more use oneDNN eltwise where it has an
// accurate function; float32 Log is fast_math::Log (vectorised); everything else is a
// plain loop.
#include <cmath>
#include <type_traits>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/fast_math.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/wrap_math.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kDnnlMinElements = 1024;
constexpr int64_t kChunk = int64_t{1} << 16;

enum class Unary { kAbs, kNeg, kSign, kSquare, kExp, kLog, kSqrt, kRsqrt, kSin, kCos, kTan,
                   kAsin, kAcos, kAtan, kSinh, kCosh, kAsinh, kAcosh, kAtanh, kErf, kRound,
                   kFloor, kCeil, kReciprocal };

template <typename T>
T Apply(Unary op, T x) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {  // wraps on the lowest value, as TensorFlow does
      case Unary::kAbs: return x < 0 ? WrapNeg(x) : x;
      case Unary::kNeg: return WrapNeg(x);
      case Unary::kSign: return static_cast<T>((x > 0) - (x < 0));
      case Unary::kSquare: return WrapMul(x, x);
      default: return x;  // not registered for integers
    }
  } else {
    switch (op) {
      case Unary::kAbs: return std::abs(x);
      case Unary::kNeg: return -x;
      case Unary::kSign: return x > 0 ? T(1) : x < 0 ? T(-1) : x;  // keeps 0, -0 and NaN
      case Unary::kSquare: return x * x;
      case Unary::kExp: return std::exp(x);
      case Unary::kLog: return std::log(x);
      case Unary::kSqrt: return std::sqrt(x);
      case Unary::kRsqrt: return T(1) / std::sqrt(x);
      case Unary::kSin: return std::sin(x);
      case Unary::kCos: return std::cos(x);
      case Unary::kTan: return std::tan(x);
      case Unary::kAsin: return std::asin(x);
      case Unary::kAcos: return std::acos(x);
      case Unary::kAtan: return std::atan(x);
      case Unary::kSinh: return std::sinh(x);
      case Unary::kCosh: return std::cosh(x);
      case Unary::kAsinh: return std::asinh(x);
      case Unary::kAcosh: return std::acosh(x);
      case Unary::kAtanh: return std::atanh(x);
      case Unary::kErf: return std::erf(x);
      case Unary::kRound: return std::nearbyint(x);  // default rounding: half to even
      case Unary::kFloor: return std::floor(x);
      case Unary::kCeil: return std::ceil(x);
      case Unary::kReciprocal: return T(1) / x;
    }
    return x;
  }
}

// The oneDNN eltwise algorithm (with alpha, beta) computing `op`, if there is one.
bool DnnlAlgorithm(Unary op, dnnl::algorithm* alg, float* alpha, float* beta) {
  *alpha = 0.f;
  *beta = 0.f;
  switch (op) {
    case Unary::kAbs: *alg = dnnl::algorithm::eltwise_abs; return true;
    case Unary::kNeg: *alg = dnnl::algorithm::eltwise_linear; *alpha = -1.f; return true;
    case Unary::kSquare: *alg = dnnl::algorithm::eltwise_square; return true;
    case Unary::kExp: *alg = dnnl::algorithm::eltwise_exp; return true;
    // Not kLog: oneDNN's eltwise_log loses all relative accuracy near 1 (log(1 + 7e-7)
    // came out negative); float32 Log uses fast_math::Log, within ~1.5 ulp.
    case Unary::kSqrt: *alg = dnnl::algorithm::eltwise_sqrt; return true;
    case Unary::kRsqrt: *alg = dnnl::algorithm::eltwise_pow; *alpha = 1.f; *beta = -0.5f; return true;
    case Unary::kRound: *alg = dnnl::algorithm::eltwise_round; return true;
    default: return false;
  }
}

class UnaryKernel : public OpKernel {
 public:
  explicit UnaryKernel(Unary op) : op_(op) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
    const int64_t n = x.num_elements();
    dnnl::algorithm alg;
    float alpha, beta;
    if (x.dtype() == DType::kFloat32 && n >= kDnnlMinElements &&
        DnnlAlgorithm(op_, &alg, &alpha, &beta)) {
      dnnl::memory::desc md = PlainDesc({n});
      dnnl::eltwise_forward prim = cache_.Get({n}, [&] {
        return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
            dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, md, alpha, beta),
            PrimitiveAttr(), Engine()));
      });
      RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(md, x)}, {DNNL_ARG_DST, Wrap(md, *y)}}, 2 * n);
      return absl::OkStatus();
    }
    if (x.dtype() == DType::kFloat32 && (op_ == Unary::kLog || op_ == Unary::kErf)) {
      const float* in = x.data<float>();
      float* out = y->data<float>();
      for (int64_t start = 0; start < n; start += kChunk) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        const int64_t end = std::min(n, start + kChunk);
        if (op_ == Unary::kLog) {
          for (int64_t i = start; i < end; ++i) out[i] = fast_math::Log(in[i]);
        } else {
          for (int64_t i = start; i < end; ++i) out[i] = fast_math::Erf(in[i]);
        }
      }
      return absl::OkStatus();
    }
    return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
      if constexpr (std::is_same_v<T, bool>) {
        return ctx.Error("bool is not supported");
      } else {
        const T* in = x.data<T>();
        T* out = y->data<T>();
        for (int64_t start = 0; start < n; start += kChunk) {
          RETURN_IF_ERROR(ctx.cancellation().Check());
          const int64_t end = std::min(n, start + kChunk);
          for (int64_t i = start; i < end; ++i) out[i] = Apply<T>(op_, in[i]);
        }
        return absl::OkStatus();
      }
    });
  }

 private:
  Unary op_;
  PrimitiveCache<dnnl::eltwise_forward> cache_;
};

// IsNan, IsInf: float32/float64 in, bool out. IsInf counts +inf when detect_positive
// and -inf when detect_negative (both default true).
KernelFactory FloatPredicateFactory(bool is_nan) {
  return [is_nan](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const bool pos = is_nan || AttrOr<bool>(node, "detect_positive", true);
    const bool neg = is_nan || AttrOr<bool>(node, "detect_negative", true);
    return std::make_unique<FnKernel>([=](KernelContext& ctx) -> Status {
      const Tensor& x = ctx.input(0);
      ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
      bool* out = y->data<bool>();
      auto run = [&]<typename T>(const T* in) {
        for (int64_t i = 0; i < x.num_elements(); ++i) {
          const T v = in[i];
          out[i] = is_nan ? std::isnan(v) : std::isinf(v) && (v > 0 ? pos : neg);
        }
      };
      if (x.dtype() == DType::kFloat32) {
        run(x.data<float>());
      } else if (x.dtype() == DType::kFloat64) {
        run(x.data<double>());
      } else {
        return ctx.Error(absl::StrCat("dtype ", DTypeName(x.dtype()), " is not supported"));
      }
      return absl::OkStatus();
    });
  };
}

KernelFactory Factory(Unary op) {
  return [op](const Node&) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::make_unique<UnaryKernel>(op);
  };
}

}  // namespace

void RegisterUnaryKernels(KernelRegistry& r) {
  const auto signed_types = {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64};
  const auto float_types = {DType::kFloat32, DType::kFloat64};
  r.Register("Abs", kCpu, signed_types, Factory(Unary::kAbs));
  r.Register("Neg", kCpu, signed_types, Factory(Unary::kNeg));
  r.Register("Sign", kCpu, signed_types, Factory(Unary::kSign));
  r.Register("Square", kCpu, signed_types, Factory(Unary::kSquare));
  r.Register("Exp", kCpu, float_types, Factory(Unary::kExp));
  r.Register("Log", kCpu, float_types, Factory(Unary::kLog));
  r.Register("Sqrt", kCpu, float_types, Factory(Unary::kSqrt));
  r.Register("Rsqrt", kCpu, float_types, Factory(Unary::kRsqrt));
  r.Register("Sin", kCpu, float_types, Factory(Unary::kSin));
  r.Register("Cos", kCpu, float_types, Factory(Unary::kCos));
  r.Register("Tan", kCpu, float_types, Factory(Unary::kTan));
  r.Register("Asin", kCpu, float_types, Factory(Unary::kAsin));
  r.Register("Acos", kCpu, float_types, Factory(Unary::kAcos));
  r.Register("Atan", kCpu, float_types, Factory(Unary::kAtan));
  r.Register("Sinh", kCpu, float_types, Factory(Unary::kSinh));
  r.Register("Cosh", kCpu, float_types, Factory(Unary::kCosh));
  r.Register("Asinh", kCpu, float_types, Factory(Unary::kAsinh));
  r.Register("Acosh", kCpu, float_types, Factory(Unary::kAcosh));
  r.Register("Atanh", kCpu, float_types, Factory(Unary::kAtanh));
  r.Register("Erf", kCpu, float_types, Factory(Unary::kErf));
  r.Register("Round", kCpu, float_types, Factory(Unary::kRound));
  r.Register("Floor", kCpu, float_types, Factory(Unary::kFloor));
  r.Register("Ceil", kCpu, float_types, Factory(Unary::kCeil));
  r.Register("Reciprocal", kCpu, float_types, Factory(Unary::kReciprocal));
  r.Register("IsNan", kCpu, DType::kBool, FloatPredicateFactory(true));
  r.Register("IsInf", kCpu, DType::kBool, FloatPredicateFactory(false));
}

}  // namespace graphd::executor::cpu
