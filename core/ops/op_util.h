// Helpers shared by the op families' inference functions: axis canonicalisation,
// dtype checks and attribute readers. Every error names the node (InferenceContext::Error).
#ifndef GRAPHD_CORE_OPS_OP_UTIL_H_
#define GRAPHD_CORE_OPS_OP_UTIL_H_

#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <span>
#include <type_traits>

#include "core/graph/op_def.h"

namespace graphd::ops {

inline constexpr DType kFloatDTypes[] = {DType::kFloat32, DType::kFloat64};
// The numeric dtypes the CPU kernels compute in (see executor/cpu/kernels.h).
inline constexpr DType kNumberDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt8,
                                          DType::kInt16,   DType::kInt32,   DType::kInt64,
                                          DType::kUInt8};

// `axis` made non-negative for a tensor of `rank`; valid axes are [-rank, rank).
// Error: "<what> A is out of range for a tensor of rank R".
StatusOr<int> CanonicalAxis(const InferenceContext& c, int64_t axis, int rank,
                            absl::string_view what = "axis");

// OK when `dtype` is one of `allowed`; else "<what> is X, expected one of (a, b)".
Status CheckDType(const InferenceContext& c, DType dtype, std::span<const DType> allowed,
                  absl::string_view what = "dtype");
Status CheckDType(const InferenceContext& c, DType dtype, std::initializer_list<DType> allowed,
                  absl::string_view what = "dtype");

// A numeric attribute given as an int or a float (OneHot's on_value, Pad's
// constant_values), or `fallback` when absent.
StatusOr<double> NumberAttr(const InferenceContext& c, absl::string_view name, double fallback);

// A list(int) attribute whose entries must all be >= `min`.
StatusOr<IntList> IntListAttr(const InferenceContext& c, absl::string_view name, int64_t min);

// A string attribute that must be one of `choices`.
StatusOr<std::string> EnumAttr(const InferenceContext& c, absl::string_view name,
                               std::initializer_list<absl::string_view> choices,
                               absl::string_view fallback);

// A known rank-r shape of unknown dims.
PartialShape UnknownDims(int rank);

// The number of elements of Range(start, limit, delta), with TensorFlow's checks:
// delta != 0 and the direction of delta matching limit - start. Errors carry no node.
template <typename T>
StatusOr<int64_t> RangeSize(T start, T limit, T delta) {
  if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
  if (delta > 0 && start > limit) {
    return errors::InvalidArgument(
        absl::StrCat("Requires start <= limit when delta > 0: ", start, "/", limit));
  }
  if (delta < 0 && start < limit) {
    return errors::InvalidArgument(
        absl::StrCat("Requires start >= limit when delta < 0: ", start, "/", limit));
  }
  if constexpr (std::is_integral_v<T>) {
    // |limit - start| and |delta| as unsigned 64-bit: no overflow for any int64.
    uint64_t span = delta > 0 ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                              : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
    uint64_t step = delta > 0 ? static_cast<uint64_t>(delta) : 0 - static_cast<uint64_t>(delta);
    return static_cast<int64_t>(span / step + (span % step != 0 ? 1 : 0));
  } else {
    double size = std::ceil(std::abs((static_cast<double>(limit) - static_cast<double>(start)) /
                                     static_cast<double>(delta)));
    if (!(size >= 0) || size > static_cast<double>(std::numeric_limits<int64_t>::max() / 2)) {
      return errors::InvalidArgument(absl::StrCat("Range of ", start, " to ", limit, " by ",
                                                  delta, " has too many elements"));
    }
    return static_cast<int64_t>(size);
  }
}

}  // namespace graphd::ops

#endif  // GRAPHD_CORE_OPS_OP_UTIL_H_
