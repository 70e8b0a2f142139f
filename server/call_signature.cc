#include "server/call_signature.h"

#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_value.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::server {
namespace {

using compiler::tracer::Value;
using K = Value::Kind;

// A call's arguments as the cache sees them, added to `key` without allocating for
// tensors and Python scalars, strings and containers of these. Top-level eager
// tensors are keyed by dtype and shape (they are fed); anything else by value (a
// tensor inside a container is traced as a constant, so its value is part of the key).
void AddArg(const Value& v, compiler::SignatureKey& key, bool top_level) {
  switch (v.kind()) {
    case K::kNone:
      key.AddNone();
      return;
    case K::kBool:
      key.AddBool(v.as_bool());
      return;
    case K::kInt:
      key.AddInt(v.as_int());
      return;
    case K::kFloat:
      key.AddFloat(v.as_float());
      return;
    case K::kStr:
      key.AddStr(v.as_str());
      return;
    case K::kTuple:
    case K::kList: {
      const std::vector<Value>& items = v.is(K::kTuple) ? v.as_tuple() : v.as_list()->items;
      key.OpenContainer(v.is(K::kTuple) ? compiler::SignatureKey::kTuple : compiler::SignatureKey::kList,
                        static_cast<uint32_t>(items.size()));
      for (const Value& e : items) AddArg(e, key, false);
      return;
    }
    case K::kDict: {
      const auto& items = v.as_dict()->items;
      key.OpenContainer(compiler::SignatureKey::kDict, static_cast<uint32_t>(items.size()));
      for (const auto& [k, e] : items) {
        AddArg(k, key, false);
        AddArg(e, key, false);
      }
      return;
    }
    case K::kTensor:
      if (top_level && !v.as_tensor()->symbolic()) {
        const Tensor& t = *v.as_tensor()->value;
        key.AddTensor(t.dtype(), absl::MakeConstSpan(t.shape().dims()));
        return;
      }
      break;
    default:
      break;
  }
  key.AddRaw(v.TypeName() + ":" + compiler::tracer::PyRepr(v));
}

}  // namespace

void AddCallArgs(const std::vector<Value>& args, const std::vector<std::pair<std::string, Value>>& kwargs,
                 compiler::SignatureKey& key) {
  for (const Value& a : args) AddArg(a, key, true);
  for (const auto& [k, v] : kwargs) {
    key.AddName(k);
    AddArg(v, key, true);
  }
}

void AddPinnedSignature(absl::string_view mode, const std::vector<Value>& specs, compiler::SignatureKey& key) {
  key.AddName(mode);
  for (const Value& spec : specs) {
    auto s = spec.object_as<compiler::tracer::TensorSpecObj>();
    key.AddTensor(s->dtype, s->shape);
    key.AddStr(s->name);
  }
}

}  // namespace graphd::server
