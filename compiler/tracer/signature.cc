#include "compiler/tracer/signature.h"

#include "absl/strings/str_join.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {
namespace {

// How one trace argument reads in a signature (tensors by dtype and shape).
std::string ArgText(const Value& v) {
  if (auto spec = v.object_as<TensorSpecObj>()) return std::string(DTypeName(spec->dtype)) + spec->shape.ToString();
  return v.TypeName() + ":" + PyRepr(v);
}

}  // namespace

std::string SignatureText(const TraceArgs& args) {
  std::vector<std::string> parts;
  for (const Value& v : args.args) parts.push_back(ArgText(v));
  for (const auto& [k, v] : args.kwargs) parts.push_back(k + "=" + ArgText(v));
  return "(" + absl::StrJoin(parts, ", ") + ")";
}

}  // namespace graphd::compiler::tracer
