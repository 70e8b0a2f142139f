// TensorArrayWrite(buffer, index, value): the tracer's TensorArray is its stacked
// buffer [n, element...]; a write returns the buffer with row `index` set, growing it
// when needed. An empty rank-1 buffer (shape [0]) means "no element yet".
// TensorArrayWriteGrad(dy, buffer_shape, index) -> (d buffer, d value): its gradient
// (dy's row `index`; dy cut to the buffer's rows with that row zeroed: [0] for the
// empty buffer, else [rows, element...] with rows = buffer_shape[0]).
//
// Sequences (ONNX's sequence<tensor>: a list whose elements share a dtype and a rank
// but not their dims) are a pair of tensors, so they flow through If/While, captures
// and function arguments like any other value:
//   values: 1-D, every element flattened, concatenated in order;
//   shapes: int64 [n, r], row k the dims of element k.
// An empty sequence whose rank is not known yet has shapes [0, 0]; the first insert
// sets the rank. The Sequence* ops below take and return such pairs:
//   SequenceConstruct(x...)              -> (values, shapes)  attr dtype (for no inputs)
//   SequenceInsert(values, shapes, x[, position]) -> (values, shapes)
//   SequenceErase(values, shapes[, position])     -> (values, shapes)
//   SequenceAt(values, shapes, position)          -> element   attr element_shape (optional)
//   SplitToSequence(x[, split])          -> (values, shapes)  attrs axis, keepdims
//   ConcatFromSequence(values, shapes)   -> tensor            attrs axis, new_axis
// Positions (scalars or one-element vectors) may be negative (from the end), as in ONNX.
//
// An optional (ONNX optional<T>) is a bool flag followed by its value's tensors:
//   OptionalGetElement(flag, parts...) -> parts...  (a run-time error when empty)
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

