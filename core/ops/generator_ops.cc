// Ops that make new tensors: Fill, ZerosLike, OnesLike, Eye, Range, LinSpace, and the
// counter-based StatelessRandomUniform / StatelessRandomNormal.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

Status CheckScalar(InferenceContext& c, int i, absl::string_view what) {
  const PartialShape& s = c.input(i).shape;
  if (s.known_rank() && s.rank() != 0) {
    return c.Error(absl::StrCat(what, " must be a scalar, got shape ", s.ToString()));
  }
  return absl::OkStatus();
}

// Fill(value): attr shape (list(int)); the output has value's dtype.
Status InferFill(InferenceContext& c) {
  RETURN_IF_ERROR(CheckScalar(c, 0, "value"));
  ASSIGN_OR_RETURN(IntList shape, ops::IntListAttr(c, "shape", 0));
  c.AddOutput(c.input(0).dtype, PartialShape(shape));
  return absl::OkStatus();
}

// DynamicFill(dims, value): TensorFlow's Fill, the shape given as an int32/int64
// vector at run time (tf.zeros([n - i, 10]) with a tensor n - i).
Status InferDynamicFill(InferenceContext& c) {
  const TensorType& dims = c.input(0);
  if (dims.dtype != DType::kInt32 && dims.dtype != DType::kInt64) {
    return c.Error(absl::StrCat("dims must be int32 or int64, got ", DTypeName(dims.dtype)));
  }
  if (dims.shape.known_rank() && dims.shape.rank() != 1) return c.Error("dims must be a vector");
  RETURN_IF_ERROR(CheckScalar(c, 1, "value"));
  if (!dims.shape.known_rank() || dims.shape.dim(0) == kUnknownDim) {
    c.AddOutput(c.input(1).dtype, PartialShape::UnknownRank());
  } else {
    c.AddOutput(c.input(1).dtype, PartialShape(std::vector<int64_t>(dims.shape.dim(0), kUnknownDim)));
  }
  return absl::OkStatus();
}

Status InferLike(InferenceContext& c) {
  DType d = c.input(0).dtype;
  if (!IsNumeric(d) && d != DType::kBool) {
    return c.Error(absl::StrCat("dtype ", DTypeName(d), " is not supported"));
  }
  c.AddOutput(d, c.input(0).shape);
  return absl::OkStatus();
}

// attrs num_rows, num_columns (default num_rows), batch_shape (list), dtype (float32),
// k (the diagonal of ones: 0 the main one, > 0 above it, < 0 below; default 0).
Status InferEye(InferenceContext& c) {
  ASSIGN_OR_RETURN(int64_t rows, c.Attr<int64_t>("num_rows"));
  ASSIGN_OR_RETURN(int64_t cols, c.AttrOr<int64_t>("num_columns", rows));
  ASSIGN_OR_RETURN(IntList batch, c.AttrOr<IntList>("batch_shape", {}));
  ASSIGN_OR_RETURN(DType dtype, c.AttrOr<DType>("dtype", DType::kFloat32));
  RETURN_IF_ERROR(c.AttrOr<int64_t>("k", 0).status());
  if (rows < 0 || cols < 0) {
    return c.Error(absl::StrCat("num_rows and num_columns must be >= 0, got ", rows, " and ", cols));
  }
  for (int64_t b : batch) {
    if (b < 0) return c.Error(absl::StrCat("batch_shape has a negative entry ", b));
  }
  if (!IsNumeric(dtype) && dtype != DType::kBool) {
    return c.Error(absl::StrCat("dtype ", DTypeName(dtype), " is not supported"));
  }
  batch.push_back(rows);
  batch.push_back(cols);
  c.AddOutput(dtype, PartialShape(batch));
  return absl::OkStatus();
}

template <typename T>
StatusOr<int64_t> ConstRangeSize(InferenceContext& c) {
  auto size = ops::RangeSize<T>(c.input_value(0)->data<T>()[0], c.input_value(1)->data<T>()[0],
                                c.input_value(2)->data<T>()[0]);
  if (!size.ok()) return c.Error(size.status().message());
  return *size;
}

