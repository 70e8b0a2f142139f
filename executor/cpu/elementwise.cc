#include "executor/cpu/elementwise.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"

namespace graphd::executor::cpu {
namespace {

// Below this many elements plain loops beat oneDNN's per-call overhead.
constexpr int64_t kDnnlMinElements = 16384;

template <typename T>
inline T Apply(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kAdd: return static_cast<T>(a + b);
    case BinaryOp::kSub: return static_cast<T>(a - b);
    case BinaryOp::kMul: return static_cast<T>(a * b);
    case BinaryOp::kDiv: return static_cast<T>(a / b);
    case BinaryOp::kMax: return std::max(a, b);
    case BinaryOp::kMin: return std::min(a, b);
  }
  return T{};
}

// Strides of `in` (right-aligned to `out`) in units of elements; 0 on broadcast dims.
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

// Elements between cancellation checks in the plain loops.
constexpr int64_t kCheckEvery = int64_t{1} << 16;

template <typename T>
Status Loop(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out,
            const CancellationToken* token) {
  if constexpr (std::is_integral_v<T>) {
    if (op == BinaryOp::kDiv) {
      bool minus_one = false;
      for (T v : b.flat<T>()) {
        if (v == 0) return errors::InvalidArgument("Integer division by zero");
        if constexpr (std::is_signed_v<T>) minus_one |= (v == T(-1));
      }
      if constexpr (std::is_signed_v<T>) {
        // The most negative value divided by -1 does not fit (and traps on x86).
        if (minus_one) {
          for (T v : a.flat<T>()) {
            if (v == std::numeric_limits<T>::min()) {
              return errors::InvalidArgument(absl::StrCat(
                  "Integer division overflow: ", +v, " / -1 does not fit in ", DTypeName(a.dtype())));
            }
          }
        }
      }
    }
  }
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.data<T>();
  int64_t n = out.num_elements();
  auto check = [&]() -> Status { return token ? token->Check() : absl::OkStatus(); };
  if (a.shape() == out.shape() && (b.shape() == out.shape() || b.num_elements() == 1)) {
    bool scalar_b = b.shape() != out.shape();
    for (int64_t start = 0; start < n; start += kCheckEvery) {
      RETURN_IF_ERROR(check());
      int64_t end = std::min(n, start + kCheckEvery);
      if (scalar_b) {
        for (int64_t i = start; i < end; ++i) po[i] = Apply(op, pa[i], pb[0]);
      } else {
        for (int64_t i = start; i < end; ++i) po[i] = Apply(op, pa[i], pb[i]);
      }
    }
    return absl::OkStatus();
  }
  const Shape& shape = out.shape();
  std::vector<int64_t> sa = BroadcastStrides(a.shape(), shape);
  std::vector<int64_t> sb = BroadcastStrides(b.shape(), shape);
  std::vector<int64_t> index(shape.rank(), 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i % kCheckEvery == 0) RETURN_IF_ERROR(check());
    po[i] = Apply(op, pa[ia], pb[ib]);
    for (int d = shape.rank() - 1; d >= 0; --d) {  // odometer increment
      ia += sa[d];
      ib += sb[d];
      if (++index[d] < shape.dim(d)) break;
      ia -= sa[d] * shape.dim(d);
      ib -= sb[d] * shape.dim(d);
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

dnnl::algorithm DnnlAlgorithm(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return dnnl::algorithm::binary_add;
    case BinaryOp::kSub: return dnnl::algorithm::binary_sub;
    case BinaryOp::kMul: return dnnl::algorithm::binary_mul;
    case BinaryOp::kDiv: return dnnl::algorithm::binary_div;
    case BinaryOp::kMax: return dnnl::algorithm::binary_max;
    case BinaryOp::kMin: return dnnl::algorithm::binary_min;
  }
  return dnnl::algorithm::binary_add;
}

// float32 with `a` already the output shape: oneDNN broadcasts src1.
void DnnlBinary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  static auto* cache = new PrimitiveCache<dnnl::binary>(64);
  dnnl::memory::dims da = DnnlDims(a.shape());
  dnnl::memory::dims db(da.size(), 1);
  const auto& bd = b.shape().dims();
  std::copy(bd.begin(), bd.end(), db.end() - static_cast<long>(bd.size()));
  std::vector<int64_t> key = da;
  key.insert(key.end(), db.begin(), db.end());
  key.push_back(static_cast<int64_t>(op));
  dnnl::binary prim = cache->Get(key, [&] {
    dnnl::binary::desc desc(DnnlAlgorithm(op), PlainDesc(da), PlainDesc(db), PlainDesc(da));
    return dnnl::binary(dnnl::binary::primitive_desc(desc, PrimitiveAttr(), Engine()));
  });
  RunPrimitive(prim, {{DNNL_ARG_SRC_0, Wrap(PlainDesc(da), a)},
                      {DNNL_ARG_SRC_1, Wrap(PlainDesc(db), b)},
                      {DNNL_ARG_DST, Wrap(PlainDesc(da), out)}});
}

}  // namespace

StatusOr<BinaryOp> BinaryOpFromName(absl::string_view op) {
  if (op == "Add") return BinaryOp::kAdd;
  if (op == "Sub") return BinaryOp::kSub;
  if (op == "Mul") return BinaryOp::kMul;
  if (op == "Div") return BinaryOp::kDiv;
  if (op == "Maximum") return BinaryOp::kMax;
  if (op == "Minimum") return BinaryOp::kMin;
  return errors::InvalidArgument(absl::StrCat("'", op, "' is not a binary elementwise op"));
}

StatusOr<Tensor> ComputeBinary(BinaryOp op, const Tensor& a, const Tensor& b,
                               const CancellationToken* token) {
  if (a.dtype() != b.dtype()) {
    return errors::InvalidArgument(absl::StrCat("operands are ", DTypeName(a.dtype()), " and ",
                                                DTypeName(b.dtype())));
  }
  ASSIGN_OR_RETURN(PartialShape ps, BroadcastShapes(a.shape(), b.shape()));
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(a.dtype(), ps.ToShape()));
  if (out.num_elements() == 0) return out;
  if (a.dtype() == DType::kFloat32 && out.num_elements() >= kDnnlMinElements &&
      a.shape() == out.shape() && b.shape().rank() <= a.shape().rank()) {
    DnnlBinary(op, a, b, out);
    return out;
  }
  RETURN_IF_ERROR(DispatchNumeric(a.dtype(), [&]<typename T>() -> Status {
    if constexpr (std::is_same_v<T, bool>) {
      return errors::Unimplemented("arithmetic on bool tensors");
    } else {
      return Loop<T>(op, a, b, out, token);
    }
  }));
  return out;
}

}  // namespace graphd::executor::cpu
