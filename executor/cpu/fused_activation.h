// The activation a fusion pass folds into a ConvND or MatMul (attrs `activation`:
// "" | "Relu" | "Clip", with `clip_min`/`clip_max` | "Gelu" (exact, MatMul only) | "HardSwish" | "Swish" (ConvND only); compiler/passes/
// conv_activation_fusion.h, matmul_fusion.h): parsed once per kernel, applied as a
// oneDNN eltwise post-op or, on the kernels' own loops, per element.
#ifndef GRAPHD_EXECUTOR_CPU_FUSED_ACTIVATION_H_
#define GRAPHD_EXECUTOR_CPU_FUSED_ACTIVATION_H_

#include <cmath>

#include "core/graph/graph.h"
#include "core/status.h"
#include "dnnl.hpp"

namespace graphd::executor::cpu {

struct FusedActivation {
  enum Kind { kNone, kRelu, kClip, kHardSwish, kSwish, kGelu } kind = kNone;
  float lo = 0, hi = 0;

  // From `node`'s attrs; InvalidArgument naming the node for an unknown activation.
  static StatusOr<FusedActivation> FromNode(const Node& node);

  // Appends the eltwise post-op (nothing for kNone).
  void AppendTo(dnnl::post_ops& ops) const;

  template <typename T>
  T Apply(T v) const {
    if (kind == kRelu) return v < T(0) ? T(0) : v;
    if (kind == kClip) return v < T(lo) ? T(lo) : (v > T(hi) ? T(hi) : v);
    if (kind == kHardSwish) {
      const T r = v + T(3);
      return v * (r < T(0) ? T(0) : (r > T(6) ? T(6) : r)) / T(6);
    }
    if (kind == kSwish) return v / (T(1) + std::exp(-v));
    if (kind == kGelu) return T(0.5) * v * (T(1) + std::erf(v * T(0.70710678118654752440)));  // exact (erf) GELU
    return v;
  }
};

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_FUSED_ACTIVATION_H_
