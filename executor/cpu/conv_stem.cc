#include "executor/cpu/conv_stem.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/ops/window_nd.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/fast_math.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kLanes = 16;  // vector lanes: output channels (ops::kStemMaxOutputs)
constexpr int kPixels = 8;      // output pixels per block
static_assert(ops::kStemMaxOutputs <= kLanes, "one vector holds every output channel");
// Convolutions of fewer multiply-adds run on the calling thread alone.
constexpr int64_t kOneThreadMacs = int64_t{1} << 20;
// Output rows per work item on the OpenMP team.
constexpr int64_t kChunkRows = 4;

typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

__attribute__((always_inline)) inline Vec Load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The filter and bias over kLanes output channels, and where each tap reads.
struct Packed {
  int64_t taps = 0;
  int64_t width = 0;         // columns of one row in the row buffer
  std::vector<float> w;      // [taps][kLanes], zero past the last channel
  std::vector<float> b;      // [kLanes]
  std::vector<int64_t> tap;  // per tap (channel, row, column): its first value in the row buffer
};

// The row buffer for output row y of image `img`: per (input channel, filter row) the
// input row that filter row reads, with its zero padding, `width` values from input
// column -pw on.
void FillRows(const float* x, const StemGeometry& g, const Packed& k, int64_t img, int64_t y, float* rows) {
  for (int64_t c = 0; c < g.c; ++c) {
    for (int64_t i = 0; i < g.kh; ++i) {
      float* dst = rows + (c * g.kh + i) * k.width;
      const int64_t ih = y * g.sh - g.ph + i * g.dh;
      if (ih < 0 || ih >= g.h) {
        std::fill(dst, dst + k.width, 0.f);
        continue;
      }
      const float* src = x + ((img * g.c + c) * g.h + ih) * g.w;
      const int64_t lo = std::min(k.width, g.pw), hi = std::min(k.width, g.pw + g.w);
      std::fill(dst, dst + lo, 0.f);
      if (hi > lo) std::copy(src + (lo - g.pw), src + (hi - g.pw), dst + lo);
      std::fill(dst + hi, dst + k.width, 0.f);
    }
  }
}

// The activations applied on the vector registers (without a residual, which comes
// first): the others go to Epilogue.
__attribute__((always_inline)) inline bool InRegisters(const FusedActivation& act) {
  return act.kind == FusedActivation::kNone || act.kind == FusedActivation::kRelu ||
         act.kind == FusedActivation::kClip || act.kind == FusedActivation::kHardSwish;
}

__attribute__((always_inline)) inline Vec Activate(Vec v, const FusedActivation& act) {
  const Vec zero = {};
  switch (act.kind) {
    case FusedActivation::kRelu:
      return v < zero ? zero : v;
    case FusedActivation::kClip: {
      const Vec lo = zero + act.lo, hi = zero + act.hi;
      v = v < lo ? lo : v;
      return v > hi ? hi : v;
    }
    case FusedActivation::kHardSwish: {
      const Vec six = zero + 6.f;
      Vec r = v + 3.f;
      r = r < zero ? zero : r;
      r = r > six ? six : r;
      return v * r / 6.f;
    }
    default:
      return v;
  }
}

// Output pixels x .. x + P - 1 of one row, all o channels, into `dst` (the row,
// channels-last); with `activate`, through Activate.
template <int P>
__attribute__((always_inline)) inline void Pixels(const float* rows, const Packed& k, int64_t sw, int64_t x,
                                                  int64_t o, bool activate, const FusedActivation& act, float* dst) {
  Vec acc[P];
  const Vec bias = Load(k.b.data());
  for (int p = 0; p < P; ++p) acc[p] = bias;
  const float* wb = k.w.data();
  const float* base = rows + x * sw;
  for (int64_t t = 0; t < k.taps; ++t) {
    const Vec wv = Load(wb + t * kLanes);
    const float* in = base + k.tap[t];
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) acc[p] += in[p * sw] * wv;
  }
  if (activate) {
    for (int p = 0; p < P; ++p) acc[p] = Activate(acc[p], act);
  }
  for (int p = 0; p < P; ++p) {
    float* d = dst + (x + p) * o;
    if (o == kLanes) {
      std::memcpy(d, &acc[p], sizeof(Vec));
    } else {
      std::memcpy(d, &acc[p], o * sizeof(float));
    }
  }
}

