#include "executor/cpu/elementwise.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "executor/cpu/broadcast.h"
#include "executor/cpu/cast.h"
#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/nan_min_max.h"
#include "executor/cpu/row_broadcast.h"
#include "executor/cpu/wrap_math.h"

namespace graphd::executor::cpu {

std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(out.rank(), 0);
  int64_t stride = 1;
  for (int i = in.rank() - 1; i >= 0; --i) {
    int o = out.rank() - in.rank() + i;
    strides[o] = in.dim(i) == 1 ? 0 : stride;
    stride *= in.dim(i);
  }
  return strides;
}

CollapsedBroadcast CollapseBroadcast(const Shape& a, const Shape& b, const Shape& out) {
  const std::vector<int64_t> sa = BroadcastStrides(a, out), sb = BroadcastStrides(b, out);
  CollapsedBroadcast c;
  for (int d = 0; d < out.rank(); ++d) {
    const int64_t dim = out.dim(d);
    if (dim == 1) continue;  // walks nothing
    if (!c.dims.empty()) {
      // Merge into the previous dimension when each input's previous stride is this
      // one's times this extent (contiguous across both, or 0 for both).
      const int64_t last = static_cast<int64_t>(c.dims.size()) - 1;
      if (c.sa[last] == sa[d] * dim && c.sb[last] == sb[d] * dim) {
        c.dims[last] *= dim;
        c.sa[last] = sa[d];
        c.sb[last] = sb[d];
        continue;
      }
    }
    c.dims.push_back(dim);
    c.sa.push_back(sa[d]);
    c.sb.push_back(sb[d]);
  }
  if (c.dims.empty()) c = {{1}, {0}, {0}};
  return c;
}

namespace {

// Below this many elements plain loops beat oneDNN's per-call overhead.
constexpr int64_t kDnnlMinElements = 16384;

// Python's floor division and modulo (the sign follows the divisor).
template <typename T>
inline T FloorDiv(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    T q = static_cast<T>(a / b);
    if constexpr (std::is_signed_v<T>) {
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    }
    return q;
  } else {
    return std::floor(a / b);
  }
}

template <typename T>
inline T FloorMod(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    T r = static_cast<T>(a % b);
    if constexpr (std::is_signed_v<T>) {
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    }
    return r;
  } else {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}

template <typename T>
inline T IntPow(T base, T exp) {
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

// Integer division and modulo: zero divisors and the one overflowing quotient
// (lowest / -1, which traps on x86) are errors, checked before computing.
template <typename T>
Status CheckIntegerDivision(const Tensor& a, const Tensor& b) {
  bool minus_one = false;
  for (T v : b.flat<T>()) {
    if (v == 0) return errors::InvalidArgument("Integer division by zero");
    if constexpr (std::is_signed_v<T>) minus_one |= (v == T(-1));
  }
  if constexpr (std::is_signed_v<T>) {
    if (minus_one) {
      for (T v : a.flat<T>()) {
        if (v == std::numeric_limits<T>::min()) {
          return errors::InvalidArgument(absl::StrCat(
              "Integer division overflow: ", +v, " / -1 does not fit in ", DTypeName(a.dtype())));
        }
      }
    }
  }
  return absl::OkStatus();
}

template <typename T>
Status Loop(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out,
            const CancellationToken* token) {
  if constexpr (std::is_integral_v<T>) {
    if (op == BinaryOp::kDiv || op == BinaryOp::kFloorDiv || op == BinaryOp::kFloorMod ||
        op == BinaryOp::kTruncateMod) {
      RETURN_IF_ERROR(CheckIntegerDivision<T>(a, b));
    }
    if (op == BinaryOp::kPow) {
      for (T v : b.flat<T>()) {
        if (v < 0) return errors::InvalidArgument("Integers to negative integer powers are not allowed");
      }
    }
  }
  auto run = [&](auto fn) { return BroadcastApply<T, T, T>(a, b, out, fn, token); };
  switch (op) {
    case BinaryOp::kAdd: return run([](T x, T y) { return WrapAdd(x, y); });
    case BinaryOp::kSub: return run([](T x, T y) { return WrapSub(x, y); });
    case BinaryOp::kMul: return run([](T x, T y) { return WrapMul(x, y); });
    case BinaryOp::kDiv: return run([](T x, T y) { return static_cast<T>(x / y); });
    case BinaryOp::kMax: return run([](T x, T y) { return MaxNaN(x, y); });
    case BinaryOp::kMin: return run([](T x, T y) { return MinNaN(x, y); });
    case BinaryOp::kFloorDiv: return run([](T x, T y) { return FloorDiv(x, y); });
    case BinaryOp::kFloorMod: return run([](T x, T y) { return FloorMod(x, y); });
    case BinaryOp::kTruncateMod:
      if constexpr (std::is_integral_v<T>) {
        return run([](T x, T y) { return static_cast<T>(x % y); });
      } else {
        return run([](T x, T y) { return std::fmod(x, y); });
      }
    case BinaryOp::kPow:
      if constexpr (std::is_integral_v<T>) {
        return run([](T x, T y) { return IntPow(x, y); });
      } else {
        return run([](T x, T y) { return static_cast<T>(std::pow(x, y)); });
      }
  }
  return errors::Internal("unknown binary op");
}

dnnl::algorithm DnnlAlgorithm(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return dnnl::algorithm::binary_add;
    case BinaryOp::kSub: return dnnl::algorithm::binary_sub;
    case BinaryOp::kMul: return dnnl::algorithm::binary_mul;
    case BinaryOp::kDiv: return dnnl::algorithm::binary_div;
    default: break;  // Maximum and Minimum too: oneDNN's lose NaNs (nan_min_max.h)
  }
  return dnnl::algorithm::undef;
}

