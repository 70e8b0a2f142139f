// exp over 16 float32 lanes with AVX-512 intrinsics, for the loops that GCC's
// auto-vectorised fast_math::Exp leaves slow (its 2^n is two integer-built factors and
// its clamps are selects; here vroundscaleps and vscalefps): swish.h's and
// softmax_rows.h's. The same Cody-Waite split and Cephes polynomial as fast_math.h,
// within ~1.5 ulp; the caller clamps t (vscalefps takes any n: to inf above 127,
// through the denormals to 0 below -126). NaN in gives NaN out. Include only from
// functions compiled for AVX-512 (target("avx512f")).
#ifndef GRAPHD_EXECUTOR_CPU_EXP16_H_
#define GRAPHD_EXECUTOR_CPU_EXP16_H_

#include <immintrin.h>

namespace graphd::executor::cpu {

// exp(t) = 2^n * (1 + r + r^2 p(r)) with t = n ln2 + r, ln 2 split in two (shared with
// swish.cc's AVX2 loop).
inline constexpr float kExpLog2e = 1.44269504088896341f;
inline constexpr float kExpLn2Hi = 0.693359375f;
inline constexpr float kExpLn2Lo = -2.12194440e-4f;
inline constexpr float kExpP[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                   4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

__attribute__((target("avx512f"))) inline __m512 Exp16(__m512 t) {
  const __m512 fn =
      _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(kExpLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(fn, _mm512_set1_ps(kExpLn2Hi), t);
  r = _mm512_fnmadd_ps(fn, _mm512_set1_ps(kExpLn2Lo), r);
  __m512 p = _mm512_set1_ps(kExpP[0]);
  for (int c = 1; c < 6; ++c) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP[c]));
  const __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.f)));
  return _mm512_scalef_ps(y, fn);
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_EXP16_H_