// v = act(v + res) over n values (res may be null).
__attribute__((always_inline)) inline void Epilogue(float* v, const float* res, int64_t n,
                                                    const FusedActivation& act) {
  if (res != nullptr) {
    for (int64_t i = 0; i < n; ++i) v[i] += res[i];
  }
  switch (act.kind) {
    case FusedActivation::kNone:
      break;
    case FusedActivation::kRelu:
      for (int64_t i = 0; i < n; ++i) v[i] = v[i] < 0.f ? 0.f : v[i];
      break;
    case FusedActivation::kClip: {
      const float lo = act.lo, hi = act.hi;
      for (int64_t i = 0; i < n; ++i) v[i] = v[i] < lo ? lo : (v[i] > hi ? hi : v[i]);
      break;
    }
    case FusedActivation::kHardSwish:
      for (int64_t i = 0; i < n; ++i) {
        const float r = v[i] + 3.f;
        v[i] = v[i] * (r < 0.f ? 0.f : (r > 6.f ? 6.f : r)) / 6.f;
      }
      break;
    case FusedActivation::kSwish:
      for (int64_t i = 0; i < n; ++i) v[i] = v[i] / (1.f + fast_math::Exp(-v[i]));
      break;
    default:
      for (int64_t i = 0; i < n; ++i) v[i] = act.Apply(v[i]);
      break;
  }
}

// Output rows [r0, r1) (row r: image r / oh, row r % oh), with `rows` this thread's
// row buffer.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void StemRows(const float* x, const StemGeometry& g, const Packed& k, const float* residual,
              const FusedActivation& act, int64_t r0, int64_t r1, float* rows, float* out) {
  const int64_t row_values = g.ow * g.o;
  const bool activate = residual == nullptr && InRegisters(act);
  for (int64_t r = r0; r < r1; ++r) {
    FillRows(x, g, k, r / g.oh, r % g.oh, rows);
    float* dst = out + r * row_values;
    int64_t col = 0;
    for (; col + kPixels <= g.ow; col += kPixels) Pixels<kPixels>(rows, k, g.sw, col, g.o, activate, act, dst);
    for (; col < g.ow; ++col) Pixels<1>(rows, k, g.sw, col, g.o, activate, act, dst);
    if (!activate) Epilogue(dst, residual != nullptr ? residual + r * row_values : nullptr, row_values, act);
  }
}

Packed Pack(const float* w, const float* bias, const StemGeometry& g) {
  Packed k;
  k.taps = g.c * g.kh * g.kw;
  k.width = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  k.w.assign(k.taps * kLanes, 0.f);
  for (int64_t oc = 0; oc < g.o; ++oc) {
    for (int64_t t = 0; t < k.taps; ++t) k.w[t * kLanes + oc] = w[oc * k.taps + t];
  }
  k.b.assign(kLanes, 0.f);
  if (bias != nullptr) std::copy(bias, bias + g.o, k.b.begin());
  for (int64_t c = 0; c < g.c; ++c) {
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) k.tap.push_back((c * g.kh + i) * k.width + j * g.dw);
    }
  }
  return k;
}

}  // namespace

void RunStemConv(const float* x, const float* w, const float* bias, const float* residual, const FusedActivation& act,
                 const StemGeometry& g, float* out) {
  const Packed k = Pack(w, bias, g);
  const int64_t rows = g.n * g.oh, buffer = g.c * g.kh * k.width;
  const int64_t macs = rows * g.ow * g.o * k.taps;
  const int threads = TeamThreads();
  if (threads < 2 || rows < 2 || macs < kOneThreadMacs) {
    std::vector<float> buf(buffer);
    StemRows(x, g, k, residual, act, 0, rows, buf.data(), out);
    return;
  }
  // Chunks of rows taken as threads come free: a helper thread that wakes late (the
  // stem is a call's first parallel region) takes fewer.
  const int64_t chunks = (rows + kChunkRows - 1) / kChunkRows;
  std::vector<float> bufs(buffer * threads);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int64_t i = 0; i < chunks; ++i) {
    StemRows(x, g, k, residual, act, i * kChunkRows, std::min(rows, (i + 1) * kChunkRows),
             bufs.data() + omp_get_thread_num() * buffer, out);
  }
}

}  // namespace graphd::executor::cpu