Status InferWrite(InferenceContext& c) {
  const TensorType& buffer = c.input(0);
  const TensorType& index = c.input(1);
  const TensorType& value = c.input(2);
  if (buffer.dtype != value.dtype) {
    return c.Error(absl::StrCat("the TensorArray holds ", DTypeName(buffer.dtype), " but the value is ",
                                DTypeName(value.dtype)));
  }
  if (index.dtype != DType::kInt32 && index.dtype != DType::kInt64) return c.Error("the index must be an integer");
  if (!value.shape.known_rank()) {
    c.AddOutput(value.dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  // The rows after the write, when the buffer's rows and the index are known.
  int64_t rows = kUnknownDim;
  const Tensor* i = c.input_value(1);
  if (i != nullptr && i->num_elements() == 1 && buffer.shape.known_rank() && buffer.shape.rank() >= 1 &&
      buffer.shape.dim(0) != kUnknownDim) {
    const int64_t at = i->dtype() == DType::kInt32 ? i->data<int32_t>()[0] : i->data<int64_t>()[0];
    // The empty buffer ([0]) has no rows; otherwise its first dimension is its rows.
    if (at >= 0) rows = std::max(buffer.shape.dim(0), at + 1);
  }
  std::vector<int64_t> dims = {rows};
  dims.insert(dims.end(), value.shape.dims().begin(), value.shape.dims().end());
  c.AddOutput(value.dtype, PartialShape(std::move(dims)));
  return absl::OkStatus();
}

Status InferWriteGrad(InferenceContext& c) {
  const TensorType& dy = c.input(0);
  RETURN_IF_ERROR(ops::CheckDType(c, dy.dtype, ops::kFloatDTypes));
  for (int i = 1; i < 3; ++i) {
    if (c.input(i).dtype != DType::kInt32 && c.input(i).dtype != DType::kInt64) {
      return c.Error(i == 1 ? "the buffer's shape must be an integer vector" : "the index must be an integer");
    }
  }
  if (dy.shape.known_rank() && dy.shape.rank() < 1) return c.Error("the gradient must have rank >= 1");
  // The buffer's gradient: [0] for the empty buffer, else [rows, element...].
  c.AddOutput(dy.dtype, PartialShape::UnknownRank());
  c.AddOutput(dy.dtype, dy.shape.known_rank() ? PartialShape(std::vector<int64_t>(dy.shape.dims().begin() + 1,
                                                                                  dy.shape.dims().end()))
                                              : PartialShape::UnknownRank());
  return absl::OkStatus();
}

int64_t RankOf(const PartialShape& s) { return s.known_rank() ? s.rank() : kUnknownDim; }

// Adds the (values, shapes) outputs for elements of `dtype` and rank `rank`.
void AddSequence(InferenceContext& c, DType dtype, int64_t rank, int64_t length = kUnknownDim) {
  c.AddOutput(dtype, PartialShape(std::vector<int64_t>{kUnknownDim}));
  c.AddOutput(DType::kInt64, PartialShape(std::vector<int64_t>{length, rank}));
}

// Checks inputs `first`, `first + 1` are a sequence; returns its element rank (or unknown).
StatusOr<int64_t> CheckSequence(InferenceContext& c, int first) {
  const TensorType& values = c.input(first);
  const TensorType& shapes = c.input(first + 1);
  if (values.shape.known_rank() && values.shape.rank() != 1) return c.Error("sequence values must be 1-D");
  if (shapes.dtype != DType::kInt64 || (shapes.shape.known_rank() && shapes.shape.rank() != 2)) {
    return c.Error("sequence shapes must be an int64 matrix");
  }
  return shapes.shape.known_rank() ? shapes.shape.dim(1) : kUnknownDim;
}

Status CheckPosition(InferenceContext& c, int i) {
  if (i >= c.num_inputs()) return absl::OkStatus();
  const TensorType& p = c.input(i);
  RETURN_IF_ERROR(ops::CheckDType(c, p.dtype, {DType::kInt32, DType::kInt64}, "position dtype"));
  // A scalar; one-element vectors are accepted too (as exporters write them).
  const bool one = !p.shape.known_rank() || p.shape.rank() == 0 ||
                   (p.shape.rank() == 1 && (p.shape.dim(0) == 1 || p.shape.dim(0) == kUnknownDim));
  if (!one) return c.Error(absl::StrCat("the position must be a scalar, got shape ", p.shape.ToString()));
  return absl::OkStatus();
}

Status InferConstruct(InferenceContext& c) {
  if (c.num_inputs() == 0) {
    ASSIGN_OR_RETURN(DType dtype, c.Attr<DType>("dtype"));
    AddSequence(c, dtype, 0, 0);
    return absl::OkStatus();
  }
  const TensorType& first = c.input(0);
  int64_t rank = RankOf(first.shape);
  for (int i = 1; i < c.num_inputs(); ++i) {
    if (c.input(i).dtype != first.dtype) return c.Error("sequence elements must have one dtype");
    int64_t r = RankOf(c.input(i).shape);
    if (r != kUnknownDim && rank != kUnknownDim && r != rank) return c.Error("sequence elements must have one rank");
    if (rank == kUnknownDim) rank = r;
  }
  AddSequence(c, first.dtype, rank, c.num_inputs());
  return absl::OkStatus();
}

Status InferInsert(InferenceContext& c) {
  if (c.num_inputs() < 3 || c.num_inputs() > 4) return c.Error("takes values, shapes, a tensor and a position");
  ASSIGN_OR_RETURN(int64_t rank, CheckSequence(c, 0));
  RETURN_IF_ERROR(CheckPosition(c, 3));
  const TensorType& x = c.input(2);
  if (x.dtype != c.input(0).dtype) {
    return c.Error(absl::StrCat("the sequence holds ", DTypeName(c.input(0).dtype), ", cannot insert ",
                                DTypeName(x.dtype)));
  }
  int64_t r = RankOf(x.shape);
  AddSequence(c, x.dtype, r != kUnknownDim ? r : rank);
  return absl::OkStatus();
}

Status InferErase(InferenceContext& c) {
  if (c.num_inputs() < 2 || c.num_inputs() > 3) return c.Error("takes values, shapes and a position");
  ASSIGN_OR_RETURN(int64_t rank, CheckSequence(c, 0));
  RETURN_IF_ERROR(CheckPosition(c, 2));
  AddSequence(c, c.input(0).dtype, rank);
  return absl::OkStatus();
}

Status InferAt(InferenceContext& c) {
  ASSIGN_OR_RETURN(int64_t rank, CheckSequence(c, 0));
  RETURN_IF_ERROR(CheckPosition(c, 2));
  ASSIGN_OR_RETURN(PartialShape shape, c.AttrOr<PartialShape>("element_shape", PartialShape::UnknownRank()));
  if (!shape.known_rank() && rank != kUnknownDim) shape = ops::UnknownDims(static_cast<int>(rank));
  c.AddOutput(c.input(0).dtype, shape);
  return absl::OkStatus();
}

Status InferSplitToSequence(InferenceContext& c) {
  if (c.num_inputs() < 1 || c.num_inputs() > 2) return c.Error("takes a tensor and optional split sizes");
  const TensorType& x = c.input(0);
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", 0));
  ASSIGN_OR_RETURN(int64_t keepdims, c.AttrOr<int64_t>("keepdims", 1));
  int64_t rank = RankOf(x.shape);
  if (rank != kUnknownDim) RETURN_IF_ERROR(ops::CanonicalAxis(c, axis, static_cast<int>(rank)).status());
  if (c.num_inputs() == 2) {
    RETURN_IF_ERROR(ops::CheckDType(c, c.input(1).dtype, {DType::kInt32, DType::kInt64}, "split dtype"));
  }
  // Without split sizes and keepdims = 0 each element drops the split axis.
  if (rank != kUnknownDim && c.num_inputs() == 1 && keepdims == 0) --rank;
  AddSequence(c, x.dtype, rank);
  return absl::OkStatus();
}

Status InferConcatFromSequence(InferenceContext& c) {
  ASSIGN_OR_RETURN(int64_t rank, CheckSequence(c, 0));
  ASSIGN_OR_RETURN(int64_t new_axis, c.AttrOr<int64_t>("new_axis", 0));
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", 0));
  if (rank == kUnknownDim) {
    c.AddOutput(c.input(0).dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  const int out_rank = static_cast<int>(rank + (new_axis != 0 ? 1 : 0));
  RETURN_IF_ERROR(ops::CanonicalAxis(c, axis, out_rank).status());
  c.AddOutput(c.input(0).dtype, ops::UnknownDims(out_rank));
  return absl::OkStatus();
}

Status InferOptionalGet(InferenceContext& c) {
  const TensorType& flag = c.input(0);
  if (flag.dtype != DType::kBool || (flag.shape.known_rank() && flag.shape.rank() != 0)) {
    return c.Error("the first input must be the optional's bool scalar flag");
  }
  for (int i = 1; i < c.num_inputs(); ++i) c.AddOutput(c.input(i).dtype, c.input(i).shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterTensorArrayOps(OpRegistry& r) {
  r.Register({.name = "TensorArrayWrite", .num_inputs = 3, .infer = InferWrite});
  r.Register({.name = "TensorArrayWriteGrad", .num_inputs = 3, .infer = InferWriteGrad});
  r.Register({.name = "SequenceConstruct", .num_inputs = OpDef::kVariadic, .infer = InferConstruct});
  r.Register({.name = "SequenceInsert", .num_inputs = OpDef::kVariadic, .min_inputs = 3, .infer = InferInsert});
  r.Register({.name = "SequenceErase", .num_inputs = OpDef::kVariadic, .min_inputs = 2, .infer = InferErase});
  r.Register({.name = "SequenceAt", .num_inputs = 3, .infer = InferAt});
  r.Register({.name = "SplitToSequence", .num_inputs = OpDef::kVariadic, .min_inputs = 1,
              .infer = InferSplitToSequence});
  r.Register({.name = "ConcatFromSequence", .num_inputs = 2, .infer = InferConcatFromSequence});
  r.Register({.name = "OptionalGetElement", .num_inputs = OpDef::kVariadic, .min_inputs = 2,
              .infer = InferOptionalGet});
}

}  // namespace graphd
