// Activations (Relu, Relu6, Sigmoid, Tanh, Gelu), Softmax / LogSoftmax over the last
// axis, and BiasAdd.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

Status InferFloatUnary(InferenceContext& c) {
  DType d = c.input(0).dtype;
  if (d != DType::kFloat32 && d != DType::kFloat64) {
    return c.Error(absl::StrCat("dtype ", DTypeName(d), " is not supported (float32, float64)"));
  }
  c.AddOutput(d, c.input(0).shape);
  return absl::OkStatus();
}

Status InferGelu(InferenceContext& c) {
  RETURN_IF_ERROR(c.AttrOr<bool>("approximate", false).status());
  return InferFloatUnary(c);
}

Status InferSoftmax(InferenceContext& c) {
  if (c.input(0).shape.known_rank() && c.input(0).shape.rank() < 1) {
    return c.Error("input must have rank >= 1");
  }
  return InferFloatUnary(c);
}

// BiasAdd(value, bias): bias (rank 1) added along the channel dimension, the last one
// (data_format NHWC, default) or dimension 1 (NCHW).
Status InferBiasAdd(InferenceContext& c) {
  const TensorType& value = c.input(0);
  const TensorType& bias = c.input(1);
  if (value.dtype != bias.dtype) {
    return c.Error(absl::StrCat("value is ", DTypeName(value.dtype), " but bias is ",
                                DTypeName(bias.dtype)));
  }
  RETURN_IF_ERROR(ops::CheckDType(c, value.dtype, ops::kNumberDTypes));
  ASSIGN_OR_RETURN(std::string format, ops::EnumAttr(c, "data_format", {"NHWC", "NCHW"}, "NHWC"));
  if (bias.shape.known_rank() && bias.shape.rank() != 1) {
    return c.Error(absl::StrCat("bias must be a vector, got shape ", bias.shape.ToString()));
  }
  if (value.shape.known_rank()) {
    int rank = value.shape.rank();
    if (rank < 2) {
      return c.Error(absl::StrCat("value must have rank >= 2, got shape ", value.shape.ToString()));
    }
    int64_t channels = value.shape.dim(format == "NHWC" ? rank - 1 : 1);
    if (bias.shape.known_rank() && channels != kUnknownDim && bias.shape.dim(0) != kUnknownDim &&
        bias.shape.dim(0) != channels) {
      return c.Error(absl::StrCat("bias has ", bias.shape.dim(0), " entries but value ",
                                  value.shape.ToString(), " has ", channels, " channels (",
                                  format, ")"));
    }
  }
  c.AddOutput(value.dtype, value.shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterNnOps(OpRegistry& r) {
  for (const char* name : {"Relu", "Relu6", "Sigmoid", "Tanh"}) {
    r.Register({.name = name, .num_inputs = 1, .infer = InferFloatUnary});
  }
  r.Register({.name = "Gelu", .num_inputs = 1, .infer = InferGelu});
  r.Register({.name = "Softmax", .num_inputs = 1, .infer = InferSoftmax});
  r.Register({.name = "LogSoftmax", .num_inputs = 1, .infer = InferSoftmax});
  r.Register({.name = "BiasAdd", .num_inputs = 2, .infer = InferBiasAdd});
}

}  // namespace graphd
