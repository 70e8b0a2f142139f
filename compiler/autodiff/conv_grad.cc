// Gradients of the convolutions and pools (core/ops/conv_ops.cc: Conv2D, MaxPool,
// AvgPool in TensorFlow's NHWC; window_nd_ops.cc: ConvND channels-first).
//
// They are built from forward ops, in channels-first layout:
//   d input of a convolution   = ConvTransposeND(dy, w) with the forward's geometry
//                                (output_padding makes up the rows the stride skipped);
//   d filter                   = ConvND(x viewed [C, N, ...], dy viewed [O, N, ...]) with
//                                stride and dilation swapped, cut to the kernel size;
//   d input of a max pool      = MaxPoolGrad (TensorFlow's op: dy added at each window's
//                                first maximum), in NHWC;
//   d input of an average pool = ConvTransposeND of dy / count with a ones filter per
//                                channel (group = C), count excluding padding as TF does.
#include "absl/strings/str_cat.h"
#include "compiler/autodiff/grad_util.h"
#include "core/ops/conv_util.h"
#include "core/ops/window_nd.h"

namespace graphd::compiler::autodiff {
namespace {

using Dy = const std::vector<OutputRef>&;

const IntList kToNchw = {0, 3, 1, 2};
const IntList kToNhwc = {0, 2, 3, 1};

struct Geometry {
  IntList strides, dilations, pads_begin, pads_end;
  IntList kernel;   // spatial kernel size
  IntList in, out;  // spatial sizes of the input and the output
};

AttrMap WindowAttrs(const IntList& strides, const IntList& dilations, const IntList& begin, const IntList& end) {
  IntList pads = begin;
  pads.insert(pads.end(), end.begin(), end.end());
  return {{"strides", strides}, {"dilations", dilations}, {"pads", pads}};
}

StatusOr<OutputRef> Transpose(GradBuilder& b, OutputRef x, const IntList& perm) {
  return b.Op("Transpose", {x}, {{"perm", perm}});
}

// A constant of ones.
StatusOr<OutputRef> Ones(GradBuilder& b, DType dtype, const std::vector<int64_t>& dims) {
  ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, Shape(dims)));
  if (dtype == DType::kFloat64) {
    for (double& v : t.flat<double>()) v = 1.0;
  } else if (dtype == DType::kFloat32) {
    for (float& v : t.flat<float>()) v = 1.0f;
  } else {
    return errors::Unimplemented(absl::StrCat("pool gradients of ", DTypeName(dtype), " (float32, float64)"));
  }
  return b.Op("Const", {}, {{"value", t}});
}

// dx of a convolution, channels-first.
StatusOr<OutputRef> ConvInputGrad(GradBuilder& b, OutputRef dy, OutputRef w, const Geometry& g, int64_t group) {
  IntList output_padding;
  for (size_t i = 0; i < g.in.size(); ++i) {
    const int64_t covered =
        g.strides[i] * (g.out[i] - 1) + g.dilations[i] * (g.kernel[i] - 1) + 1 - g.pads_begin[i] - g.pads_end[i];
    output_padding.push_back(g.in[i] - covered);
  }
  AttrMap attrs = WindowAttrs(g.strides, g.dilations, g.pads_begin, g.pads_end);
  attrs["output_padding"] = output_padding;
  attrs["group"] = group;
  return b.Op("ConvTransposeND", {dy, w}, attrs);
}

// dw of a convolution (group 1), channels-first: [O, C, k...].
StatusOr<OutputRef> ConvFilterGrad(GradBuilder& b, OutputRef x, OutputRef dy, const Geometry& g) {
  const int rank = static_cast<int>(g.in.size()) + 2;
  IntList swap = {1, 0};
  for (int i = 2; i < rank; ++i) swap.push_back(i);
  ASSIGN_OR_RETURN(OutputRef xt, Transpose(b, x, swap));   // [C, N, ...]
  ASSIGN_OR_RETURN(OutputRef dyt, Transpose(b, dy, swap));  // [O, N, ...]
  ASSIGN_OR_RETURN(OutputRef corr, b.Op("ConvND", {xt, dyt}, WindowAttrs(g.dilations, g.strides, g.pads_begin, g.pads_end)));
  IntList begin(rank, 0), size(rank, -1);
  for (size_t i = 0; i < g.kernel.size(); ++i) size[i + 2] = g.kernel[i];
  ASSIGN_OR_RETURN(OutputRef cut, b.Op("Slice", {corr}, {{"begin", begin}, {"size", size}}));  // [C, O, k...]
  return Transpose(b, cut, swap);
}

