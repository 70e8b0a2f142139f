// Moving blocks between the spatial and channel dimensions of rank-4 tensors, as
// TensorFlow (data_format NHWC, default, or NCHW as ONNX) with ONNX's mode:
//   DepthToSpace(x; block_size, data_format, mode=DCR|CRD): [N,H,W,C] ->
//     [N, H*b, W*b, C/(b*b)] (NCHW likewise). Output (h*b+i, w*b+j, c) comes from
//     input channel (i*b + j)*C' + c (DCR, TensorFlow's order) or c*b*b + i*b + j (CRD).
//   SpaceToDepth(x; block_size, data_format): the inverse of DCR DepthToSpace:
//     [N,H,W,C] -> [N, H/b, W/b, C*b*b].
// block_size >= 1 is required; the divided dims must divide evenly. Any dtype.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

Status InferSpace(InferenceContext& c, bool to_space) {
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(int64_t b, c.Attr<int64_t>("block_size"));
  if (b < 1) return c.Error(absl::StrCat("block_size must be >= 1, got ", b));
  ASSIGN_OR_RETURN(std::string format, ops::EnumAttr(c, "data_format", {"NHWC", "NCHW"}, "NHWC"));
  if (to_space) {
    RETURN_IF_ERROR(ops::EnumAttr(c, "mode", {"DCR", "CRD"}, "DCR").status());
  }
  if (!x.shape.known_rank()) {
    c.AddOutput(x.dtype, ops::UnknownDims(4));
    return absl::OkStatus();
  }
  if (x.shape.rank() != 4) {
    return c.Error(absl::StrCat("input must have rank 4, got shape ", x.shape.ToString()));
  }
  const bool nchw = format == "NCHW";
  const int cd = nchw ? 1 : 3, hd = nchw ? 2 : 1, wd = hd + 1;
  std::vector<int64_t> out = x.shape.dims();
  auto divide = [&](int d, int64_t by) -> Status {
    if (out[d] == kUnknownDim) return absl::OkStatus();
    if (out[d] % by != 0) {
      return c.Error(absl::StrCat("dimension ", d, " of input ", x.shape.ToString(),
                                  " is not divisible by ", by));
    }
    out[d] /= by;
    return absl::OkStatus();
  };
  auto multiply = [&](int d, int64_t by) {
    if (out[d] != kUnknownDim) out[d] *= by;
  };
  if (to_space) {
    RETURN_IF_ERROR(divide(cd, b * b));
    multiply(hd, b);
    multiply(wd, b);
  } else {
    RETURN_IF_ERROR(divide(hd, b));
    RETURN_IF_ERROR(divide(wd, b));
    multiply(cd, b * b);
  }
  c.AddOutput(x.dtype, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterSpaceOps(OpRegistry& r) {
  r.Register({.name = "DepthToSpace", .num_inputs = 1, .infer = [](InferenceContext& c) {
                return InferSpace(c, true);
              }});
  r.Register({.name = "SpaceToDepth", .num_inputs = 1, .infer = [](InferenceContext& c) {
                return InferSpace(c, false);
              }});
}

}  // namespace graphd
