// Maximum and minimum as TensorFlow computes them: a NaN in either operand gives NaN
// (Eigen's PropagateNaN: tensorflow/core/kernels/cwise_ops.h for Maximum/Minimum, the
// MaxReducer/MinReducer of its Max/Min reductions; numpy's maximum and max agree).
// Neither oneDNN 2.6 nor x86's maxps/minps does that: they return the other operand
// when one is NaN, so the answer would depend on the operands' order and on which path
// a shape takes (binary_max(NaN, 5) gives 5 and binary_max(5, NaN) NaN; its max
// reduction drops the NaN of a row holding one). graphd's CPU kernels use these for
// every floating-point Maximum, Minimum, Max and Min, and never oneDNN's.
//
// Otherwise as std::max / std::min: equal operands (-0 and +0) give the first.
// Written as compare-and-select so that loops over arrays vectorise.
#ifndef GRAPHD_EXECUTOR_CPU_NAN_MIN_MAX_H_
#define GRAPHD_EXECUTOR_CPU_NAN_MIN_MAX_H_

namespace graphd::executor::cpu {

template <typename T>
inline T MaxNaN(T x, T y) {
  // x NaN: both tests fail and x stays; y NaN: the second test takes it.
  return (x < y || y != y) ? y : x;
}

template <typename T>
inline T MinNaN(T x, T y) {
  return (y < x || y != y) ? y : x;
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_NAN_MIN_MAX_H_