// The shape of `r` with every dimension but the batch (dimension 0) known; an unknown
// batch comes back as -1.
StatusOr<Shape> Known(const Node& n, OutputRef r, const std::string& what) {
  const PartialShape& s = TypeOf(r).shape;
  bool known = s.known_rank() && s.rank() > 0;
  for (int i = 1; known && i < s.rank(); ++i) known = s.dim(i) != kUnknownDim;
  if (!known) return NeedsStaticShape(n, what + " " + s.ToString());
  return s.ToShape();
}

// The NHWC geometry of a Conv2D / MaxPool / AvgPool node over input `x`.
StatusOr<Geometry> NhwcGeometry(const Node& n, const Shape& x, int64_t kh, int64_t kw, bool pool) {
  ASSIGN_OR_RETURN(ops::Conv2DAttrs a, ops::ParseConv2DAttrs(n.attrs(), pool));
  Geometry g;
  g.strides = {a.stride_h, a.stride_w};
  g.dilations = {a.dilation_h, a.dilation_w};
  g.kernel = {kh, kw};
  g.in = {x.dim(1), x.dim(2)};
  for (int i = 0; i < 2; ++i) {
    ASSIGN_OR_RETURN(ops::Window w, ops::ComputeWindow(g.in[i], g.kernel[i], g.strides[i], g.dilations[i], a.padding,
                                                       a.explicit_pad[2 * i], a.explicit_pad[2 * i + 1]));
    g.pads_begin.push_back(w.pad_before);
    g.pads_end.push_back(w.pad_after);
    g.out.push_back(w.out);
  }
  return g;
}

StatusOr<GradOut> Conv2DGrad(GradBuilder& b, const Node& n, Dy dy) {
  const OutputRef x = n.inputs()[0], f = n.inputs()[1];
  ASSIGN_OR_RETURN(Shape xs, Known(n, x, "the input"));
  ASSIGN_OR_RETURN(Shape fs, Known(n, f, "the filter"));
  ASSIGN_OR_RETURN(Geometry g, NhwcGeometry(n, xs, fs.dim(0), fs.dim(1), /*pool=*/false));
  ASSIGN_OR_RETURN(OutputRef x_c, Transpose(b, x, kToNchw));
  ASSIGN_OR_RETURN(OutputRef dy_c, Transpose(b, dy[0], kToNchw));
  ASSIGN_OR_RETURN(OutputRef w_c, Transpose(b, f, {3, 2, 0, 1}));  // HWIO -> OIHW
  ASSIGN_OR_RETURN(OutputRef dx_c, ConvInputGrad(b, dy_c, w_c, g, 1));
  ASSIGN_OR_RETURN(OutputRef dx, Transpose(b, dx_c, kToNhwc));
  ASSIGN_OR_RETURN(OutputRef dw_c, ConvFilterGrad(b, x_c, dy_c, g));
  ASSIGN_OR_RETURN(OutputRef dw, Transpose(b, dw_c, {2, 3, 1, 0}));  // OIHW -> HWIO
  return GradOut{dx, dw};
}

