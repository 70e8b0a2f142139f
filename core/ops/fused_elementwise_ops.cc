// FusedElementwise(x0, x1, ...; program): one float32 elementwise computation over its
// inputs, described by `program` (core/ops/elementwise_program.h). Inputs of rank 0 are
// scalars; the others have the output's shape or, when all shapes are known, reach it
// by a channel broadcast (ChannelBroadcastOf: a per-channel scale of a batch norm, say);
// no other broadcasting. Written by the elementwise_fusion pass.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/elementwise_program.h"

namespace graphd {
namespace {

// The shape both `a` and `b` may be, or false when they cannot be equal.
bool MergeShapes(const PartialShape& a, const PartialShape& b, PartialShape* out) {
  if (!a.known_rank()) {
    *out = b;
    return true;
  }
  if (!b.known_rank()) {
    *out = a;
    return true;
  }
  if (a.rank() != b.rank()) return false;
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.rank(); ++i) {
    if (dims[i] == kUnknownDim) {
      dims[i] = b.dim(i);
    } else if (b.dim(i) != kUnknownDim && b.dim(i) != dims[i]) {
      return false;
    }
  }
  *out = PartialShape(std::move(dims));
  return true;
}

// Inputs of different shapes: all known, broadcasting to one shape, each by a channel
// broadcast.
Status ChannelBroadcastShape(InferenceContext& c) {
  PartialShape out(std::vector<int64_t>{});
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input(i).shape;
    auto b = s.fully_defined() ? BroadcastShapes(out, s) : StatusOr<PartialShape>(errors::InvalidArgument(""));
    if (!b.ok()) {
      return c.Error(absl::StrCat("input ", i, " has shape ", s.ToString(),
                                  ": inputs have one shape, or known shapes that reach the output by a channel "
                                  "broadcast, or are scalars"));
    }
    out = *b;
  }
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input(i).shape;
    if (s.rank() > 0 && !ops::ChannelBroadcastOf(s.dims(), out.dims()).has_value()) {
      return c.Error(absl::StrCat("input ", i, " has shape ", s.ToString(), ", which does not reach the output's ",
                                  out.ToString(), " by a channel broadcast"));
    }
  }
  c.AddOutput(DType::kFloat32, out);
  return absl::OkStatus();
}

Status InferFusedElementwise(InferenceContext& c) {
  ASSIGN_OR_RETURN(std::string text, c.Attr<std::string>("program"));
  auto program = ops::ParseElementwiseProgram(text, c.num_inputs());
  if (!program.ok()) return c.Error(absl::StrCat("program: ", program.status().message()));
  PartialShape shape(std::vector<int64_t>{});
  bool have = false;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const TensorType& t = c.input(i);
    if (t.dtype != DType::kFloat32) {
      return c.Error(absl::StrCat("input ", i, " is ", DTypeName(t.dtype), ", expected float32"));
    }
    if (t.shape.known_rank() && t.shape.rank() == 0) continue;
    if (!have) {
      shape = t.shape;
      have = true;
      continue;
    }
    if (!MergeShapes(shape, t.shape, &shape)) return ChannelBroadcastShape(c);
  }
  c.AddOutput(DType::kFloat32, shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterFusedElementwiseOps(OpRegistry& r) {
  r.Register({.name = "FusedElementwise", .num_inputs = OpDef::kVariadic, .min_inputs = 1,
              .infer = InferFusedElementwise});
}

}  // namespace graphd
