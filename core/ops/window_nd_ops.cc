// Channels-first window ops over 1 to 3 spatial dims, with ONNX's semantics (geometry:
// core/ops/window_nd.h). Data is [N, C, d1..dk]; attributes strides, dilations, pads
// (all begins then all ends) are per spatial dim.
//   ConvND(x, w[, bias]; group=1): w [O, C/group, k1..kk], bias [O] -> [N, O, ...].
//   ConvTransposeND(x, w[, bias]; group=1, output_padding): w [C, O/group, k1..kk],
//     bias [O] -> [N, O, ...] (the gradient of ConvND with respect to its input).
//   MaxPoolND(x; kernel_shape, ceil_mode, indices=false, storage_order=0) -> y
//     [, int64 indices]: the flat position in x of each maximum (the first one on
//     ties), the spatial part row-major (storage_order 0) or column-major (1).
//     Padding never wins. Numbers.
//   AvgPoolND(x; kernel_shape, ceil_mode, count_include_pad=false) -> y: the mean
//     over the window's cells inside the input, or (count_include_pad) over those
//     inside the padded input. Floats.
// ConvND and the pools take channels_last=true (default false): data, input and
// output, is [N, d1..dk, C] instead (the filter stays [O, C/group, k1..kk]).
// ConvND's input_channels_first=true (with channels_last) keeps the data input
// [N, C, d1..dk]: only the output is channels-last (a stem convolution reading the
// client's image; window_nd.h StemConvFits).
// ConvND's constant_filter=true promises that the filter is a constant (a Const
// value), so kernels may keep a repacked copy (compiler/passes/conv_layout.h sets it).
// ConvND's residual=true adds one more input r, last (x, w[, bias], r), of the
// output's shape and layout: y = conv(x, w) + bias + r, before the fused activation
// (compiler/passes/conv_add_fusion.h).
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"
#include "core/ops/window_nd.h"

