// Element type conversion: the Cast kernel, and the float32 round trip that lets the
// arithmetic kernels serve 16-bit floats.
#ifndef GRAPHD_EXECUTOR_CPU_CAST_H_
#define GRAPHD_EXECUTOR_CPU_CAST_H_

#include <string>

#include "core/cancellation.h"
#include "core/tensor.h"

namespace graphd::executor::cpu {

// Whether CastTensor converts `src` to `dst`: any two of the numeric dtypes and bool,
// and string to or from a numeric dtype (not bool). Same dtypes always can.
bool CanCast(DType src, DType dst);

// `in` converted element by element to `dst` (a new tensor; `in` itself when the dtypes
// are equal):
//   * to bool: x != 0 (NaN is true); from bool: 0 or 1;
//   * between integers: C++ conversion (wraps modulo 2^bits);
//   * float to integer: truncation toward zero; NaN, infinities and out-of-range values
//     (undefined in ONNX and C++) give what TensorFlow's CPU kernels give on x86-64
//     (TruncateToInt in core/float_to_int.h: the minimum for int32/int64, NaN -> int32
//     -2147483648; narrower types wrap through int32). The GPU kernel gives CUDA's
//     saturating conversion (NaN -> 0), as TensorFlow's GPU kernels do;
//   * to float16/bfloat16: round to nearest even from the exact source value, overflow
//     to infinity; from them: exact;
//   * numeric to string: integers in decimal; floats in the shortest form that reads
//     back to the same value of their dtype ("0.1", "1e-05"), "NaN", "INF", "-INF";
//   * string to numeric: decimal or scientific notation, optional sign, surrounding
//     spaces ignored; "NaN", "INF", "+INF", "-INF" (any case; also "inf", "infinity");
//     to an integer dtype a fractional value truncates ("100.5" -> 100). Text that is
//     not a number, or out of the integer dtype's range, is InvalidArgument.
// Polls `token` (may be null) between blocks of elements.
StatusOr<Tensor> CastTensor(const Tensor& in, DType dst, const CancellationToken* token = nullptr);

// The text Cast gives a float/double element (see above); exposed for tests.
std::string FloatToString(double value, DType dtype);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_CAST_H_
