// Integer tensor arithmetic wraps modulo 2^bits (two's complement), as TensorFlow's and
// numpy's kernels do. C++ leaves signed overflow undefined (and promotes 8- and 16-bit
// operands to int, where even uint16 * uint16 can overflow), and tensors come from
// clients, so kernels add, subtract and multiply integers through these. For floating
// and other non-integer types they are the plain operators.
#ifndef GRAPHD_EXECUTOR_CPU_WRAP_MATH_H_
#define GRAPHD_EXECUTOR_CPU_WRAP_MATH_H_

#include <type_traits>

namespace graphd::executor::cpu {

template <typename T>
inline constexpr bool kWrapsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// An unsigned type at least as wide as T and as unsigned int (no promotion to int).
template <typename T>
using WrapUnsigned = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
constexpr T WrapAdd(T a, T b) {
  if constexpr (kWrapsInteger<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) + static_cast<WrapUnsigned<T>>(b));
  } else {
    return static_cast<T>(a + b);
  }
}

template <typename T>
constexpr T WrapSub(T a, T b) {
  if constexpr (kWrapsInteger<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) - static_cast<WrapUnsigned<T>>(b));
  } else {
    return static_cast<T>(a - b);
  }
}

template <typename T>
constexpr T WrapMul(T a, T b) {
  if constexpr (kWrapsInteger<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) * static_cast<WrapUnsigned<T>>(b));
  } else {
    return static_cast<T>(a * b);
  }
}

template <typename T>
constexpr T WrapNeg(T a) {
  return WrapSub(T(0), a);
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_WRAP_MATH_H_
