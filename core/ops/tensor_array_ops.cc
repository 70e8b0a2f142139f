// TensorArrayWrite(buffer, index, value): the tracer's TensorArray is its stacked
// buffer [n, element...]; a write returns the buffer with row `index` set, growing it
// when needed. An empty rank-1 buffer (shape [0]) means "no element yet".
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

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
  std::vector<int64_t> dims = {kUnknownDim};
  dims.insert(dims.end(), value.shape.dims().begin(), value.shape.dims().end());
  c.AddOutput(value.dtype, PartialShape(std::move(dims)));
  return absl::OkStatus();
}

}  // namespace

void RegisterTensorArrayOps(OpRegistry& r) {
  r.Register({.name = "TensorArrayWrite", .num_inputs = 3, .infer = InferWrite});
}

}  // namespace graphd
