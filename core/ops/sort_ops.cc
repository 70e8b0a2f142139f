// Ops that order or select elements by value.
//   TopKV2(input, k; sorted=true, largest=true, axis=-1, index_type=int32) ->
//     (values, indices): the k largest (or smallest) entries along `axis`, in order
//     (ties: lower index first; NaN counts as the largest value), and their positions
//     as index_type (int32 or int64). k is an int32/int64 scalar or 1-element tensor,
//     0 <= k <= the axis' size; the output's axis dim is k when k is a constant.
//     Numbers only. TensorFlow's TopKV2 is the axis=-1, largest=true case.
//   Where(x) -> int64 [num_nonzero, rank(x)]: the coordinates of x's nonzero (true)
//     elements in row-major order, as TensorFlow's one-input Where (ONNX NonZero is
//     its transpose). The first output dim is known only at run time.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

// The value of a constant k input, or kUnknownDim.
StatusOr<int64_t> ConstantK(InferenceContext& c) {
  const Tensor* k = c.input_value(1);
  if (k == nullptr || k->num_elements() != 1) return kUnknownDim;
  int64_t v = k->dtype() == DType::kInt32 ? int64_t{k->data<int32_t>()[0]} : k->data<int64_t>()[0];
  if (v < 0) return c.Error(absl::StrCat("k must be >= 0, got ", v));
  return v;
}

Status InferTopK(InferenceContext& c) {
  const TensorType& x = c.input(0);
  const TensorType& k = c.input(1);
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, ops::kNumberDTypes, "input dtype"));
  RETURN_IF_ERROR(ops::CheckDType(c, k.dtype, {DType::kInt32, DType::kInt64}, "k dtype"));
  if (k.shape.known_rank() &&
      (k.shape.rank() > 1 || (k.shape.fully_defined() && k.shape.num_elements() != 1))) {
    return c.Error(absl::StrCat("k must be a scalar, got shape ", k.shape.ToString()));
  }
  RETURN_IF_ERROR(c.AttrOr<bool>("sorted", true).status());
  RETURN_IF_ERROR(c.AttrOr<bool>("largest", true).status());
  ASSIGN_OR_RETURN(int64_t axis_attr, c.AttrOr<int64_t>("axis", -1));
  ASSIGN_OR_RETURN(DType index_type, c.AttrOr<DType>("index_type", DType::kInt32));
  RETURN_IF_ERROR(
      ops::CheckDType(c, index_type, {DType::kInt32, DType::kInt64}, "attribute 'index_type'"));
  ASSIGN_OR_RETURN(int64_t kv, ConstantK(c));
  PartialShape out = PartialShape::UnknownRank();
  if (x.shape.known_rank()) {
    if (x.shape.rank() == 0) return c.Error("input must have rank >= 1");
    ASSIGN_OR_RETURN(int axis, ops::CanonicalAxis(c, axis_attr, x.shape.rank()));
    const int64_t n = x.shape.dim(axis);
    if (kv != kUnknownDim && n != kUnknownDim && kv > n) {
      return c.Error(absl::StrCat("k (", kv, ") exceeds the size ", n, " of axis ", axis,
                                  " of input ", x.shape.ToString()));
    }
    std::vector<int64_t> dims = x.shape.dims();
    dims[axis] = kv;
    out = PartialShape(dims);
  }
  c.AddOutput(x.dtype, out);
  c.AddOutput(index_type, out);
  return absl::OkStatus();
}

Status InferWhere(InferenceContext& c) {
  const TensorType& x = c.input(0);
  if (!IsNumeric(x.dtype) && x.dtype != DType::kBool) {
    return c.Error(absl::StrCat("input dtype ", DTypeName(x.dtype), " is not supported"));
  }
  const int64_t rank = x.shape.known_rank() ? x.shape.rank() : kUnknownDim;
  c.AddOutput(DType::kInt64, PartialShape(std::vector<int64_t>{kUnknownDim, rank}));
  return absl::OkStatus();
}

}  // namespace

void RegisterSortOps(OpRegistry& r) {
  r.Register({.name = "TopKV2", .num_inputs = 2, .infer = InferTopK});
  r.Register({.name = "Where", .num_inputs = 1, .infer = InferWhere});
}

}  // namespace graphd
