#include "compiler/cache/call_signature.h"

#include "absl/strings/str_cat.h"

#include "compiler/tracer/namedtuple.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_value.h"
#include "compiler/tracer/objects.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/variables.h"

namespace graphd::compiler {
namespace {

using tracer::Value;
using K = Value::Kind;

// The elements of a host tensor, exactly (strings one by one; a device tensor by its
// buffer, which no other tensor shares).
void AddTensorValue(const Tensor& t, SignatureKey& key) {
  if (!t.on_host()) {
    key.AddInt(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.buffer().get())));
  } else if (t.dtype() == DType::kString) {
    const std::string* s = t.data<std::string>();
    for (int64_t i = 0; i < t.num_elements(); ++i) key.AddStr(s[i]);
  } else {
    key.AddRaw(absl::string_view(static_cast<const char*>(t.raw_data()), t.bytes()));
  }
}

// A call's arguments as the cache sees them, added to `key` without allocating for
// tensors and Python scalars, strings and containers of these. Top-level eager
// tensors are keyed by dtype and shape (they are fed); anything else by value (a
// tensor inside a container is traced as a constant, so its value is part of the key).
Status AddArg(const Value& v, SignatureKey& key, int depth) {
  const bool top_level = depth == 0;
  if (depth > kMaxArgDepth) {
    return errors::InvalidArgument(absl::StrCat("function arguments nest deeper than ", kMaxArgDepth, " containers"));
  }
  switch (v.kind()) {
    case K::kNone:
      key.AddNone();
      return absl::OkStatus();
    case K::kBool:
      key.AddBool(v.as_bool());
      return absl::OkStatus();
    case K::kInt:
      key.AddInt(v.as_int());
      return absl::OkStatus();
    case K::kFloat:
      key.AddFloat(v.as_float());
      return absl::OkStatus();
    case K::kStr:
      key.AddStr(v.as_str());
      return absl::OkStatus();
    case K::kTuple:
    case K::kList: {
      const std::vector<Value>& items = v.is(K::kTuple) ? v.as_tuple() : v.as_list()->items;
      key.OpenContainer(v.is(K::kTuple) ? SignatureKey::kTuple : SignatureKey::kList,
                        static_cast<uint32_t>(items.size()));
      for (const Value& e : items) RETURN_IF_ERROR(AddArg(e, key, depth + 1));
      return absl::OkStatus();
    }
    case K::kDict: {
      const auto& items = v.as_dict()->items;
      key.OpenContainer(SignatureKey::kDict, static_cast<uint32_t>(items.size()));
      for (const auto& [k, e] : items) {
        RETURN_IF_ERROR(AddArg(k, key, depth + 1));
        RETURN_IF_ERROR(AddArg(e, key, depth + 1));
      }
      return absl::OkStatus();
    }
    case K::kTensor:
      if (!v.as_tensor()->symbolic()) {
        const Tensor& t = *v.as_tensor()->value;
        if (top_level) {
          key.AddTensor(t.dtype(), absl::MakeConstSpan(t.shape().dims()));
        } else {  // traced as a constant: its value is the key, its shape never generalised
          key.AddConstTensor(t.dtype(), absl::MakeConstSpan(t.shape().dims()));
          AddTensorValue(t, key);
        }
        return absl::OkStatus();
      }
      break;
    case K::kObject:
      // Objects whose repr does not say which one they are: by what names them.
      if (auto var = v.object_as<tracer::VariableObj>()) {
        key.AddRaw("tf.Variable");
        key.AddStr(var->store_name());
        return absl::OkStatus();
      }
      if (auto fn = v.object_as<tracer::FunctionObj>()) {
        key.AddRaw("function");
        key.AddInt(fn->serial);
        return absl::OkStatus();
      }
      if (auto method = v.object_as<tracer::BoundMethod>()) {  // its instance and function
        key.AddRaw("method");
        RETURN_IF_ERROR(AddArg(method->self(), key, depth + 1));
        return AddArg(method->fn(), key, depth + 1);
      }
      if (auto tuple = v.object_as<tracer::NamedTupleObj>()) {  // its class and items, as a tuple's
        key.AddRaw("namedtuple");
        key.AddInt(static_cast<int64_t>(tuple->cls()->unique_id()));
        const std::vector<Value>& items = *tuple->Items();
        key.OpenContainer(SignatureKey::kTuple, static_cast<uint32_t>(items.size()));
        for (const Value& e : items) RETURN_IF_ERROR(AddArg(e, key, depth + 1));
        return absl::OkStatus();
      }
      if (auto slice = v.object_as<tracer::SliceObj>()) {
        key.AddRaw("slice");
        for (const Value* part : {&slice->start, &slice->stop, &slice->step}) {
          RETURN_IF_ERROR(AddArg(*part, key, depth + 1));
        }
        return absl::OkStatus();
      }
      // Values whose repr says exactly what they are.
      if (v.object_as<tracer::DTypeObj>() || v.object_as<tracer::TensorSpecObj>() ||
          v.object_as<tracer::RangeObj>()) {
        break;
      }
      // Anything else by identity, as tf.function keys objects it cannot compare: the
      // trace bakes in what the object held then (an instance's attributes), and reprs
      // do not tell apart instances, classes of one name, or builtins bound to
      // different objects (`v.read_value`). Not shared across sessions: ids differ.
      key.AddRaw("object");
      key.AddStr(v.as_object()->TypeName());
      key.AddInt(static_cast<int64_t>(v.as_object()->unique_id()));
      return absl::OkStatus();
    default:
      break;
  }
  key.AddRaw(v.TypeName() + ":" + tracer::PyRepr(v));
  return absl::OkStatus();
}

}  // namespace

Status AddCallArgs(const std::vector<Value>& args, const std::vector<std::pair<std::string, Value>>& kwargs,
                   SignatureKey& key) {
  for (const Value& a : args) RETURN_IF_ERROR(AddArg(a, key, 0));
  for (const auto& [k, v] : kwargs) {
    key.AddName(k);
    RETURN_IF_ERROR(AddArg(v, key, 0));
  }
  return absl::OkStatus();
}

void AddPinnedSignature(absl::string_view mode, const std::vector<Value>& specs, SignatureKey& key) {
  key.AddName(mode);
  for (const Value& spec : specs) {
    auto s = spec.object_as<tracer::TensorSpecObj>();
    key.AddTensor(s->dtype, s->shape);
    key.AddStr(s->name);
  }
}

}  // namespace graphd::compiler
