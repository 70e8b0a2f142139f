#include "executor/cpu/tile_transpose.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "executor/cpu/dnnl_util.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kTile = 8;
// Rows per work item: two tiles.
constexpr int64_t kItemRows = 16;
// Work items between two polls of the cancellation token.
constexpr int64_t kItemsPerCheck = 64;

// One 2-D transpose: dst[i * dst_i + j] = src[i + j * src_j] for i < ni, j < nj (i runs
// along the source's stride-1 axis, j along the destination's).
struct Plane {
  const uint32_t* src;
  uint32_t* dst;
  int64_t ni, nj, src_j, dst_i;
};

// Rows [i0, i1) x columns [j0, j1), one element at a time.
void Scalar(const Plane& p, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  for (int64_t i = i0; i < i1; ++i) {
    for (int64_t j = j0; j < j1; ++j) p.dst[i * p.dst_i + j] = p.src[i + j * p.src_j];
  }
}

// One 8x8 tile: rows [i0, i0 + 8) x columns [j0, j0 + 8).
__attribute__((target("avx2"))) inline void TileAvx2(const float* s, float* d, const Plane& p, int64_t i0,
                                                    int64_t j0) {
  // r[j]: source column j0 + j, rows i0..i0+7; out[i]: row i0 + i, columns j0..j0+7.
  __m256 r[8], t[8], u[8];
  for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(s + i0 + (j0 + j) * p.src_j);
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  for (int h = 0; h < 2; ++h) {  // source columns j0..j0+3, then j0+4..j0+7
    u[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(d + (i0 + i) * p.dst_i + j0, _mm256_permute2f128_ps(u[i], u[4 + i], 0x20));
    _mm256_storeu_ps(d + (i0 + 4 + i) * p.dst_i + j0, _mm256_permute2f128_ps(u[i], u[4 + i], 0x31));
  }
}

// Rows [i0, i1) (whole tiles) in 8x8 tiles, the columns past the last whole tile one
// by one. Two row tiles use all of a 64-byte source line.
__attribute__((target("avx2"))) void TilesAvx2(const Plane& p, int64_t i0, int64_t i1) {
  const float* s = reinterpret_cast<const float*>(p.src);
  float* d = reinterpret_cast<float*>(p.dst);
  int64_t j0 = 0;
  for (; j0 + kTile <= p.nj; j0 += kTile) {
    for (int64_t i = i0; i < i1; i += kTile) TileAvx2(s, d, p, i, j0);
  }
  Scalar(p, i0, i1, j0, p.nj);
}

bool HostHasAvx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}

std::optional<Status> Copy(const Tensor& src, Tensor& dst, const Box& box, const CancellationToken* token,
                           bool allow_avx2) {
  if (DTypeSize(src.dtype()) != 4 || DTypeSize(dst.dtype()) != 4 || box.src_offset != 0 || box.dst_offset != 0) {
    return std::nullopt;
  }
  Box b = box;
  if (!SimplifyBox(b)) return std::nullopt;  // empty: nothing to move
  const int rank = static_cast<int>(b.shape.size());
  int ia = -1, ib = -1;  // the axes with source and destination stride 1
  for (int k = 0; k < rank; ++k) {
    if (b.src_strides[k] == 1 && ia < 0) ia = k;
    if (b.dst_strides[k] == 1 && ib < 0) ib = k;
  }
  if (ia < 0 || ib < 0 || ia == ib || b.shape[ia] < kTile || b.shape[ib] < kTile) return std::nullopt;
  // The other axes: each plane's offsets, in order.
  std::vector<int> outer;
  for (int k = 0; k < rank; ++k) {
    if (k != ia && k != ib) outer.push_back(k);
  }
  int64_t planes = 1;
  for (int k : outer) planes *= b.shape[k];
  // Plane pl's offsets in the source and the destination.
  const auto offsets = [&](int64_t pl, int64_t& so, int64_t& dso) {
    so = dso = 0;
    for (int q = static_cast<int>(outer.size()) - 1; q >= 0; --q) {
      const int k = outer[q];
      const int64_t index = pl % b.shape[k];
      pl /= b.shape[k];
      so += index * b.src_strides[k];
      dso += index * b.dst_strides[k];
    }
  };
  const uint32_t* in = static_cast<const uint32_t*>(src.raw_data());
  uint32_t* out = static_cast<uint32_t*>(dst.raw_data());
  const int64_t ni = b.shape[ia], nj = b.shape[ib];
  const int64_t row_items = (ni + kItemRows - 1) / kItemRows, items = planes * row_items;
  const bool avx2 = allow_avx2 && HostHasAvx2();
  const auto run = [&](int64_t item) {
    const int64_t i0 = item % row_items * kItemRows, i1 = std::min(ni, i0 + kItemRows);
    int64_t so, dso;
    offsets(item / row_items, so, dso);
    const Plane p{.src = in + so, .dst = out + dso, .ni = ni, .nj = nj,
                  .src_j = b.src_strides[ib], .dst_i = b.dst_strides[ia]};
    const int64_t whole = avx2 ? i0 + (i1 - i0) / kTile * kTile : i0;  // rows in whole tiles
    if (whole > i0) TilesAvx2(p, i0, whole);
    Scalar(p, whole, i1, 0, nj);
  };
  // The token is polled every kItemsPerCheck items (each at least 8 x 8 values); once
  // it fails the items after are skipped.
  std::atomic<bool> cancelled{false};
  const auto poll = [&](int64_t item) {
    if (token == nullptr || item % kItemsPerCheck != 0) return !cancelled.load(std::memory_order_relaxed);
    if (!token->Check().ok()) cancelled.store(true);
    return !cancelled.load(std::memory_order_relaxed);
  };
  const int threads = TeamThreads();
  if (planes * ni * nj < kOneThreadElements || items < 2 || threads == 1) {
    for (int64_t item = 0; item < items && poll(item); ++item) run(item);
  } else {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t item = 0; item < items; ++item) {
      if (poll(item)) run(item);
    }
  }
  if (cancelled.load()) return token->Check();
  return absl::OkStatus();
}

}  // namespace

std::optional<Status> CopyTransposedTiles(const Tensor& src, Tensor& dst, const Box& box,
                                          const CancellationToken* token) {
  return Copy(src, dst, box, token, true);
}

std::optional<Status> CopyTransposedTilesPortable(const Tensor& src, Tensor& dst, const Box& box,
                                                  const CancellationToken* token) {
  return Copy(src, dst, box, token, false);
}

}  // namespace graphd::executor::cpu
