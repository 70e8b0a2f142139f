// float32 exp, log, tanh and sigmoid written so that GCC vectorises loops calling
// them (no library calls, no branches: selects only; the including file is compiled
// with -fno-trapping-math -fno-math-errno so that GCC if-converts and vectorises, and
// -ffp-contract=off so that every instruction set gives the same values).
// Cephes-style range reduction and polynomials, within ~1.5 ulp of the C library.
// NaN in gives NaN out; overflow gives inf, underflow 0 (gradually, through
// denormals, for exp).
#ifndef GRAPHD_EXECUTOR_CPU_FAST_MATH_H_
#define GRAPHD_EXECUTOR_CPU_FAST_MATH_H_

#include <bit>
#include <cstdint>
#include <limits>

namespace graphd::executor::cpu::fast_math {

inline float Pow2(int32_t n) { return std::bit_cast<float>((n + 127) << 23); }  // n in [-126, 127]

inline float Exp(float x) {
  const float c = x < -104.f ? -104.f : (x > 88.8f ? 88.8f : (x != x ? 0.f : x));
  const float t = c * 1.44269504088896341f;
  // Round to nearest by adding 1.5 * 2^23: the integer lands in the low mantissa bits.
  constexpr float kMagic = 12582912.f;
  const float shifted = t + kMagic;
  const int32_t n = std::bit_cast<int32_t>(shifted) - std::bit_cast<int32_t>(kMagic);
  const float fn = shifted - kMagic;
  float r = c - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * (r * r) + r + 1.f;
  const int32_t n1 = n >> 1;  // 2^n as two factors: n in [-150, 128]
  const float out = y * Pow2(n1) * Pow2(n - n1);
  return x != x ? x : out;
}

inline float Log(float x) {
  const bool tiny = x < std::numeric_limits<float>::min();  // denormal (or <= 0)
  const float s = tiny ? x * 8388608.f : x;                 // * 2^23
  const int32_t bits = std::bit_cast<int32_t>(s);
  int32_t e = ((bits >> 23) & 0xff) - 127 - (tiny ? 23 : 0);
  float m = std::bit_cast<float>((bits & 0x007fffff) | 0x3f800000);  // [1, 2)
  const bool big = m > 1.41421356f;
  m = big ? m * 0.5f : m;
  e = big ? e + 1 : e;
  const float f = m - 1.f;
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = p * f - 1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f - 1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f - 1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f - 2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  const float fe = static_cast<float>(e);
  float y = p * f * z;
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  float out = f + y + fe * 0.693359375f;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  out = x == 0.f ? -kInf : out;
  out = x == kInf ? kInf : out;
  out = x < 0.f ? std::numeric_limits<float>::quiet_NaN() : out;
  return x != x ? x : out;
}

inline float Tanh(float x) {
  const float a = x < 0.f ? -x : x;
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float big = 1.f - 2.f / (Exp(2.f * a) + 1.f);
  const float signed_big = x < 0.f ? -big : big;
  return a < 0.625f ? small : signed_big;  // NaN: big, which is NaN
}

inline float Sigmoid(float x) { return 1.f / (1.f + Exp(-x)); }

// erf within 3 ulp of the exact value: x * P(x^2) below 1, 1 - Q((|x| - 2.5) / 1.5)
// (a fit of erfc) on [1, 4), 1 beyond (erf rounds to 1 from 3.92). Odd; NaN stays NaN.
// The coefficients are least-squares fits made for this function by
// scripts/fit_erf.py, which also reports the error (2.6 ulp below 1, 1.8 above).
inline float Erf(float x) {
  const float a = x < 0.f ? -x : x;
  const float z = x * x;
  float p = 8.006858630e-05f;
  p = p * z - 8.053746282e-04f;
  p = p * z + 5.192957289e-03f;
  p = p * z - 2.685606924e-02f;
  p = p * z + 1.128363463e-01f;
  p = p * z - 3.761262977e-01f;
  p = p * z + 1.128379166e+00f;
  const float small = x * p;
  const float t = (a < 4.f ? a : 4.f) * 0.666666667f - 1.666666667f;
  float q = 1.163719779e-03f;
  q = q * t - 1.840208805e-03f;
  q = q * t - 3.520635494e-03f;
  q = q * t + 1.076856694e-02f;
  q = q * t - 7.384878727e-03f;
  q = q * t - 9.783916846e-03f;
  q = q * t + 3.211719062e-02f;
  q = q * t - 4.633281735e-02f;
  q = q * t + 4.361225788e-02f;
  q = q * t - 2.819411378e-02f;
  q = q * t + 1.225513325e-02f;
  q = q * t - 3.267045718e-03f;
  q = q * t + 4.069301426e-04f;
  const float big = a >= 4.f ? 1.f : 1.f - q;
  const float out = a < 1.f ? small : (x < 0.f ? -big : big);
  return x != x ? x : out;
}

}  // namespace graphd::executor::cpu::fast_math

#endif  // GRAPHD_EXECUTOR_CPU_FAST_MATH_H_
