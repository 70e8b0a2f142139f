// Runtime side effects for users: PrintV2 (tf.print, and print of tensors in staged
// code) and Assert (assert on a tensor).
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {
namespace {

// PrintV2(tensors...): attrs `template` (text with one "{}" per input),
// `output_stream` ("stdout" or "stderr"), `end` (appended, default "\n").
Status InferPrint(InferenceContext& c) {
  ASSIGN_OR_RETURN(std::string tmpl, c.Attr<std::string>("template"));
  ASSIGN_OR_RETURN(std::string stream, c.AttrOr<std::string>("output_stream", "stderr"));
  if (stream != "stdout" && stream != "stderr") return c.Error("output_stream must be stdout or stderr");
  int fields = 0;
  for (size_t i = 0; i + 1 < tmpl.size(); ++i) {
    if (tmpl[i] == '{' && tmpl[i + 1] == '}') ++fields, ++i;
  }
  if (fields != c.num_inputs()) {
    return c.Error(absl::StrCat("template has ", fields, " {} fields for ", c.num_inputs(), " inputs"));
  }
  return absl::OkStatus();
}

// Assert(condition, data...): fails the run with `message` (and the data) when the
// condition is false.
Status InferAssert(InferenceContext& c) {
  if (c.input(0).dtype != DType::kBool) return c.Error("the condition must be bool");
  if (c.input(0).shape.known_rank() && c.input(0).shape.num_elements() != 1 &&
      c.input(0).shape.num_elements() != kUnknownDim) {
    return c.Error("the condition must have one element");
  }
  RETURN_IF_ERROR(c.AttrOr<std::string>("message", "").status());
  return absl::OkStatus();
}

}  // namespace

void RegisterLoggingOps(OpRegistry& r) {
  r.Register({.name = "PrintV2", .num_inputs = OpDef::kVariadic, .min_inputs = 0, .stateful = true,
              .infer = InferPrint});
  r.Register({.name = "Assert", .num_inputs = OpDef::kVariadic, .min_inputs = 1, .stateful = true,
              .infer = InferAssert});
}

}  // namespace graphd