namespace graphd {
namespace {

// The spatial dim count of `x` (known rank 3..5), or an error.
StatusOr<int> SpatialDims(InferenceContext& c, const TensorType& x, absl::string_view what) {
  if (!x.shape.known_rank()) return c.Error(absl::StrCat(what, " must have a known rank"));
  int r = x.shape.rank();
  if (r < 3 || r > 5) {
    return c.Error(absl::StrCat(what, " must have rank 3 to 5 ([N, C, spatial...]), got shape ",
                                x.shape.ToString()));
  }
  return r - 2;
}

// The input `x` seen channels-first: reordered when the node's channels_last is set
// (its rank is then known, checked by SpatialDims first).
TensorType ChannelsFirstInput(const TensorType& x, bool channels_last) {
  TensorType t = x;
  if (channels_last) t.shape = PartialShape(ops::ToChannelsFirst(x.shape.dims()));
  return t;
}

// Output dims computed channels-first, in the node's layout.
PartialShape InLayout(std::vector<int64_t> dims, bool channels_last) {
  return PartialShape(channels_last ? ops::ToChannelsLast(std::move(dims)) : std::move(dims));
}

StatusOr<ops::WindowNd> ParseWindow(InferenceContext& c, int dims, bool pool) {
  auto w = ops::ParseWindowNd(c.attrs(), dims, pool);
  if (!w.ok()) return c.Error(w.status().message());
  return *w;
}

// Two known dims must agree.
Status CheckEqual(InferenceContext& c, int64_t a, int64_t b, absl::string_view what) {
  if (a != kUnknownDim && b != kUnknownDim && a != b) {
    return c.Error(absl::StrCat(what, ": ", a, " vs ", b));
  }
  return absl::OkStatus();
}

Status InferConvCommon(InferenceContext& c, bool transposed) {
  ASSIGN_OR_RETURN(bool residual, c.AttrOr<bool>("residual", false));
  if (transposed && residual) return c.Error("residual is not supported");
  const int operands = c.num_inputs() - (residual ? 1 : 0);  // x, w[, bias]
  if (operands < 2 || operands > 3) {
    return c.Error(absl::StrCat("takes 2 or 3 inputs (x, w[, bias])", residual ? " and the residual" : "", ", got ",
                                c.num_inputs()));
  }
  const TensorType& f = c.input(1);
  RETURN_IF_ERROR(ops::CheckDType(c, c.input(0).dtype, ops::kFloatDTypes));
  if (f.dtype != c.input(0).dtype) {
    return c.Error(absl::StrCat("input is ", DTypeName(c.input(0).dtype), " but filter is ", DTypeName(f.dtype)));
  }
  ASSIGN_OR_RETURN(int dims, SpatialDims(c, c.input(0), "input"));
  ASSIGN_OR_RETURN(bool channels_last, c.AttrOr<bool>("channels_last", false));
  ASSIGN_OR_RETURN(bool input_channels_first, c.AttrOr<bool>("input_channels_first", false));
  RETURN_IF_ERROR(c.AttrOr<bool>("constant_filter", false).status());
  if (transposed && channels_last) return c.Error("channels_last is not supported");
  if (input_channels_first && (transposed || !channels_last)) {
    return c.Error("input_channels_first is only for ConvND with channels_last");
  }
  const TensorType x = ChannelsFirstInput(c.input(0), channels_last && !input_channels_first);
  if (f.shape.known_rank() && f.shape.rank() != dims + 2) {
    return c.Error(absl::StrCat("filter ", f.shape.ToString(), " must have rank ", dims + 2));
  }
  PartialShape fs = f.shape.known_rank() ? f.shape : ops::UnknownDims(dims + 2);
  ASSIGN_OR_RETURN(ops::WindowNd w, ParseWindow(c, dims, false));
  ASSIGN_OR_RETURN(int64_t group, c.AttrOr<int64_t>("group", 1));
  if (group < 1) return c.Error(absl::StrCat("group must be >= 1, got ", group));
  const int64_t channels = x.shape.dim(1);
  int64_t out_channels = kUnknownDim;
  if (!transposed) {
    int64_t per_group = fs.dim(1);
    RETURN_IF_ERROR(CheckEqual(c, channels, per_group == kUnknownDim ? kUnknownDim : per_group * group,
                               "input channels and filter dim 1 * group differ"));
    out_channels = fs.dim(0);
    if (out_channels != kUnknownDim && out_channels % group != 0) {
      return c.Error(absl::StrCat("filter dim 0 (", out_channels, ") is not divisible by group ", group));
    }
  } else {
    RETURN_IF_ERROR(CheckEqual(c, channels, fs.dim(0), "input channels and filter dim 0 differ"));
    if (channels != kUnknownDim && channels % group != 0) {
      return c.Error(absl::StrCat("input channels (", channels, ") are not divisible by group ", group));
    }
    if (fs.dim(1) != kUnknownDim) out_channels = fs.dim(1) * group;
  }
  if (operands == 3) {
    const TensorType& b = c.input(2);
    if (b.dtype != x.dtype) return c.Error("bias must have the input's dtype");
    if (b.shape.known_rank()) {
      if (b.shape.rank() != 1) return c.Error(absl::StrCat("bias must be 1-D, got ", b.shape.ToString()));
      RETURN_IF_ERROR(CheckEqual(c, b.shape.dim(0), out_channels, "bias size and output channels differ"));
    }
  }
  std::vector<int64_t> out{x.shape.dim(0), out_channels};
  for (int i = 0; i < dims; ++i) {
    int64_t in = x.shape.dim(2 + i), k = fs.dim(2 + i);
    if (in == kUnknownDim || k == kUnknownDim) {
      out.push_back(kUnknownDim);
      continue;
    }
    auto d = transposed ? ops::TransposedOutDim(w, i, in, k) : ops::WindowOutDim(w, i, in, k);
    if (!d.ok()) return c.Error(d.status().message());
    out.push_back(*d);
  }
  PartialShape y = InLayout(std::move(out), channels_last);
  if (residual) {
    const TensorType& r = c.input(operands);
    if (r.dtype != x.dtype) return c.Error("the residual must have the input's dtype");
    if (r.shape.known_rank() && r.shape.rank() != y.rank()) {
      return c.Error(absl::StrCat("the residual ", r.shape.ToString(), " must have the output's shape ", y.ToString()));
    }
    for (int i = 0; r.shape.known_rank() && i < y.rank(); ++i) {
      RETURN_IF_ERROR(CheckEqual(c, r.shape.dim(i), y.dim(i), "residual and output dims differ"));
    }
  }
  c.AddOutput(x.dtype, std::move(y));
  return absl::OkStatus();
}

Status InferPoolCommon(InferenceContext& c, bool max) {
  RETURN_IF_ERROR(ops::CheckDType(c, c.input(0).dtype, max ? std::span<const DType>(ops::kNumberDTypes)
                                                             : std::span<const DType>(ops::kFloatDTypes)));
  ASSIGN_OR_RETURN(int dims, SpatialDims(c, c.input(0), "input"));
  ASSIGN_OR_RETURN(bool channels_last, c.AttrOr<bool>("channels_last", false));
  const TensorType x = ChannelsFirstInput(c.input(0), channels_last);
  ASSIGN_OR_RETURN(ops::WindowNd w, ParseWindow(c, dims, true));
  bool indices = false;
  if (max) {
    ASSIGN_OR_RETURN(indices, c.AttrOr<bool>("indices", false));
    ASSIGN_OR_RETURN(int64_t order, c.AttrOr<int64_t>("storage_order", 0));
    if (order != 0 && order != 1) return c.Error(absl::StrCat("storage_order must be 0 or 1, got ", order));
    if (indices && channels_last) return c.Error("indices with channels_last are not supported");
  } else {
    RETURN_IF_ERROR(c.AttrOr<bool>("count_include_pad", false).status());
  }
  std::vector<int64_t> out{x.shape.dim(0), x.shape.dim(1)};
  for (int i = 0; i < dims; ++i) {
    int64_t in = x.shape.dim(2 + i);
    if (in == kUnknownDim) {
      out.push_back(kUnknownDim);
      continue;
    }
    auto d = ops::WindowOutDim(w, i, in, w.kernel[i]);
    if (!d.ok()) return c.Error(d.status().message());
    out.push_back(*d);
  }
  c.AddOutput(x.dtype, InLayout(out, channels_last));
  if (indices) c.AddOutput(DType::kInt64, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterWindowNdOps(OpRegistry& r) {
  r.Register({.name = "ConvND", .num_inputs = OpDef::kVariadic, .min_inputs = 2,
              .infer = [](InferenceContext& c) { return InferConvCommon(c, false); }});
  r.Register({.name = "ConvTransposeND", .num_inputs = OpDef::kVariadic, .min_inputs = 2,
              .infer = [](InferenceContext& c) { return InferConvCommon(c, true); }});
  r.Register({.name = "MaxPoolND", .num_inputs = 1,
              .infer = [](InferenceContext& c) { return InferPoolCommon(c, true); }});
  r.Register({.name = "AvgPoolND", .num_inputs = 1,
              .infer = [](InferenceContext& c) { return InferPoolCommon(c, false); }});
}

}  // namespace graphd
