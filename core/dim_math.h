// Checked arithmetic for sizes computed from what a client sent (attributes, shape
// tensors, dimensions): each returns InvalidArgument naming `what` instead of wrapping
// around, so a shape function or kernel never computes a wrong but valid-looking size
// (Tile of [4] by 2^62 wrapped to [0], and then wrote 2^64 elements).
#ifndef GRAPHD_CORE_DIM_MATH_H_
#define GRAPHD_CORE_DIM_MATH_H_

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/status.h"

namespace graphd {

inline StatusOr<int64_t> CheckedMul(int64_t a, int64_t b, absl::string_view what) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) {
    return errors::InvalidArgument(absl::StrCat(what, ": ", a, " * ", b, " does not fit in int64"));
  }
  return out;
}

inline StatusOr<int64_t> CheckedAdd(int64_t a, int64_t b, absl::string_view what) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) {
    return errors::InvalidArgument(absl::StrCat(what, ": ", a, " + ", b, " does not fit in int64"));
  }
  return out;
}

inline StatusOr<int64_t> CheckedSub(int64_t a, int64_t b, absl::string_view what) {
  int64_t out;
  if (__builtin_sub_overflow(a, b, &out)) {
    return errors::InvalidArgument(absl::StrCat(what, ": ", a, " - ", b, " does not fit in int64"));
  }
  return out;
}

}  // namespace graphd

#endif  // GRAPHD_CORE_DIM_MATH_H_
