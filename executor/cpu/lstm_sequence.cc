#include "executor/cpu/lstm_sequence.h"

#include <omp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "dnnl.h"
#include "executor/cpu/gemv.h"
#include "executor/cpu/lstm_cell.h"

namespace graphd::executor::cpu {
namespace {

// Batches above these read R more often than sgemm's blocking would: R read in place
// once per row, or packed once per kRowGroup rows.
constexpr int64_t kMaxBatch = 4;
constexpr int64_t kMaxPackedBatch = 16;
// Rows whose gates one pass over a packed R computes (4 x 4 accumulator registers).
constexpr int64_t kRowGroup = 4;
// Below this many recurrence weights (4H * H) a step is too short to split.
constexpr int64_t kMinWeights = 4 * 128 * 128;

// Units per thread are a multiple of a packed block (also 64 bytes of floats: threads
// never write the same cache line of h or c).
constexpr int64_t kBlock = PackedRecurrence::kUnitBlock;
constexpr int64_t kBlockGates = 4 * kBlock;

// The gates of unit blocks [ub0, ub1) for one row `h` [k], written to `gates` [4k] at
// gate * k + unit (the recurrence product's layout). Two sets of sums (even and odd
// rows of the block) keep eight independent FMA chains in flight.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void PackedGates(const PackedRecurrence& packed, const float* __restrict h, int64_t ub0, int64_t ub1,
                 float* __restrict gates) {
  const int64_t k = packed.hidden();
  for (int64_t ub = ub0; ub < ub1; ++ub) {
    const float* __restrict blk = packed.block(ub);
    float even[kBlockGates] = {}, odd[kBlockGates] = {};
    int64_t p = 0;
    for (; p + 2 <= k; p += 2) {
      const float h0 = h[p], h1 = h[p + 1];
      const float* r0 = blk + p * kBlockGates;
      const float* r1 = r0 + kBlockGates;
      for (int64_t j = 0; j < kBlockGates; ++j) {
        even[j] += h0 * r0[j];
        odd[j] += h1 * r1[j];
      }
    }
    if (p < k) {
      const float* r0 = blk + p * kBlockGates;
      for (int64_t j = 0; j < kBlockGates; ++j) even[j] += h[p] * r0[j];
    }
    const int64_t units = std::min(kBlock, k - ub * kBlock);
    for (int64_t g = 0; g < 4; ++g) {
      for (int64_t u = 0; u < units; ++u) gates[g * k + ub * kBlock + u] = even[g * kBlock + u] + odd[g * kBlock + u];
    }
  }
}

// PackedGates for `R` rows at once (h [R, k], gates [R, 4k]): each pass over the
// packed R serves R rows, whose sums are independent FMA chains.
template <int R>
__attribute__((always_inline)) inline void PackedGatesRows(const PackedRecurrence& packed, const float* __restrict h, int64_t ub0, int64_t ub1,
                     float* __restrict gates) {
  const int64_t k = packed.hidden();
  for (int64_t ub = ub0; ub < ub1; ++ub) {
    const float* __restrict blk = packed.block(ub);
    float acc[R][kBlockGates] = {};
    for (int64_t p = 0; p < k; ++p) {
      const float* r0 = blk + p * kBlockGates;
      for (int i = 0; i < R; ++i) {
        const float hv = h[i * k + p];
        for (int64_t j = 0; j < kBlockGates; ++j) acc[i][j] += hv * r0[j];
      }
    }
    const int64_t units = std::min(kBlock, k - ub * kBlock);
    for (int i = 0; i < R; ++i) {
      for (int64_t g = 0; g < 4; ++g) {
        for (int64_t u = 0; u < units; ++u) gates[i * 4 * k + g * k + ub * kBlock + u] = acc[i][g * kBlock + u];
      }
    }
  }
}

// The gates of every row (h [batch, k] into gates [batch, 4k]) for unit blocks
// [ub0, ub1), kRowGroup rows per pass over R. One copy per instruction set (the
// templates are inlined into it: clang multiversions no templates).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void PackedGatesBatch(const PackedRecurrence& packed, const float* h, int64_t batch, int64_t ub0, int64_t ub1,
                      float* gates) {
  const int64_t k = packed.hidden();
  for (int64_t b = 0; b < batch; b += kRowGroup) {
    const float* hb = h + b * k;
    float* gb = gates + b * 4 * k;
    switch (std::min(kRowGroup, batch - b)) {
      case 4: PackedGatesRows<4>(packed, hb, ub0, ub1, gb); break;
      case 3: PackedGatesRows<3>(packed, hb, ub0, ub1, gb); break;
      case 2: PackedGatesRows<2>(packed, hb, ub0, ub1, gb); break;
      default: PackedGatesRows<1>(packed, hb, ub0, ub1, gb); break;
    }
  }
}

// One thread's share of the input projection: xw [steps * batch, 4H] = x W^T + both
// biases at the gate columns of units [u0, u1). On one thread (oneDNN's sgemm runs
// sequentially inside a parallel region).
void Project(const LstmSequence& seq, int64_t u0, int64_t u1, float* xw) {
  const int64_t h = seq.hidden, gh = 4 * h, rows = seq.steps * seq.batch, n = u1 - u0;
  for (int64_t g = 0; g < 4; ++g) {
    float* out = xw + g * h + u0;  // input >= 1: the op rejects an empty W
    dnnl_sgemm('N', 'T', rows, n, seq.input, 1.f, seq.x, seq.input, seq.w + (g * h + u0) * seq.input, seq.input, 0.f,
               out, gh);
    if (seq.bias == nullptr) continue;
    const float* bi = seq.bias + g * h + u0;
    const float* br = bi + gh;
    for (int64_t row = 0; row < rows; ++row) {
      float* o = out + row * gh;
      for (int64_t u = 0; u < n; ++u) o[u] += bi[u] + br[u];
    }
  }
}

