// The gate math of one LSTM step for float32 with ONNX's default activations (sigmoid
// for i, o, f; tanh for the cell and the output) and no clip, as one loop GCC
// vectorises (fast_math's sigmoid and tanh). rnn_kernels.cc uses it when a node fits;
// other activations, clips and float64 keep the general loop.
#ifndef GRAPHD_EXECUTOR_CPU_LSTM_CELL_H_
#define GRAPHD_EXECUTOR_CPU_LSTM_CELL_H_

#include <cstdint>

namespace graphd::executor::cpu {

// Units [0, n) of a cell whose gates lie `stride` floats apart. `xw`: the step's input
// projections with both biases, `rr`: its recurrence product, each with gate g of unit
// j at [g * stride + j] in ONNX gate order (i, o, f, c); `p`: peepholes (i, o, f) laid
// out the same way, or null. Updates the cell state `c` [n] in place and writes the
// hidden state to `h_out` [n]. `c` and `h_out` must not overlap `xw`, `rr` or `p`.
// A whole cell of h units is LstmCellF32(h, h, ...).
void LstmCellF32(int64_t n, int64_t stride, const float* xw, const float* rr, const float* p, float* c,
                 float* h_out);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_LSTM_CELL_H_
