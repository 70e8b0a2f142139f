// Reductions over axes (Sum, Mean, Max, Min, Prod on numbers; Any, All on bools),
// ArgMax/ArgMin over one axis, and Cumsum.
// SumToShapeOf(g, like): g summed over the dimensions numpy broadcasting added or
// stretched to reach g's shape from like's, in like's shape (the gradient of a
// broadcast operand when shapes are known only at run time; like's values are unused).
#include <set>

#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

// attrs: axis (int or list(int); absent = all axes), keep_dims (bool, default false).
Status InferReduction(InferenceContext& c, bool boolean) {
  const TensorType& x = c.input(0);
  if (boolean) {
    RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, {DType::kBool}, "input dtype"));
  } else if (!IsNumeric(x.dtype)) {
    return c.Error(absl::StrCat("dtype ", DTypeName(x.dtype), " is not supported"));
  }
  ASSIGN_OR_RETURN(bool keep, c.AttrOr<bool>("keep_dims", false));
  auto attr = c.attrs().find("axis");
  bool all = attr == c.attrs().end();
  IntList axes;
  if (!all) {
    if (const int64_t* one = std::get_if<int64_t>(&attr->second)) {
      axes = {*one};
    } else {
      ASSIGN_OR_RETURN(axes, c.Attr<IntList>("axis"));
    }
  }
  if (!x.shape.known_rank()) {
    c.AddOutput(x.dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  int rank = x.shape.rank();
  std::set<int> reduce;
  if (all) {
    for (int i = 0; i < rank; ++i) reduce.insert(i);
  }
  for (int64_t a : axes) {
    ASSIGN_OR_RETURN(int axis, ops::CanonicalAxis(c, a, rank));
    if (!reduce.insert(axis).second) return c.Error(absl::StrCat("axis ", a, " given twice"));
  }
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    if (!reduce.contains(i)) {
      out.push_back(x.shape.dim(i));
    } else if (keep) {
      out.push_back(1);
    }
  }
  c.AddOutput(x.dtype, PartialShape(out));
  return absl::OkStatus();
}

// attrs: axis (int, default 0), output_type (int32 | int64, default int64).
Status InferArgReduce(InferenceContext& c) {
  const TensorType& x = c.input(0);
  if (!IsNumeric(x.dtype)) {
    return c.Error(absl::StrCat("dtype ", DTypeName(x.dtype), " is not supported"));
  }
  ASSIGN_OR_RETURN(DType out_type, c.AttrOr<DType>("output_type", DType::kInt64));
  RETURN_IF_ERROR(ops::CheckDType(c, out_type, {DType::kInt32, DType::kInt64}, "output_type"));
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", 0));
  if (!x.shape.known_rank()) {
    c.AddOutput(out_type, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(int a, ops::CanonicalAxis(c, axis, x.shape.rank()));
  if (x.shape.dim(a) == 0) {
    return c.Error(absl::StrCat("cannot reduce over axis ", axis, ", which is empty in shape ",
                                x.shape.ToString()));
  }
  std::vector<int64_t> out = x.shape.dims();
  out.erase(out.begin() + a);
  c.AddOutput(out_type, PartialShape(out));
  return absl::OkStatus();
}

// Cumsum(x[, axis]): attrs axis (int, default 0), exclusive, reverse (bool, default
// false). The axis may instead come as a second input (as in TensorFlow and ONNX), an
// int32/int64 scalar or 1-element tensor read at run time; not both.
Status InferCumsum(InferenceContext& c) {
  const TensorType& x = c.input(0);
  if (!IsNumeric(x.dtype)) {
    return c.Error(absl::StrCat("dtype ", DTypeName(x.dtype), " is not supported"));
  }
  if (c.num_inputs() > 2) {
    return c.Error(absl::StrCat("expected 1 or 2 inputs (x, axis), got ", c.num_inputs()));
  }
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", 0));
  ASSIGN_OR_RETURN(bool exclusive, c.AttrOr<bool>("exclusive", false));
  ASSIGN_OR_RETURN(bool reverse, c.AttrOr<bool>("reverse", false));
  (void)exclusive;
  (void)reverse;
  bool axis_known = true;
  if (c.num_inputs() == 2) {
    if (c.attrs().contains("axis")) {
      return c.Error("axis is given both as an attribute and as an input");
    }
    const TensorType& a = c.input(1);
    RETURN_IF_ERROR(ops::CheckDType(c, a.dtype, {DType::kInt32, DType::kInt64}, "axis dtype"));
    if (a.shape.known_rank() &&
        (a.shape.rank() > 1 || (a.shape.fully_defined() && a.shape.num_elements() != 1))) {
      return c.Error(absl::StrCat("axis must be a scalar, got shape ", a.shape.ToString()));
    }
    const Tensor* v = c.input_value(1);
    axis_known = v != nullptr && v->num_elements() == 1;
    if (axis_known) {
      axis = v->dtype() == DType::kInt32 ? int64_t{v->data<int32_t>()[0]} : v->data<int64_t>()[0];
    }
  }
  if (axis_known && x.shape.known_rank()) {
    RETURN_IF_ERROR(ops::CanonicalAxis(c, axis, x.shape.rank()).status());
  }
  c.AddOutput(x.dtype, x.shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterReductionOps(OpRegistry& r) {
  r.Register({.name = "SumToShapeOf", .num_inputs = 2, .infer = [](InferenceContext& c) -> Status {
                const TensorType& g = c.input(0);
                const TensorType& like = c.input(1);
                if (!IsNumeric(g.dtype)) return c.Error(absl::StrCat("dtype ", DTypeName(g.dtype), " is not supported"));
                if (g.shape.known_rank() && like.shape.known_rank() && like.shape.rank() > g.shape.rank()) {
                  return c.Error(absl::StrCat("cannot sum shape ", g.shape.ToString(), " to the larger rank of ",
                                              like.shape.ToString()));
                }
                c.AddOutput(g.dtype, like.shape);
                return absl::OkStatus();
              }});
  for (const char* name : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    r.Register({.name = name, .num_inputs = 1,
                .infer = [](InferenceContext& c) { return InferReduction(c, false); }});
  }
  for (const char* name : {"Any", "All"}) {
    r.Register({.name = name, .num_inputs = 1,
                .infer = [](InferenceContext& c) { return InferReduction(c, true); }});
  }
  r.Register({.name = "ArgMax", .num_inputs = 1, .infer = InferArgReduce});
  r.Register({.name = "ArgMin", .num_inputs = 1, .infer = InferArgReduce});
  r.Register({.name = "Cumsum", .num_inputs = OpDef::kVariadic, .min_inputs = 1,
              .infer = InferCumsum});
}

}  // namespace graphd