// One thread's share of a step: the gates and the cell of units [u0, u1) for every
// row still running (u0 a multiple of kUnitBlock). `prev` is the last step's h, `next`
// this step's.
void Step(const LstmSequence& seq, const float* seq_xw, int64_t s, int64_t u0, int64_t u1, const float* prev,
          float* next, float* hr) {
  const int64_t h = seq.hidden, gh = 4 * h;
  const bool batched = seq.packed != nullptr && seq.batch > 1;
  if (batched) PackedGatesBatch(*seq.packed, prev, seq.batch, u0 / kBlock, (u1 + kBlock - 1) / kBlock, hr);
  for (int64_t b = 0; b < seq.batch; ++b) {
    const float* hb = prev + b * h;
    float* nb = next + b * h;
    if (s >= seq.lens[b]) {  // ended: the state stays
      std::copy(hb + u0, hb + u1, nb + u0);
      continue;
    }
    const int64_t t = seq.reverse ? seq.lens[b] - 1 - s : s;
    float* rr = hr + b * gh;
    if (seq.packed == nullptr) {
      for (int64_t g = 0; g < 4; ++g) GemvColumns(hb, seq.r, /*b_transposed=*/true, h, gh, g * h + u0, g * h + u1, rr);
    } else if (!batched) {
      PackedGates(*seq.packed, hb, u0 / kBlock, (u1 + kBlock - 1) / kBlock, rr);
    }  // else the batch's gates are in hr already
    const float* xw = seq_xw + (t * seq.batch + b) * gh;
    LstmCellF32(u1 - u0, h, xw + u0, rr + u0, seq.p != nullptr ? seq.p + u0 : nullptr, seq.c + b * h + u0, nb + u0);
    std::copy(nb + u0, nb + u1, seq.y + t * seq.y_step + b * h + u0);
  }
}

}  // namespace

PackedRecurrence::PackedRecurrence(const float* r, int64_t hidden)
    : hidden_(hidden), data_(((hidden + kBlock - 1) / kBlock) * hidden * kBlockGates, 0.f) {
  for (int64_t u = 0; u < hidden; ++u) {
    float* blk = data_.data() + (u / kBlock) * hidden * kBlockGates + u % kBlock;
    for (int64_t g = 0; g < 4; ++g) {
      const float* row = r + (g * hidden + u) * hidden;  // gate g of unit u: row g * H + u of R
      for (int64_t p = 0; p < hidden; ++p) blk[p * kBlockGates + g * kBlock] = row[p];
    }
  }
}

bool LstmSequenceFits(int64_t batch, int64_t hidden, int threads, bool packed) {
  return threads >= 2 && batch >= 1 && batch <= (packed ? kMaxPackedBatch : kMaxBatch) &&
         4 * hidden * hidden >= kMinWeights;
}

Status RunLstmSequence(const LstmSequence& seq, int threads, const CancellationToken& cancellation) {
  const int64_t h = seq.hidden, n = seq.batch * h;
  if (seq.steps == 0 || n == 0) return absl::OkStatus();
  std::vector<float> other(n), hr(seq.batch * 4 * h);
  // Every element is written by Project before it is read: no zeroing (128 KB for the
  // zoo's 32 steps).
  std::unique_ptr<float[]> xw(new float[seq.steps * seq.batch * 4 * h]);
  // stop[s]: thread 0's cancellation check after step s, read by all after its barrier.
  std::vector<char> stop(seq.steps, 0);
  Status status;
  int64_t done = 0;  // steps run (the same on every thread)
#pragma omp parallel num_threads(threads)
  {
    // The units split over the team OpenMP gave, which may be smaller than asked for (a
    // nested region, OMP_THREAD_LIMIT).
    const int64_t team = omp_get_num_threads();
    const int64_t chunk = (h + team - 1) / team;
    const int64_t per_thread = (chunk + kBlock - 1) / kBlock * kBlock;
    const int64_t id = omp_get_thread_num();
    const int64_t u0 = std::min(h, id * per_thread), u1 = std::min(h, u0 + per_thread);
    float* prev = seq.h;
    float* next = other.data();
    if (u0 < u1) Project(seq, u0, u1, xw.get());  // the columns only this thread reads
    int64_t s = 0;
    for (; s < seq.steps; ++s) {
      if (u0 < u1) Step(seq, xw.get(), s, u0, u1, prev, next, hr.data());
      if (id == 0) {
        status = cancellation.Check();
        stop[s] = status.ok() ? 0 : 1;
      }
#pragma omp barrier
      std::swap(prev, next);
      if (stop[s]) {
        ++s;
        break;
      }
    }
    if (id == 0) done = s;
  }
  // After an odd number of steps the state is in `other`.
  if (done % 2 == 1) std::copy(other.begin(), other.end(), seq.h);
  return status;
}

}  // namespace graphd::executor::cpu
