#include "executor/cpu/strided_copy.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "executor/cpu/dispatch.h"
#include "executor/cpu/team.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kCheckEvery = int64_t{1} << 16;
// Copies of at least this many bytes are split along their outermost dimension over
// the OpenMP team: one core copied ViT-B's query, key and value slices ([197, 768] of
// [197, 2304] floats, 605 KB each) at 6-9 GB/s.
constexpr int64_t kParallelBytes = int64_t{1} << 18;

// Side of the square tiles of a blocked transpose: a tile of floats reads 16 runs of
// 64 bytes and writes 16, all within L1.
constexpr int64_t kTile = 16;

// The dimension (other than the last) along which the source is contiguous when the
// last dimension is not (a transpose: the destination's rows are the source's
// columns); -1 when there is none or the last dimension is contiguous.
int TransposedDim(const Box& box) {
  const int rank = static_cast<int>(box.shape.size());
  if (rank < 2 || box.src_strides[rank - 1] == 1 || box.dst_strides[rank - 1] != 1) return -1;
  for (int k = rank - 2; k >= 0; --k) {
    if (box.src_strides[k] == 1 && box.shape[k] >= kTile && box.shape[rank - 1] >= kTile) return k;
  }
  return -1;
}

// Calls visit(s, d) with the source and destination offsets of every index over the
// dimensions `outer` (an odometer, the last fastest), polling `token` every
// kCheckEvery elements (`per_visit` elements each).
template <typename F>
Status WalkOuter(const Box& box, const std::vector<int>& outer, int64_t per_visit, const CancellationToken* token,
                 F visit) {
  std::vector<int64_t> index(outer.size(), 0);
  int64_t s = box.src_offset, d = box.dst_offset, since_check = 0;
  while (true) {
    visit(s, d);
    since_check += per_visit;
    if (token != nullptr && since_check >= kCheckEvery) {
      RETURN_IF_ERROR(token->Check());
      since_check = 0;
    }
    int i = static_cast<int>(outer.size()) - 1;
    for (; i >= 0; --i) {
      const int k = outer[i];
      s += box.src_strides[k];
      d += box.dst_strides[k];
      if (++index[i] < box.shape[k]) break;
      s -= box.src_strides[k] * box.shape[k];
      d -= box.dst_strides[k] * box.shape[k];
      index[i] = 0;
    }
    if (i < 0) return absl::OkStatus();
  }
}

// The dimensions before the last, but `skip`.
std::vector<int> OuterDims(const Box& box, int skip) {
  std::vector<int> outer;
  for (int k = 0; k + 1 < static_cast<int>(box.shape.size()); ++k) {
    if (k != skip) outer.push_back(k);
  }
  return outer;
}

// A copy whose last dimension is strided in the source but dimension `t` is
// contiguous there: square tiles over (t, last), so that both the reads (down t) and
// the writes (along the last dimension) go through whole cache lines.
template <typename T>
Status CopyTiled(const T* src, T* dst, const Box& box, int t, const CancellationToken* token) {
  const int rank = static_cast<int>(box.shape.size());
  const int64_t rows = box.shape[t], cols = box.shape[rank - 1];
  const int64_t s_row = box.src_strides[t], d_row = box.dst_strides[t];
  const int64_t s_col = box.src_strides[rank - 1];
  return WalkOuter(box, OuterDims(box, t), rows * cols, token, [&](int64_t s, int64_t d) {
    for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
      const int64_t r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        for (int64_t r = r0; r < r1; ++r) {
          const T* in = src + s + r * s_row;
          T* out = dst + d + r * d_row;
          for (int64_t c = c0; c < c1; ++c) out[c] = in[c * s_col];
        }
      }
    }
  });
}

