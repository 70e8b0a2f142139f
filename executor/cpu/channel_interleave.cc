#include "executor/cpu/channel_interleave.h"


#include <algorithm>
#include <cstdint>

#include "executor/cpu/dnnl_util.h"

namespace graphd::executor::cpu {
namespace {

constexpr int kMaxChannels = 8;
// Positions (of the long axis) per OpenMP work item.
constexpr int64_t kPositionsPerItem = 4096;

// dst[i * C + c] = src[c * r + i] for i in [i0, i1): C planes of r values into r groups
// of C. With C a constant GCC vectorises both directions into register shuffles.
template <int C>
__attribute__((always_inline)) inline void Interleave(const uint32_t* __restrict src, int64_t r, int64_t i0,
                                                      int64_t i1, uint32_t* __restrict dst) {
  for (int64_t i = i0; i < i1; ++i) {
    for (int c = 0; c < C; ++c) dst[i * C + c] = src[c * r + i];
  }
}

// dst[c * r + i] = src[i * C + c]: the inverse.
template <int C>
__attribute__((always_inline)) inline void Deinterleave(const uint32_t* __restrict src, int64_t r, int64_t i0,
                                                        int64_t i1, uint32_t* __restrict dst) {
  for (int64_t i = i0; i < i1; ++i) {
    for (int c = 0; c < C; ++c) dst[c * r + i] = src[i * C + c];
  }
}

template <int C>
__attribute__((always_inline)) inline void Shuffle(bool interleave, const uint32_t* src, int64_t r, int64_t i0,
                                                   int64_t i1, uint32_t* dst) {
  if (interleave) {
    Interleave<C>(src, r, i0, i1, dst);
  } else {
    Deinterleave<C>(src, r, i0, i1, dst);
  }
}

// Positions [i0, i1) of `channels` (2 to 8) planes of r values, one copy per
// instruction set (the templates are inlined into it: clang multiversions no
// templates).
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void ShuffleChannels(int64_t channels, bool interleave, const uint32_t* src, int64_t r, int64_t i0, int64_t i1,
                     uint32_t* dst) {
  switch (channels) {
    case 2: return Shuffle<2>(interleave, src, r, i0, i1, dst);
    case 3: return Shuffle<3>(interleave, src, r, i0, i1, dst);
    case 4: return Shuffle<4>(interleave, src, r, i0, i1, dst);
    case 5: return Shuffle<5>(interleave, src, r, i0, i1, dst);
    case 6: return Shuffle<6>(interleave, src, r, i0, i1, dst);
    case 7: return Shuffle<7>(interleave, src, r, i0, i1, dst);
    default: return Shuffle<8>(interleave, src, r, i0, i1, dst);
  }
}

}  // namespace

bool CopyChannelInterleave(const Tensor& src, Tensor& dst, const Box& box) {
  if (DTypeSize(src.dtype()) != 4 || DTypeSize(dst.dtype()) != 4 || box.src_offset != 0 || box.dst_offset != 0) {
    return false;
  }
  Box merged = box;
  if (!SimplifyBox(merged)) return false;  // empty: nothing to move
  const int rank = static_cast<int>(merged.shape.size());
  if (rank != 2 && rank != 3) return false;
  // [B,] O, I: dst [B, O, I] row-major holding src's [B, I, O]:
  // dst[o * I + i] = src[i * O + o].
  const int o_axis = rank - 2, i_axis = rank - 1;
  const int64_t outer = merged.shape[o_axis], inner = merged.shape[i_axis], plane = outer * inner;
  const int64_t batch = rank == 3 ? merged.shape[0] : 1;
  if (merged.dst_strides[i_axis] != 1 || merged.dst_strides[o_axis] != inner || merged.src_strides[o_axis] != 1 ||
      merged.src_strides[i_axis] != outer ||
      (rank == 3 && (merged.src_strides[0] != plane || merged.dst_strides[0] != plane))) {
    return false;
  }
  // A short inner axis is interleaved (channels last); a short outer one deinterleaved.
  const bool interleave = inner <= kMaxChannels;
  const int64_t channels = interleave ? inner : outer;
  if (channels < 2 || channels > kMaxChannels) return false;
  const int64_t positions = plane / channels;
  const uint32_t* in = static_cast<const uint32_t*>(src.raw_data());
  uint32_t* out = static_cast<uint32_t*>(dst.raw_data());
  const int64_t items_per_plane = (positions + kPositionsPerItem - 1) / kPositionsPerItem;
  const int64_t items = batch * items_per_plane;
  const int threads = TeamThreads();
  const auto run = [&](int64_t item) {
    const int64_t p = item / items_per_plane, i0 = item % items_per_plane * kPositionsPerItem;
    ShuffleChannels(channels, interleave, in + p * plane, positions, i0, std::min(positions, i0 + kPositionsPerItem),
                    out + p * plane);
  };
  if (batch * plane < kOneThreadElements || items < 2 || threads == 1) {
    for (int64_t item = 0; item < items; ++item) run(item);
    return true;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t item = 0; item < items; ++item) run(item);
  return true;
}

}  // namespace graphd::executor::cpu