// float32 with `a` already the output shape: oneDNN broadcasts src1. The shapes go to
// oneDNN with their dimensions merged (CollapseBroadcast): its JIT kernels take only
// some broadcast patterns (a trailing 1 in 4-D, as in (1,56,56,96) - (1,56,56,1), fell
// to its reference loop: 20 ms instead of 0.05 ms), and merged ones are those. Where
// oneDNN still has only its reference loop ((4,6,2,12000) - (1,6,1,12000): 42 ms) it
// returns false, and the caller's loops run.
bool DnnlBinary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  static auto* cache = new PrimitiveCache<std::optional<dnnl::binary>>(64);
  const CollapsedBroadcast c = CollapseBroadcast(a.shape(), b.shape(), out.shape());
  dnnl::memory::dims da(c.dims.begin(), c.dims.end()), db(c.dims.size(), 1);
  for (size_t d = 0; d < c.dims.size(); ++d) {
    if (c.sb[d] != 0) db[d] = c.dims[d];
  }
  std::vector<int64_t> key = da;
  key.insert(key.end(), db.begin(), db.end());
  key.push_back(static_cast<int64_t>(op));
  std::optional<dnnl::binary> prim = cache->Get(key, [&]() -> std::optional<dnnl::binary> {
    dnnl::binary::desc desc(DnnlAlgorithm(op), PlainDesc(da), PlainDesc(db), PlainDesc(da));
    dnnl::binary::primitive_desc pd(desc, PrimitiveAttr(), Engine());
    if (IsReference(pd)) return std::nullopt;
    return dnnl::binary(pd);
  });
  if (!prim.has_value()) return false;
  RunPrimitive(*prim, {{DNNL_ARG_SRC_0, Wrap(PlainDesc(da), a)},
                       {DNNL_ARG_SRC_1, Wrap(PlainDesc(db), b)},
                       {DNNL_ARG_DST, Wrap(PlainDesc(da), out)}},
               a.num_elements() + b.num_elements() + out.num_elements());
  return true;
}

}  // namespace

StatusOr<BinaryOp> BinaryOpFromName(absl::string_view op) {
  if (op == "Add") return BinaryOp::kAdd;
  if (op == "Sub") return BinaryOp::kSub;
  if (op == "Mul") return BinaryOp::kMul;
  if (op == "Div") return BinaryOp::kDiv;
  if (op == "Maximum") return BinaryOp::kMax;
  if (op == "Minimum") return BinaryOp::kMin;
  if (op == "FloorDiv") return BinaryOp::kFloorDiv;
  if (op == "FloorMod") return BinaryOp::kFloorMod;
  if (op == "TruncateMod") return BinaryOp::kTruncateMod;
  if (op == "Pow") return BinaryOp::kPow;
  return errors::InvalidArgument(absl::StrCat("'", op, "' is not a binary elementwise op"));
}

StatusOr<Tensor> ComputeBinary(BinaryOp op, const Tensor& a, const Tensor& b,
                               const CancellationToken* token) {
  if (a.dtype() != b.dtype()) {
    return errors::InvalidArgument(absl::StrCat("operands are ", DTypeName(a.dtype()), " and ",
                                                DTypeName(b.dtype())));
  }
  if (a.dtype() == DType::kFloat16 || a.dtype() == DType::kBFloat16) {
    // Computed in float32 (exact for both), rounded back to nearest even.
    ASSIGN_OR_RETURN(Tensor fa, CastTensor(a, DType::kFloat32, token));
    ASSIGN_OR_RETURN(Tensor fb, CastTensor(b, DType::kFloat32, token));
    ASSIGN_OR_RETURN(Tensor fo, ComputeBinary(op, fa, fb, token));
    return CastTensor(fo, a.dtype(), token);
  }
  ASSIGN_OR_RETURN(PartialShape ps, BroadcastShapes(a.shape(), b.shape()));
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(a.dtype(), ps.ToShape()));
  if (out.num_elements() == 0) return out;
  if (FlatBinaryF32(op, a, b, out) || RowBroadcastF32(op, a, b, out)) return out;
  if (a.dtype() == DType::kFloat32 && out.num_elements() >= kDnnlMinElements &&
      DnnlAlgorithm(op) != dnnl::algorithm::undef) {
    if (a.shape() == out.shape() && b.shape().rank() <= a.shape().rank() && DnnlBinary(op, a, b, out)) return out;
    // oneDNN broadcasts its second operand only: a commutative op with the broadcast
    // operand first (torch's squeeze-excitation writes scale * x) swaps them. On the
    // generic loop EfficientNet's [1, 32, 112, 112] scaling took 135 us, 3x oneDNN's.
    const bool commutes = op == BinaryOp::kAdd || op == BinaryOp::kMul;
    if (commutes && b.shape() == out.shape() && a.shape().rank() <= b.shape().rank() && DnnlBinary(op, b, a, out)) {
      return out;
    }
  }
  RETURN_IF_ERROR(DispatchNumericAll(a.dtype(), [&]<typename T>() -> Status {
    if constexpr (std::is_same_v<T, bool>) {
      return errors::Unimplemented("arithmetic on bool tensors");
    } else {
      return Loop<T>(op, a, b, out, token);
    }
  }));
  return out;
}

}  // namespace graphd::executor::cpu
