// Resize(x; sizes, scales, roi, mode, coordinate_transformation_mode, nearest_mode,
//   cubic_coeff_a=-0.75, exclude_outside=false, extrapolation_value=0) -> y of shape
//   `sizes`: ONNX Resize over every axis. Output coordinate o of an axis maps to input
//   coordinate i by coordinate_transformation_mode (half_pixel: (o + 0.5) / scale - 0.5;
//   pytorch_half_pixel: the same, 0 when the output size is 1; align_corners:
//   o * (in - 1) / (out - 1); asymmetric: o / scale; tf_half_pixel_for_nn:
//   (o + 0.5) / scale; tf_crop_and_resize: from the roi box [starts..., ends...] in
//   normalised coordinates, with extrapolation_value outside the input). `scales`
//   (one float per axis) are the output/input ratios the modes divide by; absent,
//   they are size / input size (in double precision).
//   mode nearest (rounded by nearest_mode: round_prefer_floor, round_prefer_ceil,
//   floor, ceil), linear (separable, 2 taps per axis) or cubic (4 taps of Keys' kernel
//   with coefficient cubic_coeff_a; exclude_outside drops taps outside the input and
//   renormalises). nearest takes any number dtype; linear and cubic floats.
#include <cmath>

#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

Status InferResize(InferenceContext& c) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(std::string mode, ops::EnumAttr(c, "mode", {"nearest", "linear", "cubic"}, "nearest"));
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, mode == "nearest" ? std::span<const DType>(ops::kNumberDTypes)
                                                                : std::span<const DType>(ops::kFloatDTypes)));
  ASSIGN_OR_RETURN(std::string ctm,
                   ops::EnumAttr(c, "coordinate_transformation_mode",
                                 {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                  "tf_half_pixel_for_nn", "tf_crop_and_resize"},
                                 "half_pixel"));
  RETURN_IF_ERROR(ops::EnumAttr(c, "nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
                                "round_prefer_floor")
                      .status());
  RETURN_IF_ERROR(c.AttrOr<float>("cubic_coeff_a", -0.75f).status());
  RETURN_IF_ERROR(c.AttrOr<bool>("exclude_outside", false).status());
  RETURN_IF_ERROR(c.AttrOr<float>("extrapolation_value", 0.0f).status());
  ASSIGN_OR_RETURN(IntList sizes, ops::IntListAttr(c, "sizes", 0));
  ASSIGN_OR_RETURN(FloatList scales, c.AttrOr<FloatList>("scales", {}));
  ASSIGN_OR_RETURN(FloatList roi, c.AttrOr<FloatList>("roi", {}));
  const size_t rank = sizes.size();
  if (x.shape.known_rank() && static_cast<size_t>(x.shape.rank()) != rank) {
    return c.Error(absl::StrCat("sizes has ", rank, " entries but the input ", x.shape.ToString(),
                                " has rank ", x.shape.rank()));
  }
  if (!scales.empty() && scales.size() != rank) {
    return c.Error(absl::StrCat("scales must have ", rank, " entries"));
  }
  for (float s : scales) {
    if (!(s > 0) || !std::isfinite(s)) return c.Error(absl::StrCat("scales must be finite and > 0, got ", s));
  }
  for (float v : roi) {
    if (!std::isfinite(v)) return c.Error(absl::StrCat("roi must be finite, got ", v));
  }
  if (ctm == "tf_crop_and_resize" && roi.size() != 2 * rank) {
    return c.Error(absl::StrCat("tf_crop_and_resize needs roi with ", 2 * rank, " entries"));
  }
  c.AddOutput(x.dtype, PartialShape(std::vector<int64_t>(sizes.begin(), sizes.end())));
  return absl::OkStatus();
}

}  // namespace

void RegisterResizeOps(OpRegistry& r) {
  r.Register({.name = "Resize", .num_inputs = 1, .infer = InferResize});
}

}  // namespace graphd