// Range(start, limit, delta): scalars of one dtype; [n] with n known when all three
// come from Const nodes.
Status InferRange(InferenceContext& c) {
  DType d = c.input(0).dtype;
  RETURN_IF_ERROR(ops::CheckDType(c, d, {DType::kInt32, DType::kInt64, DType::kFloat32,
                                         DType::kFloat64}, "start dtype"));
  const char* names[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    if (c.input(i).dtype != d) {
      return c.Error(absl::StrCat("start is ", DTypeName(d), " but ", names[i], " is ",
                                  DTypeName(c.input(i).dtype)));
    }
    RETURN_IF_ERROR(CheckScalar(c, i, names[i]));
  }
  int64_t n = kUnknownDim;
  bool constant = true;
  for (int i = 0; i < 3; ++i) {
    constant &= c.input_value(i) != nullptr && c.input_value(i)->num_elements() == 1;
  }
  if (constant) {
    StatusOr<int64_t> size = d == DType::kInt32   ? ConstRangeSize<int32_t>(c)
                             : d == DType::kInt64   ? ConstRangeSize<int64_t>(c)
                             : d == DType::kFloat32 ? ConstRangeSize<float>(c)
                                                    : ConstRangeSize<double>(c);
    if (!size.ok()) return size.status();
    n = *size;
  }
  c.AddOutput(d, PartialShape(std::vector<int64_t>{n}));
  return absl::OkStatus();
}

// LinSpace(start, stop): float scalars of one dtype; attr num (>= 1).
Status InferLinSpace(InferenceContext& c) {
  DType d = c.input(0).dtype;
  RETURN_IF_ERROR(ops::CheckDType(c, d, ops::kFloatDTypes, "start dtype"));
  if (c.input(1).dtype != d) {
    return c.Error(absl::StrCat("start is ", DTypeName(d), " but stop is ",
                                DTypeName(c.input(1).dtype)));
  }
  RETURN_IF_ERROR(CheckScalar(c, 0, "start"));
  RETURN_IF_ERROR(CheckScalar(c, 1, "stop"));
  ASSIGN_OR_RETURN(int64_t num, c.Attr<int64_t>("num"));
  if (num < 1) return c.Error(absl::StrCat("num must be positive, got ", num));
  c.AddOutput(d, PartialShape(std::vector<int64_t>{num}));
  return absl::OkStatus();
}

// attrs shape (list(int)), dtype (float32 | float64), seed (list of 2 ints).
Status InferStatelessRandom(InferenceContext& c) {
  ASSIGN_OR_RETURN(IntList shape, ops::IntListAttr(c, "shape", 0));
  ASSIGN_OR_RETURN(DType dtype, c.AttrOr<DType>("dtype", DType::kFloat32));
  RETURN_IF_ERROR(ops::CheckDType(c, dtype, ops::kFloatDTypes));
  ASSIGN_OR_RETURN(IntList seed, c.Attr<IntList>("seed"));
  if (seed.size() != 2) {
    return c.Error(absl::StrCat("seed must have 2 entries, got ", seed.size()));
  }
  c.AddOutput(dtype, PartialShape(shape));
  return absl::OkStatus();
}

}  // namespace

void RegisterGeneratorOps(OpRegistry& r) {
  r.Register({.name = "Fill", .num_inputs = 1, .infer = InferFill});
  r.Register({.name = "DynamicFill", .num_inputs = 2, .infer = InferDynamicFill});
  r.Register({.name = "ZerosLike", .num_inputs = 1, .infer = InferLike});
  r.Register({.name = "OnesLike", .num_inputs = 1, .infer = InferLike});
  r.Register({.name = "Eye", .num_inputs = 0, .infer = InferEye});
  r.Register({.name = "Range", .num_inputs = 3, .infer = InferRange});
  r.Register({.name = "LinSpace", .num_inputs = 2, .infer = InferLinSpace});
  for (const char* name : {"StatelessRandomUniform", "StatelessRandomNormal"}) {
    r.Register({.name = name, .num_inputs = 0, .infer = InferStatelessRandom});
  }
  // tf.random.uniform / normal: the same generators with a stream that advances on
  // every run (seed = [graph-level seed, op seed]; [0, 0] draws one per kernel).
  for (const char* name : {"RandomUniform", "RandomStandardNormal"}) {
    r.Register({.name = name, .num_inputs = 0, .stateful = true, .infer = InferStatelessRandom});
  }
}

}  // namespace graphd