template <typename T>
Status Copy(const T* src, T* dst, const Box& box, const CancellationToken* token) {
  if (const int t = TransposedDim(box); t >= 0) return CopyTiled(src, dst, box, t, token);
  const int rank = static_cast<int>(box.shape.size());
  const int64_t inner = box.shape[rank - 1];
  const int64_t si = box.src_strides[rank - 1], di = box.dst_strides[rank - 1];
  return WalkOuter(box, OuterDims(box, -1), inner, token, [&](int64_t s, int64_t d) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      if (si == 1 && di == 1) {
        std::memcpy(dst + d, src + s, static_cast<size_t>(inner) * sizeof(T));
        return;
      }
    }
    for (int64_t i = 0; i < inner; ++i) dst[d + i * di] = src[s + i * si];
  });
}

// Copy over the team: the outermost dimension in a few parts per thread, each part a
// box of its own. `token` (thread-safe) is polled before and by each part as Copy
// does; the first error comes back, and once a part fails the parts after it are
// skipped.
template <typename T>
Status CopySplit(const T* src, T* dst, const Box& box, int threads, const CancellationToken* token) {
  if (token != nullptr) RETURN_IF_ERROR(token->Check());
  const int64_t outer = box.shape[0];
  const int64_t parts = std::min<int64_t>(outer, int64_t{threads} * 4), per = (outer + parts - 1) / parts;
  std::vector<Status> done(parts);
  std::atomic<bool> failed{false};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int64_t p = 0; p < parts; ++p) {
    if (p * per >= outer || failed.load(std::memory_order_relaxed)) continue;
    try {  // nothing may leave the parallel region (the part's box allocates)
      Box part = box;
      part.shape[0] = std::min(per, outer - p * per);
      part.src_offset += p * per * box.src_strides[0];
      part.dst_offset += p * per * box.dst_strides[0];
      done[p] = Copy<T>(src, dst, part, token);
    } catch (const std::exception& e) {
      done[p] = absl::ResourceExhaustedError(absl::StrCat("strided copy: ", e.what()));
    }
    if (!done[p].ok()) failed.store(true);
  }
  for (const Status& st : done) RETURN_IF_ERROR(st);
  return absl::OkStatus();
}

}  // namespace

bool SimplifyBox(Box& box) {
  Box out;
  out.src_offset = box.src_offset;
  out.dst_offset = box.dst_offset;
  for (size_t d = 0; d < box.shape.size(); ++d) {
    int64_t n = box.shape[d];
    if (n == 0) return false;
    if (n == 1) continue;
    if (!out.shape.empty() && out.src_strides.back() == box.src_strides[d] * n &&
        out.dst_strides.back() == box.dst_strides[d] * n) {
      out.shape.back() *= n;
      out.src_strides.back() = box.src_strides[d];
      out.dst_strides.back() = box.dst_strides[d];
      continue;
    }
    out.shape.push_back(n);
    out.src_strides.push_back(box.src_strides[d]);
    out.dst_strides.push_back(box.dst_strides[d]);
  }
  if (out.shape.empty()) {  // a single element
    out.shape = {1};
    out.src_strides = {1};
    out.dst_strides = {1};
  }
  box = std::move(out);
  return true;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

Status CopyBox(const Tensor& src, Tensor& dst, Box box, const CancellationToken* token) {
  if (!SimplifyBox(box)) return absl::OkStatus();
  return DispatchElement(src.dtype(), [&]<typename T>() -> Status {
    if constexpr (std::is_trivially_copyable_v<T>) {
      int64_t elements = 1;
      for (int64_t n : box.shape) elements *= n;
      const int threads = TeamThreads();
      // Not tiled copies (a transpose of other than 4-byte values): parts of their
      // first dimension could be narrower than a tile.
      if (threads > 1 && box.shape[0] >= 2 && elements * static_cast<int64_t>(sizeof(T)) >= kParallelBytes &&
          TransposedDim(box) < 0) {
        return CopySplit<T>(src.data<T>(), dst.data<T>(), box, threads, token);
      }
    }
    return Copy<T>(src.data<T>(), dst.data<T>(), box, token);
  });
}

Status CopyAll(const Tensor& src, Tensor& dst) {
  int64_t n = src.num_elements();
  return CopyBox(src, dst, Box{.shape = {n}, .src_strides = {1}, .dst_strides = {1}}, nullptr);
}

}  // namespace graphd::executor::cpu
