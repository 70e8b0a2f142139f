#include "executor/cpu/conv_pointwise.h"

#include <vector>

#include "executor/cpu/gemv.h"
#include "executor/cpu/dnnl_util.h"
namespace graphd::executor::cpu {
namespace {

// Columns [j0, j1) of row r: the products into `dots` (o values, indexed by column),
// then the epilogue into `out`.
void Columns(const float* x, const float* w, const float* bias, const float* residual, const FusedActivation& act,
             int64_t r, int64_t c, int64_t o, int64_t j0, int64_t j1, float* dots, float* out) {
  GemvColumns(x + r * c, w, /*b_transposed=*/true, c, o, j0, j1, dots);
  float* row = out + r * o;
  const float* res = residual != nullptr ? residual + r * o : nullptr;
  for (int64_t j = j0; j < j1; ++j) {
    float v = dots[j];
    if (bias != nullptr) v += bias[j];
    if (res != nullptr) v += res[j];
    row[j] = act.Apply(v);
  }
}

}  // namespace

void RunPointwiseConv(const float* x, const float* w, const float* bias, const float* residual,
                      const FusedActivation& act, int64_t rows, int64_t c, int64_t o, float* out) {
  // The dot products go to a row of their own: `residual` may be `out`.
  std::vector<float> dots(o);
  if (rows == 1 && c * o >= kPointwiseSplitWeights && o >= 32) {
    const int threads = TeamThreads();
    if (threads > 1) {
      const int64_t half = (o / 2 + 15) / 16 * 16;
#pragma omp parallel for num_threads(2) schedule(static)
      for (int part = 0; part < 2; ++part) {
        Columns(x, w, bias, residual, act, 0, c, o, part == 0 ? 0 : half, part == 0 ? half : o, dots.data(), out);
      }
      return;
    }
  }
  for (int64_t r = 0; r < rows; ++r) Columns(x, w, bias, residual, act, r, c, o, 0, o, dots.data(), out);
}

}  // namespace graphd::executor::cpu
