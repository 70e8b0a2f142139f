// tf.nn: activations, softmax / log_softmax over any axis, bias_add, conv2d,
// max_pool2d / avg_pool2d (NHWC, as graphd's CPU kernels), and moments.
#include "absl/strings/ascii.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/tf_args.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

Value Activation(const std::string& fn, const std::string& op, const std::string& param) {
  return Fn(fn, [fn, op, param](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {param, "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get(param));
    ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
    return t->Op(op, {xr}, {}, fn);
  });
}

// leaky_relu(features, alpha=0.2).
StatusOr<Value> LeakyRelu(Interpreter& in, CallArgs& call) {
  Args a("leaky_relu", call, {"features", "alpha", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("features"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  double alpha = 0.2;
  if (a.Has("alpha")) {
    ASSIGN_OR_RETURN(alpha, StaticNumber(*a.Get("alpha"), "leaky_relu() alpha"));
  }
  return t->Op("LeakyRelu", {xr}, {{"alpha", static_cast<float>(alpha)}}, "LeakyRelu");
}

StatusOr<Value> Gelu(Interpreter& in, CallArgs& call) {
  Args a("gelu", call, {"features", "approximate", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("features"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(bool approximate, a.Flag("approximate", false));
  return t->Op("Gelu", {xr}, {{"approximate", approximate}}, "Gelu");
}

// softmax(logits, axis=None): the op works on the last axis; another axis is swapped
// to the end and back.
Value SoftmaxFn(const std::string& fn, const std::string& op) {
  return Fn(fn, [fn, op](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {"logits", "axis", "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get("logits"));
    ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
    int64_t axis = -1;
    if (a.Has("axis")) {
      ASSIGN_OR_RETURN(axis, StaticInt(*a.Get("axis"), fn + "() axis"));
    }
    const PartialShape& s = ShapeOf(xr);
    if (axis == -1 || (s.known_rank() && axis == s.rank() - 1)) return t->Op(op, {xr}, {}, fn);
    if (!s.known_rank()) return PyError("ValueError", fn + "() over axis " + std::to_string(axis) + " needs a known rank");
    int rank = s.rank();
    if (axis < -rank || axis >= rank) {
      return PyError("ValueError",
                     fn + "() axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    if (axis < 0) axis += rank;
    IntList perm;
    for (int i = 0; i < rank; ++i) perm.push_back(i);
    std::swap(perm[axis], perm[rank - 1]);
    ASSIGN_OR_RETURN(Value moved, t->Op("Transpose", {xr}, {{"perm", perm}}, fn));
    ASSIGN_OR_RETURN(OutputRef mr, t->ToTensor(moved));
    ASSIGN_OR_RETURN(Value y, t->Op(op, {mr}, {}, fn));
    ASSIGN_OR_RETURN(OutputRef yr, t->ToTensor(y));
    return t->Op("Transpose", {yr}, {{"perm", perm}}, fn);
  });
}

StatusOr<Value> BiasAdd(Interpreter& in, CallArgs& call) {
  Args a("bias_add", call, {"value", "bias", "data_format", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value v, a.Get("value"));
  ASSIGN_OR_RETURN(Value b, a.Get("bias"));
  ASSIGN_OR_RETURN(OutputRef value, t->ToTensor(v, TensorDType(b)));
  ASSIGN_OR_RETURN(OutputRef bias, t->ToTensor(b, DTypeOf(value)));
  ASSIGN_OR_RETURN(std::string format, a.StrOr("data_format", "NHWC"));
  if (format.size() >= 2 && format[0] == 'N' && format[1] == 'C') {
    format = "NCHW";  // NCHW, NCDHW, NC...: channels in dimension 1
  } else if (!format.empty() && format[0] == 'N' && format.back() == 'C') {
    format = "NHWC";
  } else {
    return PyError("ValueError", "bias_add() data_format must be N...C or NC..., got '" + format + "'");
  }
  return t->Op("BiasAdd", {value, bias}, {{"data_format", format}}, "BiasAdd");
}

// strides / ksize / dilations: an int or a list of 1, 2 or 4 ints -> NHWC [1, h, w, 1].
StatusOr<IntList> Window4(const Value& v, const std::string& what) {
  ASSIGN_OR_RETURN(IntList l, StaticInts(v, what));
  if (l.size() == 1) return IntList{1, l[0], l[0], 1};
  if (l.size() == 2) return IntList{1, l[0], l[1], 1};
  if (l.size() == 4) return l;
  return PyError("ValueError", what + " must be an int or a list of 1, 2 or 4 ints, got " + std::to_string(l.size()));
}

Status CheckNhwc(const Args& a) {
  ASSIGN_OR_RETURN(std::string format, a.StrOr("data_format", "NHWC"));
  if (format != "NHWC") {
    return PyError("ValueError", a.fn() + "() data_format '" + format + "' is not supported: graphd runs 2-D "
                                 "convolutions and pools in NHWC");
  }
  return absl::OkStatus();
}

// padding: "SAME" / "VALID", or (conv2d) explicit [[0, 0], [top, bottom], [left, right], [0, 0]].
Status AddPadding(const Args& a, bool allow_explicit, AttrMap& attrs) {
  ASSIGN_OR_RETURN(Value p, a.Get("padding"));
  if (p.is(K::kStr)) {
    std::string padding = absl::AsciiStrToUpper(p.as_str());
    if (padding != "SAME" && padding != "VALID") {
      return PyError("ValueError", a.fn() + "() padding must be 'SAME' or 'VALID', got '" + p.as_str() + "'");
    }
    attrs["padding"] = padding;
    return absl::OkStatus();
  }
  if (!allow_explicit) return PyError("ValueError", a.fn() + "() padding must be 'SAME' or 'VALID'");
  ASSIGN_OR_RETURN(IntList pads, StaticInts(p, a.fn() + "() padding"));
  if (pads.size() != 8) {
    return PyError("ValueError", a.fn() + "() explicit padding must be 4 [before, after] pairs (NHWC), got " +
                                     std::to_string(pads.size()) + " values");
  }
  attrs["padding"] = std::string("EXPLICIT");
  attrs["explicit_paddings"] = pads;
  return absl::OkStatus();
}

StatusOr<Value> Conv2D(Interpreter& in, CallArgs& call) {
  Args a("conv2d", call, {"input", "filters", "strides", "padding", "data_format", "dilations", "name"});
  RETURN_IF_ERROR(a.Check());
  RETURN_IF_ERROR(CheckNhwc(a));
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value xv, a.Get("input"));
  ASSIGN_OR_RETURN(Value fv, a.Get("filters"));
  ASSIGN_OR_RETURN(OutputRef x, t->ToTensor(xv, TensorDType(fv)));
  ASSIGN_OR_RETURN(OutputRef f, t->ToTensor(fv, DTypeOf(x)));
  ASSIGN_OR_RETURN(Value sv, a.Get("strides"));
  ASSIGN_OR_RETURN(IntList strides, Window4(sv, "conv2d() strides"));
  AttrMap attrs = {{"strides", strides}, {"data_format", std::string("NHWC")}};
  if (a.Has("dilations")) {
    ASSIGN_OR_RETURN(attrs["dilations"], Window4(*a.Get("dilations"), "conv2d() dilations"));
  }
  RETURN_IF_ERROR(AddPadding(a, /*allow_explicit=*/true, attrs));
  return t->Op("Conv2D", {x, f}, std::move(attrs), "Conv2D");
}

Value PoolFn(const std::string& fn, const std::string& op) {
  return Fn(fn, [fn, op](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {"input", "ksize", "strides", "padding", "data_format", "name"});
    RETURN_IF_ERROR(a.Check());
    RETURN_IF_ERROR(CheckNhwc(a));
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value xv, a.Get("input"));
    ASSIGN_OR_RETURN(OutputRef x, t->ToTensor(xv));
    ASSIGN_OR_RETURN(Value kv, a.Get("ksize"));
    ASSIGN_OR_RETURN(Value sv, a.Get("strides"));
    ASSIGN_OR_RETURN(IntList ksize, Window4(kv, fn + "() ksize"));
    ASSIGN_OR_RETURN(IntList strides, Window4(sv, fn + "() strides"));
    AttrMap attrs = {{"ksize", ksize}, {"strides", strides}, {"data_format", std::string("NHWC")}};
    RETURN_IF_ERROR(AddPadding(a, /*allow_explicit=*/false, attrs));
    return t->Op(op, {x}, std::move(attrs), op);
  });
}

// moments(x, axes, shift=None, keepdims=False) -> (mean, variance), the variance as
// the mean of squared deviations from the mean.
StatusOr<Value> Moments(Interpreter& in, CallArgs& call) {
  Args a("moments", call, {"x", "axes", "shift", "keepdims", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value xv, a.Get("x"));
  ASSIGN_OR_RETURN(OutputRef x, t->ToTensor(xv));
  ASSIGN_OR_RETURN(Value axes_value, a.Get("axes"));
  ASSIGN_OR_RETURN(IntList axes, StaticInts(axes_value, "moments() axes"));
  ASSIGN_OR_RETURN(bool keep, a.Flag("keepdims", false));
  ASSIGN_OR_RETURN(Value mean_v, t->Op("Mean", {x}, {{"axis", axes}, {"keep_dims", true}}, "moments"));
  ASSIGN_OR_RETURN(OutputRef mean, t->ToTensor(mean_v));
  ASSIGN_OR_RETURN(Value diff_v, t->Op("Sub", {x, mean}, {}, "moments"));
  ASSIGN_OR_RETURN(OutputRef diff, t->ToTensor(diff_v));
  ASSIGN_OR_RETURN(Value sq_v, t->Op("Square", {diff}, {}, "moments"));
  ASSIGN_OR_RETURN(OutputRef sq, t->ToTensor(sq_v));
  ASSIGN_OR_RETURN(Value variance, t->Op("Mean", {sq}, {{"axis", axes}, {"keep_dims", keep}}, "moments"));
  if (keep) return Value::Tuple({mean_v, variance});
  ASSIGN_OR_RETURN(Value squeezed, t->Op("Squeeze", {mean}, {{"squeeze_dims", axes}}, "moments"));
  return Value::Tuple({squeezed, variance});
}

}  // namespace

void AddNnFunctions(Namespace& nn) {
  nn.Set("relu", Activation("relu", "Relu", "features"));
  nn.Set("relu6", Activation("relu6", "Relu6", "features"));
  nn.Set("sigmoid", Activation("sigmoid", "Sigmoid", "x"));
  nn.Set("tanh", Activation("tanh", "Tanh", "x"));
  nn.Set("gelu", Fn("gelu", Gelu));
  nn.Set("elu", Activation("elu", "Elu", "features"));
  nn.Set("softplus", Activation("softplus", "Softplus", "features"));
  nn.Set("softsign", Activation("softsign", "Softsign", "features"));
  nn.Set("leaky_relu", Fn("leaky_relu", LeakyRelu));
  nn.Set("softmax", SoftmaxFn("softmax", "Softmax"));
  nn.Set("log_softmax", SoftmaxFn("log_softmax", "LogSoftmax"));
  nn.Set("bias_add", Fn("bias_add", BiasAdd));
  nn.Set("conv2d", Fn("conv2d", Conv2D));
  nn.Set("max_pool2d", PoolFn("max_pool2d", "MaxPool"));
  nn.Set("avg_pool2d", PoolFn("avg_pool2d", "AvgPool"));
  nn.Set("max_pool", PoolFn("max_pool", "MaxPool"));
  nn.Set("avg_pool", PoolFn("avg_pool", "AvgPool"));
  nn.Set("moments", Fn("moments", Moments));
}

}  // namespace graphd::compiler::tracer
