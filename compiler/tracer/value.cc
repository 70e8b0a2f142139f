#include "compiler/tracer/value.h"

#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {

Value Value::Tuple(std::vector<Value> items) {
  return Value(TupleVal(std::make_shared<const std::vector<Value>>(std::move(items))));
}

Value Value::List(std::vector<Value> items) {
  auto l = std::make_shared<ListObj>();
  l->items = std::move(items);
  return Value(std::move(l));
}

Value Value::NewDict() { return Value(std::make_shared<DictObj>()); }

std::string Value::TypeName() const {
  switch (kind()) {
    case Kind::kNone: return "NoneType";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kStr: return "str";
    case Kind::kBytes: return "bytes";
    case Kind::kTuple: return "tuple";
    case Kind::kList: return "list";
    case Kind::kDict: return "dict";
    case Kind::kTensor: return "Tensor";
    case Kind::kObject: return as_object()->TypeName();
  }
  return "object";
}

bool Value::Is(const Value& o) const {
  if (kind() != o.kind()) return false;
  switch (kind()) {
    case Kind::kList: return as_list() == o.as_list();
    case Kind::kDict: return as_dict() == o.as_dict();
    case Kind::kTensor: return as_tensor() == o.as_tensor();
    case Kind::kObject: return as_object() == o.as_object();
    case Kind::kTuple: return std::get<TupleVal>(v_) == std::get<TupleVal>(o.v_);
    default: return PyEquals(*this, o);
  }
}

bool PyEquals(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (a.is_number() && b.is_number()) {
    if (a.is(K::kFloat) || b.is(K::kFloat)) return a.as_float() == b.as_float();
    return a.as_int() == b.as_int();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::kNone: return true;
    case K::kStr: return a.as_str() == b.as_str();
    case K::kBytes: return a.as_bytes() == b.as_bytes();
    case K::kTuple: {
      const auto& x = a.as_tuple();
      const auto& y = b.as_tuple();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!PyEquals(x[i], y[i])) return false;
      }
      return true;
    }
    case K::kList: {
      const auto& x = a.as_list()->items;
      const auto& y = b.as_list()->items;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!PyEquals(x[i], y[i])) return false;
      }
      return true;
    }
    case K::kDict: {
      const auto& x = a.as_dict()->items;
      const auto& y = b.as_dict()->items;
      if (x.size() != y.size()) return false;
      for (const auto& [k, v] : x) {
        auto i = b.as_dict()->Find(k);
        if (!i.ok() || *i < 0 || !PyEquals(v, y[*i].second)) return false;
      }
      return true;
    }
    default: return a.Is(b);
  }
}

Status CheckHashable(const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::kList:
    case K::kDict:
      return PyError("TypeError", "unhashable type: '" + v.TypeName() + "'");
    case K::kTensor:
      return PyError("TypeError", "Tensor is unhashable. Instead, use tensor.ref() as the key.");
    case K::kTuple:
      for (const Value& e : v.as_tuple()) RETURN_IF_ERROR(CheckHashable(e));
      return absl::OkStatus();
    default: return absl::OkStatus();
  }
}

StatusOr<int> DictObj::Find(const Value& key) const {
  RETURN_IF_ERROR(CheckHashable(key));
  for (size_t i = 0; i < items.size(); ++i) {
    if (PyEquals(items[i].first, key)) return static_cast<int>(i);
  }
  return -1;
}

StatusOr<Value> Object::GetAttr(Interpreter&, const std::string& name) {
  return PyError("AttributeError", "'" + TypeName() + "' object has no attribute '" + name + "'");
}

Status Object::SetAttr(Interpreter&, const std::string& name, Value) {
  return PyError("AttributeError", "'" + TypeName() + "' object attribute '" + name + "' is read-only");
}

StatusOr<Value> Object::Call(Interpreter&, CallArgs&) {
  return PyError("TypeError", "'" + TypeName() + "' object is not callable");
}

std::string Object::Repr() const { return "<" + TypeName() + " object>"; }

StatusOr<Value> Object::AsTensor(Interpreter&) {
  return PyError("TypeError", "'" + TypeName() + "' object is not a tensor");
}

StatusOr<Value> Object::Enter(Interpreter&) { return Value::Obj(shared_from_this()); }

Status Object::Exit(Interpreter&, bool) { return absl::OkStatus(); }

}  // namespace graphd::compiler::tracer
