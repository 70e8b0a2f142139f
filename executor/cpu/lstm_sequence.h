// The recurrence of one float32 LSTM direction with ONNX's default activations, for
// small batches: each step's recurrence product (h R^T, a [4H, H] matrix against one
// row per sequence) is bound by reading R, which oneDNN's sgemm does on one thread per
// call. Here one OpenMP team lives for the whole sequence and splits the hidden units:
// each thread computes the four gates of its units (rows of R read in place, gemv.h)
// and applies the cell to them (lstm_cell.h), so each thread reads only its share of R
// (which stays in its core's cache) and the steps meet at one barrier each. The hidden
// state is double-buffered: a step reads the last step's h while writing the next.
// A constant R is packed once (PackedRecurrence) so that the gates are sums of rows
// (vector FMAs), up to four rows of the batch per pass over it; otherwise its rows are
// read in place as dot products (gemv.h).
#ifndef GRAPHD_EXECUTOR_CPU_LSTM_SEQUENCE_H_
#define GRAPHD_EXECUTOR_CPU_LSTM_SEQUENCE_H_

#include <cstdint>
#include <vector>

#include "core/cancellation.h"
#include "core/status.h"

namespace graphd::executor::cpu {

// R of one direction packed for the steps: per block of kUnitBlock hidden units, H rows
// of [4 gates][kUnitBlock] floats (units past H are zero), so a block's gates are a
// sum of H scaled rows (no horizontal sums). Made once from a constant R.
class PackedRecurrence {
 public:
  static constexpr int64_t kUnitBlock = 16;

  PackedRecurrence(const float* r, int64_t hidden);  // r: [4H, H]
  int64_t hidden() const { return hidden_; }
  const float* block(int64_t ub) const { return data_.data() + ub * hidden_ * 4 * kUnitBlock; }

 private:
  int64_t hidden_;
  std::vector<float> data_;
};

struct LstmSequence {
  int64_t steps = 0;
  int64_t batch = 0;
  int64_t hidden = 0;
  int64_t input = 0;
  const float* x = nullptr;     // [steps, batch, input]
  const float* w = nullptr;     // [4H, input], ONNX gate order (i, o, f, c)
  const float* bias = nullptr;  // [8H]: input then recurrence biases, or nullptr
  const float* r = nullptr;    // [4H, H]
  const PackedRecurrence* packed = nullptr;  // r packed, or nullptr (r is read as it is)
  const float* p = nullptr;    // [3H] peepholes (i, o, f), or nullptr
  const int64_t* lens = nullptr;  // [batch] steps of each sequence (<= steps)
  bool reverse = false;        // each sequence walked from its own last step
  float* h = nullptr;          // [batch, H] initial state in, final state out
  float* c = nullptr;          // [batch, H] likewise
  float* y = nullptr;          // step t's row b at y + t * y_step + b * H; rows not written stay as they are
  int64_t y_step = 0;
};

// Whether RunLstmSequence is the faster way for this shape on `threads` threads: small
// batches (R read in place once per row: up to 4; `packed`, once per 4 rows: up to 16)
// and a recurrence large enough to split.
bool LstmSequenceFits(int64_t batch, int64_t hidden, int threads, bool packed);

// Runs the recurrence on `threads` threads (>= 1). Stops between steps, returning the
// token's error, once `cancellation` fires.
Status RunLstmSequence(const LstmSequence& seq, int threads, const CancellationToken& cancellation);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_LSTM_SEQUENCE_H_
