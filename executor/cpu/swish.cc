#include "executor/cpu/swish.h"

// GCC 12's AVX-512 min/max/roundscale/scalef intrinsics start from
// _mm512_undefined_ps(), which -Wmaybe-uninitialized reports once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>

#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/exp16.h"
#include "executor/cpu/fast_math.h"

namespace graphd::executor::cpu {
namespace {

// Below this many values one thread does it all: the fork costs more.
constexpr int64_t kParallelValues = 16384;

// Where exp(-x) is clamped from below: for x >= 17.4 it is under 2^-25 and 1 + exp(-x)
// rounds to 1, so any t = -x below -17.4 gives the same swish. Left at exp's range
// (-100), x from 87 up made exp's 2^n a denormal, each a microcode assist (~100
// cycles).
constexpr float kSwishLowT = -20.f;

// num / (1 + exp(-x)) with the same clamp (std::max keeps a NaN in its first operand):
// the swish with num = x, the sigmoid with num = 1.
inline float ScalarLogistic(float x, float num) { return num / (1.f + fast_math::Exp(std::max(-x, kSwishLowT))); }

// num / (1 + exp(-x)) with exp16.h's exp of -x clamped to [kSwishLowT, 100] (the swish
// of x beyond that is x, or 0, the sigmoid 1 or 0, to float precision; exp(100) is
// inf). max and min return their second operand for NaN, which -x is here: a NaN x
// stays NaN through the exp.
__attribute__((target("avx512f"))) inline __m512 Logistic16(__m512 v, __m512 num) {
  const __m512 t = _mm512_min_ps(_mm512_set1_ps(100.f),
                                 _mm512_max_ps(_mm512_set1_ps(kSwishLowT), _mm512_sub_ps(_mm512_setzero_ps(), v)));
  return _mm512_div_ps(num, _mm512_add_ps(_mm512_set1_ps(1.f), Exp16(t)));
}

// x (swish) or 1 (sigmoid) over 1 + exp(-x), from x into y (which may be x).
__attribute__((target("avx512f"))) void Avx512(const float* x, float* y, int64_t n, bool sigmoid) {
  const __m512 one = _mm512_set1_ps(1.f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    _mm512_storeu_ps(y + i, Logistic16(v, sigmoid ? one : v));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    _mm512_mask_storeu_ps(y + i, m, Logistic16(v, sigmoid ? one : v));
  }
}

// The same in 8 lanes. t is clamped to [kSwishLowT, 100] and 2^n built from the exponent
// bits as two factors (n in [-126, 145]), so that large n still overflows to inf.
__attribute__((target("avx2,fma"))) void Avx2(const float* x, float* y, int64_t n, bool sigmoid) {
  const __m256 lo = _mm256_set1_ps(kSwishLowT), hi = _mm256_set1_ps(100.f), one = _mm256_set1_ps(1.f);
  const __m256i bias = _mm256_set1_epi32(127);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 t = _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_sub_ps(_mm256_setzero_ps(), v)));
    const __m256 fn = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(kExpLog2e)),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(fn, _mm256_set1_ps(kExpLn2Hi), t);
    r = _mm256_fnmadd_ps(fn, _mm256_set1_ps(kExpLn2Lo), r);
    __m256 p = _mm256_set1_ps(kExpP[0]);
    for (int c = 1; c < 6; ++c) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpP[c]));
    const __m256 q = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, one));
    const __m256i ni = _mm256_cvtps_epi32(fn);
    const __m256i n1 = _mm256_srai_epi32(ni, 1);
    const __m256i n2 = _mm256_sub_epi32(ni, n1);
    const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    const __m256 e = _mm256_mul_ps(_mm256_mul_ps(q, s1), s2);
    _mm256_storeu_ps(y + i, _mm256_div_ps(sigmoid ? one : v, _mm256_add_ps(one, e)));
  }
  for (; i < n; ++i) y[i] = ScalarLogistic(x[i], sigmoid ? 1.f : x[i]);
}

void Scalar(const float* x, float* y, int64_t n, bool sigmoid) {
  for (int64_t i = 0; i < n; ++i) y[i] = ScalarLogistic(x[i], sigmoid ? 1.f : x[i]);
}

using Loop = void (*)(const float*, float*, int64_t, bool);

Loop LoopOf(SwishIsa isa) {
  switch (isa) {
    case SwishIsa::kAvx512: return &Avx512;
    case SwishIsa::kAvx2: return &Avx2;
    case SwishIsa::kPortable: return &Scalar;
  }
  return &Scalar;
}

Loop HostLoop() {
  static const Loop loop = [] {
    for (SwishIsa isa : {SwishIsa::kAvx512, SwishIsa::kAvx2}) {
      if (HostHas(isa)) return LoopOf(isa);
    }
    return LoopOf(SwishIsa::kPortable);
  }();
  return loop;
}

// The host's loop over x -> y on the OpenMP team when n is large enough.
void OnTeam(const float* x, float* y, int64_t n, bool sigmoid) {
  const Loop loop = HostLoop();
  const int threads = TeamThreads();
  if (threads <= 1 || n < kParallelValues) {
    loop(x, y, n, sigmoid);
    return;
  }
  // One contiguous piece per thread (whole cache lines), thread t the t-th, which
  // appears to match how oneDNN's convolution before it split its output (each thread
  // then reads back mostly what it wrote, from its own L2); dynamic chunks of an eighth
  // (before) interleaved the threads. Measured alternately: kernels_bench
  // BM_ConvSwish/0/1 475-539 -> 431-448 us, /1/1 221-229 -> 190-199; EfficientNet-B0's
  // execute (model_bench) 6988-7961 -> 6345-7796 us over eight runs each.
  const int64_t piece = ((n + threads - 1) / threads + 15) / 16 * 16;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const int64_t b = t * piece;
    if (b < n) loop(x + b, y + b, std::min(piece, n - b), sigmoid);
  }
}

}  // namespace

bool HostHas(SwishIsa isa) {
  __builtin_cpu_init();
  switch (isa) {
    case SwishIsa::kAvx512: return __builtin_cpu_supports("avx512f");
    case SwishIsa::kAvx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SwishIsa::kPortable: return true;
  }
  return false;
}

void SwishRangeOn(SwishIsa isa, float* x, int64_t n) { LoopOf(isa)(x, x, n, false); }
void SigmoidRangeOn(SwishIsa isa, const float* x, float* y, int64_t n) { LoopOf(isa)(x, y, n, true); }

void SwishRange(float* x, int64_t n) { HostLoop()(x, x, n, false); }

void SwishInPlace(float* x, int64_t n) { OnTeam(x, x, n, false); }
void Sigmoid(const float* x, float* y, int64_t n) { OnTeam(x, y, n, true); }

}  // namespace graphd::executor::cpu
