// Placeholder, Const, Identity, NoOp, Reshape, Cast; StopGradient (an Identity that
// gradients do not pass: tf.stop_gradient).
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {
namespace {

Status InferPlaceholder(InferenceContext& c) {
  ASSIGN_OR_RETURN(DType dtype, c.Attr<DType>("dtype"));
  ASSIGN_OR_RETURN(PartialShape shape, c.AttrOr<PartialShape>("shape", PartialShape()));
  c.AddOutput(dtype, shape);
  return absl::OkStatus();
}

Status InferConst(InferenceContext& c) {
  ASSIGN_OR_RETURN(Tensor value, c.Attr<Tensor>("value"));
  ASSIGN_OR_RETURN(DType dtype, c.AttrOr<DType>("dtype", value.dtype()));
  if (dtype != value.dtype()) {
    return c.Error(absl::StrCat("attribute dtype is ", DTypeName(dtype), " but value is ",
                                DTypeName(value.dtype())));
  }
  c.AddOutput(value.dtype(), value.shape());
  return absl::OkStatus();
}

Status InferIdentity(InferenceContext& c) {
  c.AddOutput(c.input(0).dtype, c.input(0).shape);
  return absl::OkStatus();
}

Status InferReshape(InferenceContext& c) {
  ASSIGN_OR_RETURN(IntList dims, c.Attr<IntList>("shape"));
  int unknown = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown >= 0) return c.Error("shape may contain at most one -1");
      unknown = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return c.Error(absl::StrCat("negative dimension ", dims[i], " in shape"));
    } else if (__builtin_mul_overflow(known_product, dims[i], &known_product)) {
      return c.Error("shape has more elements than fit in int64");
    }
  }
  int64_t in = c.input(0).shape.num_elements();
  if (in != kUnknownDim) {
    if (unknown >= 0) {
      if (known_product == 0 || in % known_product != 0) {
        return c.Error(absl::StrCat("cannot reshape ", c.input(0).shape.ToString(), " to [",
                                    absl::StrJoin(dims, ","), "]"));
      }
      dims[unknown] = in / known_product;
    } else if (in != known_product) {
      return c.Error(absl::StrCat("cannot reshape ", c.input(0).shape.ToString(), " (", in,
                                  " elements) to [", absl::StrJoin(dims, ","), "] (",
                                  known_product, " elements)"));
    }
  }
  c.AddOutput(c.input(0).dtype, PartialShape(dims));
  return absl::OkStatus();
}

Status InferCast(InferenceContext& c) {
  ASSIGN_OR_RETURN(DType dst, c.Attr<DType>("DstT"));
  DType src = c.input(0).dtype;
  // Numeric and bool dtypes convert between each other; strings to and from numbers.
  auto numeric_or_bool = [](DType d) { return IsNumeric(d) || d == DType::kBool; };
  bool ok = src == dst ||
            (src == DType::kString ? IsNumeric(dst)
             : dst == DType::kString ? IsNumeric(src)
                                     : numeric_or_bool(src) && numeric_or_bool(dst));
  if (!ok) {
    return c.Error(absl::StrCat("cannot cast ", DTypeName(src), " to ", DTypeName(dst)));
  }
  c.AddOutput(dst, c.input(0).shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayOps(OpRegistry& r) {
  r.Register({.name = "Placeholder", .num_inputs = 0, .infer = InferPlaceholder});
  r.Register({.name = "Const", .num_inputs = 0, .infer = InferConst});
  r.Register({.name = "Identity", .num_inputs = 1, .infer = InferIdentity});
  r.Register({.name = "StopGradient", .num_inputs = 1, .infer = InferIdentity});
  r.Register({.name = "NoOp", .num_inputs = 0, .infer = nullptr});
  r.Register({.name = "Reshape", .num_inputs = 1, .infer = InferReshape});
  r.Register({.name = "Cast", .num_inputs = 1, .infer = InferCast});
}

}  // namespace graphd
