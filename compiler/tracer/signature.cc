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

bool ShapeServes(const PartialShape& general, const PartialShape& specific) {
  if (!general.known_rank()) return true;
  if (!specific.known_rank() || specific.rank() != general.rank()) return false;
  for (int d = 0; d < general.rank(); ++d) {
    if (general.dim(d) != kUnknownDim && general.dim(d) != specific.dim(d)) return false;
  }
  return true;
}

bool ArgAccepts(const Value& general, const Value& call) {
  auto g = general.object_as<TensorSpecObj>();
  auto c = call.object_as<TensorSpecObj>();
  if (g == nullptr || c == nullptr) return g == nullptr && c == nullptr && ArgText(general) == ArgText(call);
  return g->dtype == c->dtype && ShapeServes(g->shape, c->shape);
}

// The generalised argument, or nullopt when the two differ in more than dims.
std::optional<Value> ArgGeneralize(const Value& a, const Value& b) {
  auto x = a.object_as<TensorSpecObj>();
  auto y = b.object_as<TensorSpecObj>();
  if (x == nullptr || y == nullptr) {
    if (x == nullptr && y == nullptr && ArgText(a) == ArgText(b)) return a;
    return std::nullopt;
  }
  if (x->dtype != y->dtype || x->shape.known_rank() != y->shape.known_rank()) return std::nullopt;
  if (!x->shape.known_rank()) return a;
  if (x->shape.rank() != y->shape.rank()) return std::nullopt;
  std::vector<int64_t> dims;
  for (int d = 0; d < x->shape.rank(); ++d) {
    dims.push_back(x->shape.dim(d) == y->shape.dim(d) ? x->shape.dim(d) : kUnknownDim);
  }
  return Value::Obj(std::make_shared<TensorSpecObj>(PartialShape(std::move(dims)), x->dtype, x->name));
}

}  // namespace

bool SignatureAccepts(const TraceArgs& general, const TraceArgs& call) {
  if (general.args.size() != call.args.size() || general.kwargs.size() != call.kwargs.size()) return false;
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (!ArgAccepts(general.args[i], call.args[i])) return false;
  }
  for (size_t i = 0; i < call.kwargs.size(); ++i) {
    if (general.kwargs[i].first != call.kwargs[i].first) return false;
    if (!ArgAccepts(general.kwargs[i].second, call.kwargs[i].second)) return false;
  }
  return true;
}

std::optional<TraceArgs> GeneralizeSignature(const TraceArgs& previous, const TraceArgs& call) {
  if (previous.args.size() != call.args.size() || previous.kwargs.size() != call.kwargs.size()) return std::nullopt;
  TraceArgs out;
  for (size_t i = 0; i < call.args.size(); ++i) {
    std::optional<Value> v = ArgGeneralize(previous.args[i], call.args[i]);
    if (!v) return std::nullopt;
    out.args.push_back(*v);
  }
  for (size_t i = 0; i < call.kwargs.size(); ++i) {
    if (previous.kwargs[i].first != call.kwargs[i].first) return std::nullopt;
    std::optional<Value> v = ArgGeneralize(previous.kwargs[i].second, call.kwargs[i].second);
    if (!v) return std::nullopt;
    out.kwargs.emplace_back(call.kwargs[i].first, *v);
  }
  return out;
}

std::string SignatureText(const TraceArgs& args) {
  std::vector<std::string> parts;
  for (const Value& v : args.args) parts.push_back(ArgText(v));
  for (const auto& [k, v] : args.kwargs) parts.push_back(k + "=" + ArgText(v));
  return "(" + absl::StrJoin(parts, ", ") + ")";
}

}  // namespace graphd::compiler::tracer
