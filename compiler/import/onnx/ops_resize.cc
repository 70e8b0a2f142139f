// Resize (opsets 10, 11, 13) and Upsample (opsets 7, 9) onto graphd's Resize
// (core/ops/resize_ops.cc). The scales, sizes and roi inputs must be constants (graph
// inputs feeding them are specialised on their values), as must the input's shape:
// the output shape is fixed at import.
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/build_util.h"
#include "compiler/import/onnx/op_table.h"
#include "compiler/import/onnx/tensor_proto.h"
#include "core/float_to_int.h"

namespace graphd::compiler::onnx_import {
namespace {

// The float values of constant input `i`, or empty when it is absent or empty.
StatusOr<std::vector<double>> OptionalFloats(NodeContext& n, int i, absl::string_view what) {
  if (!n.has_input(i)) return std::vector<double>{};
  ASSIGN_OR_RETURN(Tensor t, n.ConstInput(i, what));
  auto v = DoubleValues(t);
  if (!v.ok()) return n.Invalid(absl::StrCat(what, " must be numeric"));
  return *v;
}

// Adds graphd's Resize for `x` with per-axis `scales` (sizes follow as
// floor(in * scale)) or `sizes` (the kernel takes size / in as the scales); one of
// them is empty.
Status Build(NodeContext& n, OutputRef x, std::vector<double> scales, std::vector<int64_t> sizes, AttrMap attrs) {
  const PartialShape& s = TypeOf(x).shape;
  if (!s.fully_defined()) return n.Unsupported("inputs with unknown dims");
  const size_t rank = static_cast<size_t>(s.rank());
  if (!sizes.empty()) {  // graphd's Resize derives the scales from the sizes
    if (sizes.size() != rank) return n.Invalid(absl::StrCat("sizes must have ", rank, " values"));
    for (size_t i = 0; i < rank; ++i) {
      if (sizes[i] < 0) return n.Invalid("sizes must be >= 0");
    }
  } else {
    if (scales.size() != rank) return n.Invalid(absl::StrCat("scales must have ", rank, " values"));
    for (size_t i = 0; i < rank; ++i) {
      if (!(scales[i] > 0) || !std::isfinite(scales[i])) return n.Invalid("scales must be finite and > 0");
      std::optional<int64_t> size = TruncateInRange<int64_t>(std::floor(static_cast<double>(s.dim(i)) * scales[i]));
      if (!size) return n.Invalid(absl::StrCat("dimension ", i, " scaled by ", scales[i], " does not fit in int64"));
      sizes.push_back(*size);
    }
  }
  attrs["sizes"] = IntList(sizes);
  if (!scales.empty()) attrs["scales"] = FloatList(scales.begin(), scales.end());
  ASSIGN_OR_RETURN(OutputRef y, n.Add("Resize", {x}, attrs));
  return n.SetOutput(0, y);
}

Status Resize(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  std::string mode = n.Str("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic") return n.Invalid(absl::StrCat("mode '", mode, "'"));
  AttrMap attrs{{"mode", mode}};
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (n.opset() < 11) {  // Resize-10: (X, scales), Upsample's coordinates
    ASSIGN_OR_RETURN(scales, OptionalFloats(n, 1, "scales"));
    attrs["coordinate_transformation_mode"] = std::string("asymmetric");
    attrs["nearest_mode"] = std::string("floor");
    if (mode == "cubic") return n.Invalid("mode 'cubic' needs opset 11");
    return Build(n, x, scales, sizes, attrs);
  }
  // Opset 18's additions change the result; refuse them rather than ignore them.
  if (n.attr("axes") != nullptr) return n.Unsupported("attribute 'axes'");
  if (n.Int("antialias", 0) != 0) return n.Unsupported("antialias=1");
  if (n.Str("keep_aspect_ratio_policy", "stretch") != "stretch") {
    return n.Unsupported("keep_aspect_ratio_policy other than 'stretch'");
  }
  std::string ctm = n.Str("coordinate_transformation_mode", "half_pixel");
  attrs["coordinate_transformation_mode"] = ctm;
  attrs["nearest_mode"] = n.Str("nearest_mode", "round_prefer_floor");
  attrs["cubic_coeff_a"] = n.Float("cubic_coeff_a", -0.75f);
  attrs["exclude_outside"] = n.Int("exclude_outside", 0) != 0;
  attrs["extrapolation_value"] = n.Float("extrapolation_value", 0.0f);
  if (ctm == "tf_crop_and_resize") {
    ASSIGN_OR_RETURN(std::vector<double> roi, OptionalFloats(n, 1, "roi"));
    attrs["roi"] = FloatList(roi.begin(), roi.end());
  }
  ASSIGN_OR_RETURN(scales, OptionalFloats(n, 2, "scales"));
  if (n.has_input(3)) {
    ASSIGN_OR_RETURN(sizes, n.ConstInts(3, "sizes"));
  }
  if (!scales.empty() && !sizes.empty()) return n.Invalid("only one of scales and sizes may be given");
  if (scales.empty() && sizes.empty()) return n.Invalid("one of scales and sizes is required");
  return Build(n, x, scales, sizes, attrs);
}

// Upsample: nearest (floor of the asymmetric coordinate) or linear ("bilinear" in
// opset 1) over asymmetric coordinates; scales an input from opset 9, else an attribute.
Status Upsample(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  std::string mode = n.Str("mode", "nearest");
  if (mode == "bilinear") mode = "linear";
  if (mode != "nearest" && mode != "linear") return n.Invalid(absl::StrCat("mode '", mode, "'"));
  std::vector<double> scales;
  if (n.opset() >= 9) {
    ASSIGN_OR_RETURN(scales, OptionalFloats(n, 1, "scales"));
  } else {
    const onnx::AttributeProto* a = n.attr("scales");
    if (a == nullptr) return n.Invalid("attribute 'scales' is required");
    scales.assign(a->floats().begin(), a->floats().end());
  }
  AttrMap attrs{{"mode", mode},
                {"coordinate_transformation_mode", std::string("asymmetric")},
                {"nearest_mode", std::string("floor")}};
  return Build(n, x, scales, {}, attrs);
}

}  // namespace

void RegisterResizeOps(OpTable& table) {
  table["Resize"] = Resize;
  table["Upsample"] = Upsample;
}

}  // namespace graphd::compiler::onnx_import
