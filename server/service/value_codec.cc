#include "server/service/value_codec.h"

#include "absl/strings/str_cat.h"

#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_value.h"
#include "compiler/tracer/tf_objects.h"
#include "server/service/tensor_codec.h"

namespace graphd::server {

using compiler::tracer::Value;
using K = Value::Kind;

namespace {
constexpr int kMaxDepth = 64;
}  // namespace

StatusOr<Value> ValueFromProto(const v1::PyValue& p, const std::string& what, int depth) {
  if (depth > kMaxDepth) return errors::InvalidArgument(what + ": values nest too deeply");
  switch (p.kind_case()) {
    case v1::PyValue::kNone:
    case v1::PyValue::KIND_NOT_SET: return Value::None();
    case v1::PyValue::kBoolValue: return Value::Bool(p.bool_value());
    case v1::PyValue::kIntValue: return Value::Int(p.int_value());
    case v1::PyValue::kFloatValue: return Value::Float(p.float_value());
    case v1::PyValue::kStrValue: return Value::Str(p.str_value());
    case v1::PyValue::kBytesValue: return Value::Bytes(p.bytes_value());
    case v1::PyValue::kTensor: {
      ASSIGN_OR_RETURN(Tensor t, TensorFromProto(p.tensor(), what));
      auto obj = std::make_shared<compiler::tracer::TensorObj>();
      obj->dtype = t.dtype();
      obj->shape = PartialShape(t.shape());
      obj->value = std::move(t);
      return Value::Tensor(std::move(obj));
    }
    case v1::PyValue::kList:
    case v1::PyValue::kTuple: {
      const v1::PyList& l = p.kind_case() == v1::PyValue::kList ? p.list() : p.tuple();
      std::vector<Value> items;
      for (int i = 0; i < l.items_size(); ++i) {
        ASSIGN_OR_RETURN(Value v, ValueFromProto(l.items(i), what + "[" + std::to_string(i) + "]", depth + 1));
        items.push_back(std::move(v));
      }
      return p.kind_case() == v1::PyValue::kList ? Value::List(std::move(items)) : Value::Tuple(std::move(items));
    }
    case v1::PyValue::kDict: {
      if (p.dict().keys_size() != p.dict().values_size()) return errors::InvalidArgument(what + ": dict keys and values differ in number");
      Value out = Value::NewDict();
      for (int i = 0; i < p.dict().keys_size(); ++i) {
        ASSIGN_OR_RETURN(Value k, ValueFromProto(p.dict().keys(i), what, depth + 1));
        ASSIGN_OR_RETURN(Value v, ValueFromProto(p.dict().values(i), what, depth + 1));
        ASSIGN_OR_RETURN(int found, out.as_dict()->Find(k));
        if (found >= 0) out.as_dict()->items[found].second = v; else out.as_dict()->items.emplace_back(k, v);
      }
      return out;
    }
    case v1::PyValue::kTensorSpec: {
      ASSIGN_OR_RETURN(DType dtype, DTypeFromProto(p.tensor_spec().dtype()));
      ASSIGN_OR_RETURN(PartialShape shape, PartialShapeFromProto(p.tensor_spec().shape()));
      return Value::Obj(std::make_shared<compiler::tracer::TensorSpecObj>(shape, dtype, ""));
    }
  }
  return errors::InvalidArgument(what + ": unknown value kind");
}

namespace {
Status Encode(const Value& v, v1::PyValue* out, int depth) {
  if (depth > kMaxDepth) {
    return errors::InvalidArgument(absl::StrCat("the result nests containers more than ", kMaxDepth,
                                                " levels deep, more than the protocol carries"));
  }
  switch (v.kind()) {
    case K::kNone: out->set_none(true); return absl::OkStatus();
    case K::kBool: out->set_bool_value(v.as_bool()); return absl::OkStatus();
    case K::kInt: out->set_int_value(v.as_int()); return absl::OkStatus();
    case K::kFloat: out->set_float_value(v.as_float()); return absl::OkStatus();
    case K::kStr: out->set_str_value(v.as_str()); return absl::OkStatus();
    case K::kBytes: out->set_bytes_value(v.as_bytes()); return absl::OkStatus();
    case K::kTensor:
      if (v.as_tensor()->value) {
        TensorToProto(*v.as_tensor()->value, out->mutable_tensor());
        return absl::OkStatus();
      }
      break;
    case K::kTuple:
    case K::kList: {
      v1::PyList* l = v.is(K::kTuple) ? out->mutable_tuple() : out->mutable_list();
      for (const Value& e : v.is(K::kTuple) ? v.as_tuple() : v.as_list()->items) {
        RETURN_IF_ERROR(Encode(e, l->add_items(), depth + 1));
      }
      return absl::OkStatus();
    }
    case K::kDict:
      out->mutable_dict();
      for (const auto& [k, e] : v.as_dict()->items) {
        RETURN_IF_ERROR(Encode(k, out->mutable_dict()->add_keys(), depth + 1));
        RETURN_IF_ERROR(Encode(e, out->mutable_dict()->add_values(), depth + 1));
      }
      return absl::OkStatus();
    default: break;
  }
  out->set_str_value(compiler::tracer::PyRepr(v));
  return absl::OkStatus();
}
}  // namespace

Status ValueToProto(const Value& v, v1::PyValue* out) { return Encode(v, out, 0); }

}  // namespace graphd::server