StatusOr<GradOut> ConvNDGrad(GradBuilder& b, const Node& n, Dy dy) {
  const int64_t group = AttrOr<int64_t>(n, "group", 1);
  if (AttrOr<bool>(n, "residual", false) || !AttrOr<std::string>(n, "activation", "").empty() ||
      AttrOr<bool>(n, "channels_last", false)) {
    return errors::Unimplemented(absl::StrCat("the gradient of a fused or channels-last ConvND (node '", n.name(),
                                              "') is not defined; differentiate before the compile passes"));
  }
  const OutputRef x = n.inputs()[0], w = n.inputs()[1];
  ASSIGN_OR_RETURN(Shape xs, Known(n, x, "the input"));
  ASSIGN_OR_RETURN(Shape ws, Known(n, w, "the filter"));
  const Shape ys = TypeOf(OutputRef{&n, 0}).shape.ToShape();
  ASSIGN_OR_RETURN(ops::WindowNd win, ops::ParseWindowNd(n.attrs(), xs.rank() - 2, /*pool=*/false));
  Geometry g{win.strides, win.dilations, win.pads_begin, win.pads_end, {}, {}, {}};
  for (int i = 2; i < xs.rank(); ++i) {
    g.kernel.push_back(ws.dim(i));
    g.in.push_back(xs.dim(i));
    g.out.push_back(ys.dim(i));
  }
  ASSIGN_OR_RETURN(OutputRef dx, ConvInputGrad(b, dy[0], w, g, group));
  GradOut out = {dx};
  if (group == 1) {
    ASSIGN_OR_RETURN(OutputRef dw, ConvFilterGrad(b, x, dy[0], g));
    out.push_back(dw);
  } else {
    return errors::Unimplemented(absl::StrCat("the filter gradient of a grouped ConvND (node '", n.name(),
                                              "', group ", group, ") is not defined"));
  }
  if (n.inputs().size() == 3) {
    IntList axes = {0};
    for (int i = 2; i < xs.rank(); ++i) axes.push_back(i);
    ASSIGN_OR_RETURN(OutputRef db, b.Sum(dy[0], axes, false));
    out.push_back(db);
  }
  return out;
}

StatusOr<GradOut> MaxPoolGrad(GradBuilder& b, const Node& n, Dy dy) {
  // TensorFlow's MaxPoolGrad, with the pool's own attributes: one pass in NHWC.
  ASSIGN_OR_RETURN(OutputRef dx, b.Op("MaxPoolGrad", {n.inputs()[0], OutputRef{&n, 0}, dy[0]}, n.attrs()));
  return GradOut{dx};
}

StatusOr<GradOut> AvgPoolGrad(GradBuilder& b, const Node& n, Dy dy) {
  const OutputRef x = n.inputs()[0];
  const DType dt = TypeOf(x).dtype;
  ASSIGN_OR_RETURN(Shape xs, Known(n, x, "the input"));
  ASSIGN_OR_RETURN(ops::Conv2DAttrs a, ops::ParseConv2DAttrs(n.attrs(), /*pool=*/true));
  ASSIGN_OR_RETURN(Geometry g, NhwcGeometry(n, xs, a.window_h, a.window_w, /*pool=*/true));
  const int64_t channels = xs.dim(3);
  // How many input cells each output averaged (padding excluded, as TensorFlow).
  ASSIGN_OR_RETURN(OutputRef plane, Ones(b, dt, {1, 1, xs.dim(1), xs.dim(2)}));
  ASSIGN_OR_RETURN(OutputRef window, Ones(b, dt, {1, 1, g.kernel[0], g.kernel[1]}));
  ASSIGN_OR_RETURN(OutputRef count, b.Op("ConvND", {plane, window}, WindowAttrs(g.strides, {1, 1}, g.pads_begin, g.pads_end)));
  ASSIGN_OR_RETURN(OutputRef dy_c, Transpose(b, dy[0], kToNchw));
  ASSIGN_OR_RETURN(OutputRef share, b.Div(dy_c, count));
  ASSIGN_OR_RETURN(OutputRef per_channel, Ones(b, dt, {channels, 1, g.kernel[0], g.kernel[1]}));
  ASSIGN_OR_RETURN(OutputRef dx_c, ConvInputGrad(b, share, per_channel, Geometry{g.strides, {1, 1}, g.pads_begin,
                                                                                g.pads_end, g.kernel, g.in, g.out},
                                                 channels));
  ASSIGN_OR_RETURN(OutputRef dx, Transpose(b, dx_c, kToNhwc));
  return GradOut{dx};
}

}  // namespace

void RegisterConvGrads(GradRegistry& r) {
  r.Register("Conv2D", Conv2DGrad);
  r.Register("ConvND", ConvNDGrad);
  r.Register("MaxPool", MaxPoolGrad);
  r.Register("AvgPool", AvgPoolGrad);
}

}  // namespace graphd::compiler::autodiff
