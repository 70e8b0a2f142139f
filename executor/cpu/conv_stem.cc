#include "executor/cpu/conv_stem.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/ops/window_nd.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/row_chunks.h"
#include "executor/cpu/swish.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kLanes = 16;  // vector lanes: output channels
constexpr int kMaxVecs = 2;     // vectors per output pixel: 32 channels (ops::kStemMaxOutputs)
// Output pixels per block: 8 with one vector per pixel, 4 with two: 8 accumulators
// either way, 8 of AVX-512's 32 registers (the AVX2 variant holds each 16-lane vector
// in two of its 16 registers and spills; AVX-512 hosts are the ones measured).
constexpr int kPixels = 8;
static_assert(ops::kStemMaxOutputs <= kLanes * kMaxVecs, "the vectors of one pixel hold every output channel");
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

// The filter and bias over vecs * kLanes output channels, and where each tap reads.
struct Packed {
  int64_t taps = 0;
  int64_t width = 0;         // columns of one row in the row buffer
  int vecs = 1;              // vectors per output pixel (1 or 2)
  std::vector<float> w;      // [taps][vecs * kLanes], zero past the last channel
  std::vector<float> b;      // [vecs * kLanes]
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

// Output pixels x .. x + P - 1 of one row, all o channels (V vectors each), into `dst`
// (the row, channels-last); with `activate`, through Activate.
template <int P, int V>
__attribute__((always_inline)) inline void Pixels(const float* rows, const Packed& k, int64_t sw, int64_t x,
                                                  int64_t o, bool activate, const FusedActivation& act, float* dst) {
  Vec acc[P][V];
  for (int v = 0; v < V; ++v) {
    const Vec bias = Load(k.b.data() + v * kLanes);
    for (int p = 0; p < P; ++p) acc[p][v] = bias;
  }
  const float* wb = k.w.data();
  const float* base = rows + x * sw;
  for (int64_t t = 0; t < k.taps; ++t) {
    Vec wv[V];
    for (int v = 0; v < V; ++v) wv[v] = Load(wb + (t * V + v) * kLanes);
    const float* in = base + k.tap[t];
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) {
      const float xin = in[p * sw];
      for (int v = 0; v < V; ++v) acc[p][v] += xin * wv[v];
    }
  }
  if (activate) {
    for (int p = 0; p < P; ++p) {
      for (int v = 0; v < V; ++v) acc[p][v] = Activate(acc[p][v], act);
    }
  }
  for (int p = 0; p < P; ++p) {
    float* d = dst + (x + p) * o;
    for (int v = 0; v < V; ++v) {
      const int64_t n = std::min(kLanes, o - v * kLanes);
      if (n == kLanes) {
        std::memcpy(d + v * kLanes, &acc[p][v], sizeof(Vec));
      } else if (n > 0) {
        std::memcpy(d + v * kLanes, &acc[p][v], n * sizeof(float));
      }
    }
  }
}

// One output row's pixels, V vectors each, P at a time.
template <int V>
__attribute__((always_inline)) inline void Row(const float* rows, const Packed& k, const StemGeometry& g,
                                               bool activate, const FusedActivation& act, float* dst) {
  constexpr int P = kPixels / V;
  int64_t col = 0;
  for (; col + P <= g.ow; col += P) Pixels<P, V>(rows, k, g.sw, col, g.o, activate, act, dst);
  for (; col < g.ow; ++col) Pixels<1, V>(rows, k, g.sw, col, g.o, activate, act, dst);
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
    case FusedActivation::kSwish:  // the row just written, in L1
      SwishRange(v, n);
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
    if (k.vecs == 1) {
      Row<1>(rows, k, g, activate, act, dst);
    } else {
      Row<2>(rows, k, g, activate, act, dst);
    }
    if (!activate) Epilogue(dst, residual != nullptr ? residual + r * row_values : nullptr, row_values, act);
  }
}

Packed Pack(const float* w, const float* bias, const StemGeometry& g) {
  Packed k;
  k.taps = g.c * g.kh * g.kw;
  k.width = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  k.vecs = g.o > kLanes ? 2 : 1;
  const int64_t lanes = k.vecs * kLanes;
  k.w.assign(k.taps * lanes, 0.f);
  for (int64_t oc = 0; oc < g.o; ++oc) {
    for (int64_t t = 0; t < k.taps; ++t) k.w[t * lanes + oc] = w[oc * k.taps + t];
  }
  k.b.assign(lanes, 0.f);
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
  // Chunks of rows, each thread's own contiguous segment first, then what the others
  // have not reached: a helper thread that wakes late (the stem is a call's first
  // parallel region) takes fewer, and the next layer finds its rows where it splits.
  const int64_t chunks = (rows + kChunkRows - 1) / kChunkRows;
  std::vector<float> bufs(buffer * threads);
  ForChunksOwnedFirst(chunks, threads, [&](int64_t i, int thread) {
    StemRows(x, g, k, residual, act, i * kChunkRows, std::min(rows, (i + 1) * kChunkRows),
             bufs.data() + thread * buffer, out);
  });
}

}  // namespace graphd::executor::cpu
