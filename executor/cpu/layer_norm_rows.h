// float32 layer normalisation over contiguous rows (LayerNormalization's normalised
// axes flattened): y = (x - mean) / sqrt(variance + eps) * scale + bias per row, with
// each row's mean and 1 / sqrt(variance + eps). Rows split over the OpenMP team when
// there are enough values to pay for the fork. oneDNN 2.6 has only its generic
// (non-JIT) layer normalisation: a transformer encoder's four [64, 256] nodes took
// 63-158 us per call in the model, 24-31 with these loops (model_bench --profile).
//
// Accuracy: the mean is taken in two steps: m1 = the float mean, then the mean c of
// d = x - m1, which is exact for values within a factor of 2 of m1 (Sterbenz), so
// rows far from zero with a small spread (1000 +- 0.01) keep their precision; the
// variance is mean(d^2) - c^2. Sums are float vector partial sums.
#ifndef GRAPHD_EXECUTOR_CPU_LAYER_NORM_ROWS_H_
#define GRAPHD_EXECUTOR_CPU_LAYER_NORM_ROWS_H_

#include <cstdint>

namespace graphd::executor::cpu {

struct LayerNormRows {
  const float* x = nullptr;      // [rows, inner]
  const float* scale = nullptr;  // [inner]
  const float* bias = nullptr;   // [inner] or nullptr
  float* y = nullptr;            // [rows, inner]
  float* mean = nullptr;         // [rows]
  float* inv_std = nullptr;      // [rows]
  int64_t rows = 0;
  int64_t inner = 0;
  double eps = 0;
};

void RunLayerNormRows(const LayerNormRows& ln);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_LAYER_NORM_ROWS_H_
