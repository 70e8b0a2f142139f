// Swish (x * sigmoid(x), SiLU) over a float32 buffer in place, and the sigmoid itself
// (1 / (1 + exp(-x))), vectorised for the host and split over the OpenMP team. Swish:
// the activation after EfficientNet-style convolutions, applied by the ConvND kernel
// after oneDNN's primitive instead of as a oneDNN eltwise post-op (in EfficientNet-B0
// the post-op was ~1 ms slower per call). oneDNN 2.6's swish costs ~0.65 ns per value
// per core on AVX-512, these loops ~0.4 (kernels_bench BM_Swish/N/1 against
// BM_Swish/N/0), most of it the exp and the division (which hold the vector ports: a
// reciprocal estimate with a correction step instead measured no faster).
//
// Values: x / (1 + exp(-x)) with a Cephes-style exp (as fast_math.h's, within ~1.5
// ulp) and an IEEE division, so within a few ulp of the exact function. NaN stays NaN,
// +inf gives +inf and -inf NaN (as x / (1 + exp(-x)) in the C library); below about
// -87, where exp(-x) overflows, the result is -0 (or a tiny value) where the exact one
// is under 1e-35 in magnitude (-7.4e-38 at -90, normal down to about -92.6), as
// float32's x / (1 + exp(-x)) and x * sigmoid(x) give. Sigmoid: 1 / (1 + exp(-x)) the
// same way; NaN stays NaN, +inf gives 1, -inf 0, and below about -87 the result is 0
// or a tiny value (the exact one under 1.7e-38: TensorFlow's CPU kernels, flushing
// denormals, give 0 there too). The Sigmoid op's float32 kernel runs it
// (activation_kernels.cc): oneDNN's logistic forked the team and paid its call set-up
// for EfficientNet's 16 squeeze-and-excite gates of <= 1152 values.
#ifndef GRAPHD_EXECUTOR_CPU_SWISH_H_
#define GRAPHD_EXECUTOR_CPU_SWISH_H_

#include <cstdint>

namespace graphd::executor::cpu {

// x[i] = x[i] / (1 + exp(-x[i])) for i in [0, n), on the OpenMP team when n is large
// enough to pay for the fork.
void SwishInPlace(float* x, int64_t n);

// The same on the calling thread only.
void SwishRange(float* x, int64_t n);

// y[i] = 1 / (1 + exp(-x[i])) for i in [0, n) (y may be x), on the team as SwishInPlace.
void Sigmoid(const float* x, float* y, int64_t n);

// Each instruction set's loop, for tests: SwishRangeOn runs `isa`'s, which the host
// must have (HostHas).
enum class SwishIsa { kAvx512, kAvx2, kPortable };
bool HostHas(SwishIsa isa);
void SwishRangeOn(SwishIsa isa, float* x, int64_t n);
void SigmoidRangeOn(SwishIsa isa, const float* x, float* y, int64_t n);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_SWISH_H_
