#include "executor/cpu/lstm_cell.h"

#include "executor/cpu/fast_math.h"

namespace graphd::executor::cpu {
namespace {

// The loop for one peephole setting: `Peep` false reads no peepholes at all.
template <bool Peep>
__attribute__((always_inline)) inline void Cell(int64_t n, int64_t h, const float* __restrict xw, const float* __restrict rr, const float* __restrict p,
          float* __restrict c, float* __restrict h_out) {
  namespace fm = fast_math;
  for (int64_t j = 0; j < n; ++j) {
    const float c_prev = c[j];
    const float pre_i = xw[j] + rr[j] + (Peep ? p[j] * c_prev : 0.f);
    const float pre_f = xw[2 * h + j] + rr[2 * h + j] + (Peep ? p[2 * h + j] * c_prev : 0.f);
    const float i = fm::Sigmoid(pre_i);
    const float f = fm::Sigmoid(pre_f);
    const float g = fm::Tanh(xw[3 * h + j] + rr[3 * h + j]);
    const float c_new = f * c_prev + i * g;
    const float o = fm::Sigmoid(xw[h + j] + rr[h + j] + (Peep ? p[h + j] * c_new : 0.f));
    c[j] = c_new;
    h_out[j] = o * fm::Tanh(c_new);
  }
}

}  // namespace

// One copy per instruction set (a non-template function: clang multiversions no
// templates): the five activations per unit are most of a step's time after the
// recurrence product (fast_math vectorises; -ffp-contract=off keeps the values the same
// on every copy).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void LstmCellF32(int64_t n, int64_t stride, const float* xw, const float* rr, const float* p, float* c,
                 float* h_out) {
  if (p != nullptr) {
    Cell<true>(n, stride, xw, rr, p, c, h_out);
  } else {
    Cell<false>(n, stride, xw, rr, nullptr, c, h_out);
  }
}

}  // namespace graphd::executor::cpu
