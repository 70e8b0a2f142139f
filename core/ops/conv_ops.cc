// Conv2D (NHWC input, HWIO filter), MaxPool and AvgPool (NHWC), with TensorFlow's
// SAME / VALID / EXPLICIT padding rules (core/ops/conv_util.h); MaxPoolGrad, as
// TensorFlow's: (orig_input, orig_output, grad) with MaxPool's attributes, the grad of
// each window going to the window's first maximum of orig_input.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/conv_util.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

Status CheckRank4(InferenceContext& c, const TensorType& t, absl::string_view what) {
  if (t.shape.known_rank() && t.shape.rank() != 4) {
    return c.Error(absl::StrCat(what, " must have rank 4, got shape ", t.shape.ToString()));
  }
  return absl::OkStatus();
}

// The output size of one spatial dim; unknown when the input's is.
StatusOr<int64_t> OutDim(InferenceContext& c, int64_t in, int64_t window, int64_t stride,
                         int64_t dilation, const ops::Conv2DAttrs& a, int pad_index) {
  if (in == kUnknownDim || window == kUnknownDim) return kUnknownDim;
  auto w = ops::ComputeWindow(in, window, stride, dilation, a.padding,
                              a.explicit_pad[pad_index], a.explicit_pad[pad_index + 1]);
  if (!w.ok()) return c.Error(w.status().message());
  return w->out;
}

Status InferConv2D(InferenceContext& c) {
  const TensorType& x = c.input(0);
  const TensorType& f = c.input(1);
  if (x.dtype != f.dtype) {
    return c.Error(absl::StrCat("input is ", DTypeName(x.dtype), " but filter is ",
                                DTypeName(f.dtype)));
  }
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, ops::kFloatDTypes));
  auto attrs = ops::ParseConv2DAttrs(c.attrs(), /*pool=*/false);
  if (!attrs.ok()) return c.Error(attrs.status().message());
  RETURN_IF_ERROR(CheckRank4(c, x, "input (NHWC)"));
  RETURN_IF_ERROR(CheckRank4(c, f, "filter (HWIO)"));
  PartialShape xs = x.shape.known_rank() ? x.shape : ops::UnknownDims(4);
  PartialShape fs = f.shape.known_rank() ? f.shape : ops::UnknownDims(4);
  if (xs.dim(3) != kUnknownDim && fs.dim(2) != kUnknownDim && xs.dim(3) != fs.dim(2)) {
    return c.Error(absl::StrCat("input ", xs.ToString(), " has ", xs.dim(3),
                                " channels but filter ", fs.ToString(), " expects ", fs.dim(2)));
  }
  ASSIGN_OR_RETURN(int64_t oh, OutDim(c, xs.dim(1), fs.dim(0), attrs->stride_h,
                                      attrs->dilation_h, *attrs, 0));
  ASSIGN_OR_RETURN(int64_t ow, OutDim(c, xs.dim(2), fs.dim(1), attrs->stride_w,
                                      attrs->dilation_w, *attrs, 2));
  c.AddOutput(x.dtype, PartialShape(std::vector<int64_t>{xs.dim(0), oh, ow, fs.dim(3)}));
  return absl::OkStatus();
}

Status InferPool(InferenceContext& c) {
  const TensorType& x = c.input(0);
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, ops::kFloatDTypes));
  auto attrs = ops::ParseConv2DAttrs(c.attrs(), /*pool=*/true);
  if (!attrs.ok()) return c.Error(attrs.status().message());
  RETURN_IF_ERROR(CheckRank4(c, x, "input (NHWC)"));
  PartialShape xs = x.shape.known_rank() ? x.shape : ops::UnknownDims(4);
  ASSIGN_OR_RETURN(int64_t oh, OutDim(c, xs.dim(1), attrs->window_h, attrs->stride_h, 1, *attrs, 0));
  ASSIGN_OR_RETURN(int64_t ow, OutDim(c, xs.dim(2), attrs->window_w, attrs->stride_w, 1, *attrs, 2));
  c.AddOutput(x.dtype, PartialShape(std::vector<int64_t>{xs.dim(0), oh, ow, xs.dim(3)}));
  return absl::OkStatus();
}

Status InferMaxPoolGrad(InferenceContext& c) {
  const TensorType& x = c.input(0);
  for (int i = 1; i < 3; ++i) {
    if (c.input(i).dtype != x.dtype) {
      return c.Error(absl::StrCat("input ", i, " is ", DTypeName(c.input(i).dtype), " but orig_input is ",
                                  DTypeName(x.dtype)));
    }
  }
  // The pool's output shape, which orig_output and grad must have.
  RETURN_IF_ERROR(InferPool(c));
  const PartialShape pooled = c.outputs()[0].shape;
  c.outputs().clear();
  for (int i = 1; i < 3; ++i) {
    const PartialShape& s = c.input(i).shape;
    bool agree = !s.known_rank() || s.rank() == pooled.rank();
    for (int d = 0; agree && s.known_rank() && d < s.rank(); ++d) {
      agree = s.dim(d) == kUnknownDim || pooled.dim(d) == kUnknownDim || s.dim(d) == pooled.dim(d);
    }
    if (!agree) {
      return c.Error(absl::StrCat(i == 1 ? "orig_output" : "grad", " has shape ", s.ToString(),
                                  " but the pool of orig_input gives ", pooled.ToString()));
    }
  }
  c.AddOutput(x.dtype, x.shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterConvOps(OpRegistry& r) {
  r.Register({.name = "Conv2D", .num_inputs = 2, .infer = InferConv2D});
  r.Register({.name = "MaxPool", .num_inputs = 1, .infer = InferPool});
  r.Register({.name = "AvgPool", .num_inputs = 1, .infer = InferPool});
  r.Register({.name = "MaxPoolGrad", .num_inputs = 3, .infer = InferMaxPoolGrad});
}

}  // namespace graphd
