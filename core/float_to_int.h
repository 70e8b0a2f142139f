// Float to integer conversion defined for every input. C++ leaves the conversion of NaN,
// infinities and values outside the integer type's range undefined (UBSan's
// float-cast-overflow), and tensor data, attributes and constants come from clients, so
// no kernel or shape function converts a data-derived float with a bare static_cast.
//
//   * TruncateToInt<I>(f): what TensorFlow's CPU kernels give on x86-64 (the hardware's
//     truncating conversion, cvttss2si/cvttsd2si): truncation toward zero in range;
//     NaN and out-of-range values give the "integer indefinite" value (the minimum) for
//     int32/int64; 8- and 16-bit types convert through int32 and uint32 through int64,
//     then wrap modulo 2^bits (300.0 -> uint8 44, -1.0 -> uint8 255); uint64 takes
//     [2^63, 2^64) exactly, gives 0 from 2^64 up and converts the rest through int64.
//   * TruncateInRange<I>(f): the truncated value when it is finite and in I's range,
//     else nullopt (for sizes and indices, where an out-of-range value is an error).
#ifndef GRAPHD_CORE_FLOAT_TO_INT_H_
#define GRAPHD_CORE_FLOAT_TO_INT_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

namespace graphd {

namespace float_to_int_internal {

// [2^(bits-1) negated, 2^(bits-1)) for signed I, [0, 2^bits) for unsigned, as F: both
// bounds are powers of two, exact in every floating type.
template <typename I, typename F>
constexpr F Low() {
  return static_cast<F>(std::numeric_limits<I>::min());
}
template <typename I, typename F>
constexpr F HighExclusive() {
  return static_cast<F>(std::numeric_limits<I>::max() / 2 + 1) * F(2);
}

// Truncation to a signed 32- or 64-bit type, out of range and NaN giving the minimum.
template <typename W, typename F>
W Indefinite(F f) {
  if (f >= Low<W, F>() && f < HighExclusive<W, F>()) return static_cast<W>(f);
  return std::numeric_limits<W>::min();  // NaN fails both comparisons
}

}  // namespace float_to_int_internal

template <typename I, typename F>
std::optional<I> TruncateInRange(F f) {
  static_assert(std::is_integral_v<I> && std::is_floating_point_v<F>);
  using namespace float_to_int_internal;
  // Values in (Low - 1, Low) truncate to Low, which is in range (Low - 1 may round to
  // Low in F, hence both comparisons).
  if ((f >= Low<I, F>() || f > Low<I, F>() - F(1)) && f < HighExclusive<I, F>()) return static_cast<I>(f);
  return std::nullopt;
}

template <typename I, typename F>
I TruncateToInt(F f) {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool> && std::is_floating_point_v<F>);
  using namespace float_to_int_internal;
  if constexpr (std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>) {
    return Indefinite<I>(f);
  } else if constexpr (sizeof(I) < 4) {
    return static_cast<I>(Indefinite<int32_t>(f));  // wraps (C++20)
  } else if constexpr (sizeof(I) == 4) {
    return static_cast<I>(Indefinite<int64_t>(f));
  } else {
    static_assert(std::is_same_v<I, uint64_t>);
    if (f >= F(0) && f < HighExclusive<uint64_t, F>()) return static_cast<uint64_t>(f);
    if (f >= HighExclusive<uint64_t, F>()) return 0;
    return static_cast<uint64_t>(Indefinite<int64_t>(f));
  }
}

}  // namespace graphd

#endif  // GRAPHD_CORE_FLOAT_TO_INT_H_
