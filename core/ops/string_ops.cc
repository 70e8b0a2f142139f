// String ops: StringJoin (elementwise with broadcasting) and StringLength.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

// StringJoin(inputs...): attr separator (default ""); inputs broadcast together.
Status InferStringJoin(InferenceContext& c) {
  RETURN_IF_ERROR(c.AttrOr<std::string>("separator", "").status());
  PartialShape out(std::vector<int64_t>{});
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.input(i).dtype != DType::kString) {
      return c.Error(absl::StrCat("input ", i, " is ", DTypeName(c.input(i).dtype),
                                  ", expected string"));
    }
    auto s = BroadcastShapes(out, c.input(i).shape);
    if (!s.ok()) return c.Error(s.status().message());
    out = *s;
  }
  c.AddOutput(DType::kString, out);
  return absl::OkStatus();
}

// StringLength(input): attr unit BYTE (default) or UTF8_CHAR; int32 output.
Status InferStringLength(InferenceContext& c) {
  if (c.input(0).dtype != DType::kString) {
    return c.Error(absl::StrCat("input is ", DTypeName(c.input(0).dtype), ", expected string"));
  }
  RETURN_IF_ERROR(ops::EnumAttr(c, "unit", {"BYTE", "UTF8_CHAR"}, "BYTE").status());
  c.AddOutput(DType::kInt32, c.input(0).shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterStringOps(OpRegistry& r) {
  r.Register({.name = "StringJoin", .num_inputs = OpDef::kVariadic, .min_inputs = 1,
              .infer = InferStringJoin});
  r.Register({.name = "StringLength", .num_inputs = 1, .infer = InferStringLength});
}

}  // namespace graphd
