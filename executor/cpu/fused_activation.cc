#include "executor/cpu/fused_activation.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {

StatusOr<FusedActivation> FusedActivation::FromNode(const Node& node) {
  const std::string kind = AttrOr<std::string>(node, "activation", "");
  if (kind.empty()) return FusedActivation{};
  if (kind == "Relu") return FusedActivation{.kind = kRelu};
  if (kind == "HardSwish") return FusedActivation{.kind = kHardSwish};
  if (kind == "Swish") return FusedActivation{.kind = kSwish};
  if (kind == "Gelu") return FusedActivation{.kind = kGelu};
  if (kind == "Clip") {
    return FusedActivation{.kind = kClip, .lo = AttrOr<float>(node, "clip_min", 0.f),
                           .hi = AttrOr<float>(node, "clip_max", 0.f)};
  }
  return errors::InvalidArgument(absl::StrCat(node.name(), ": unknown fused activation '", kind, "'"));
}

void FusedActivation::AppendTo(dnnl::post_ops& ops) const {
  if (kind == kRelu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  if (kind == kClip) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, lo, hi);
  if (kind == kHardSwish) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_hardswish, 0.f, 0.f);
  if (kind == kSwish) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_swish, 1.f, 0.f);  // x * sigmoid(1 * x)
  if (kind == kGelu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f);
}

}  // namespace graphd::executor::cpu
