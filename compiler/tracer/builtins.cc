#include "compiler/tracer/builtins.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/exceptions.h"
#include "compiler/tracer/interpreter.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_value.h"
#include "core/float_to_int.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

Status Count(const CallArgs& a, size_t lo, size_t hi, const char* name) {
  if (a.args.size() < lo || a.args.size() > hi) {
    return PyError("TypeError", absl::StrCat(name, "() takes ", lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, " to ", hi),
                                             " arguments (", a.args.size(), " given)"));
  }
  return absl::OkStatus();
}

const Value* Kwarg(const CallArgs& a, const std::string& name) {
  for (const auto& [k, v] : a.kwargs) {
    if (k == name) return &v;
  }
  return nullptr;
}

StatusOr<Value> Print(Interpreter& in, CallArgs& a) {
  std::string sep = " ", end = "\n";
  if (const Value* s = Kwarg(a, "sep"); s && s->is(K::kStr)) sep = s->as_str();
  if (const Value* e = Kwarg(a, "end"); e && e->is(K::kStr)) end = e->as_str();
  std::string line;
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (i) line += sep;
    line += PyStr(a.args[i]);
  }
  in.out() += line + end;
  return Value::None();
}

StatusOr<Value> Len(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Count(a, 1, 1, "len"));
  const Value& v = a.args[0];
  if (v.is(K::kTensor)) {
    ASSIGN_OR_RETURN(Value shape, in.GetAttr(v, "shape"));
    ASSIGN_OR_RETURN(Value first, in.Subscript(shape, Value::Int(0)));
    if (!first.is_int_like()) return PyError("TypeError", "len() of a tensor with an unknown first dimension");
    return first;
  }
  if (v.is(K::kObject) && v.as_object()->Items() != nullptr) {
    return Value::Int(static_cast<int64_t>(v.as_object()->Items()->size()));
  }
  if (auto r = v.object_as<RangeObj>()) return Value::Int(r->size());
  if (v.is(K::kStr) || v.is(K::kBytes) || v.is(K::kTuple) || v.is(K::kList) || v.is(K::kDict)) {
    ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(v));
    return Value::Int(static_cast<int64_t>(items.size()));
  }
  return PyError("TypeError", "object of type '" + v.TypeName() + "' has no len()");
}

StatusOr<Value> Range(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Count(a, 1, 3, "range"));
  for (const Value& v : a.args) {
    if (v.is(K::kTensor)) {
      // AutoGraph: range() over tensors is tf.range (a loop over it is staged).
      const Value* tf = in.FindModule("tensorflow");
      if (tf == nullptr) break;
      ASSIGN_OR_RETURN(Value tf_range, in.GetAttr(*tf, "range"));
      return in.Call(tf_range, a);
    }
  }
  for (const Value& v : a.args) {
    if (!v.is_int_like()) return PyError("TypeError", "'" + v.TypeName() + "' object cannot be interpreted as an integer");
  }
  int64_t start = 0, stop, step = 1;
  if (a.args.size() == 1) {
    stop = a.args[0].as_int();
  } else {
    start = a.args[0].as_int();
    stop = a.args[1].as_int();
    if (a.args.size() == 3) step = a.args[2].as_int();
  }
  if (step == 0) return PyError("ValueError", "range() arg 3 must not be zero");
  return Value::Obj(std::make_shared<RangeObj>(start, stop, step));
}

StatusOr<Value> Enumerate(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Count(a, 1, 2, "enumerate"));
  int64_t start = a.args.size() > 1 ? a.args[1].as_int() : 0;
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
  std::vector<Value> out;
  for (size_t i = 0; i < items.size(); ++i) out.push_back(Value::Tuple({Value::Int(start + static_cast<int64_t>(i)), items[i]}));
  return Value::List(std::move(out));
}

StatusOr<Value> Zip(Interpreter& in, CallArgs& a) {
  std::vector<std::vector<Value>> seqs;
  size_t n = SIZE_MAX;
  for (const Value& v : a.args) {
    ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(v));
    n = std::min(n, items.size());
    seqs.push_back(std::move(items));
  }
  if (seqs.empty()) n = 0;
  std::vector<Value> out;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Value> row;
    for (const auto& s : seqs) row.push_back(s[i]);
    out.push_back(Value::Tuple(std::move(row)));
  }
  return Value::List(std::move(out));
}

StatusOr<Value> MinMax(Interpreter& in, CallArgs& a, bool want_max) {
  const char* name = want_max ? "max" : "min";
  std::vector<Value> items = a.args;
  if (items.size() == 1) {
    ASSIGN_OR_RETURN(items, in.Iterate(a.args[0]));
  }
  if (items.empty()) return PyError("ValueError", absl::StrCat(name, "() arg is an empty sequence"));
  Value best = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    ASSIGN_OR_RETURN(Value less, in.CompareOp(ast::CmpOpKind::kLt, want_max ? best : items[i], want_max ? items[i] : best));
    ASSIGN_OR_RETURN(bool take, in.Truthy(less));
    if (take) best = items[i];
  }
  return best;
}

StatusOr<Value> Sum(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Count(a, 1, 2, "sum"));
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
  Value total = a.args.size() > 1 ? a.args[1] : Value::Int(0);
  for (const Value& v : items) {
    ASSIGN_OR_RETURN(total, in.BinaryOp(ast::BinOpKind::kAdd, total, v));
  }
  return total;
}

StatusOr<Value> Sorted(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Count(a, 1, 1, "sorted"));
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
  Status error;
  std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
    if (!error.ok()) return false;
    auto lt = in.CompareOp(ast::CmpOpKind::kLt, x, y);
    if (!lt.ok()) {
      error = lt.status();
      return false;
    }
    return lt->is(K::kBool) && lt->as_bool();
  });
  RETURN_IF_ERROR(error);
  if (const Value* r = Kwarg(a, "reverse"); r && r->is(K::kBool) && r->as_bool()) std::reverse(items.begin(), items.end());
  return Value::List(std::move(items));
}

// int(), float(), bool(), str(), list(), tuple(), dict() as conversion functions; their
// names double as types for isinstance().
// dict(), dict(mapping or iterable of pairs), with keyword entries added after.
StatusOr<Value> MakeDict(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Count(a, 0, 1, "dict"));
  Value out = Value::NewDict();
  auto put = [&](const Value& key, const Value& value) -> Status {
    ASSIGN_OR_RETURN(int i, out.as_dict()->Find(key));
    if (i >= 0) {
      out.as_dict()->items[i].second = value;
    } else {
      out.as_dict()->items.emplace_back(key, value);
    }
    return absl::OkStatus();
  };
  if (!a.args.empty()) {
    const Value& v = a.args[0];
    if (v.is(K::kDict)) {
      out.as_dict()->items = v.as_dict()->items;
    } else {
      ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(v));
      for (size_t i = 0; i < items.size(); ++i) {
        ASSIGN_OR_RETURN(std::vector<Value> pair, in.Iterate(items[i]));
        if (pair.size() != 2) {
          return PyError("ValueError", "dictionary update sequence element #" + std::to_string(i) + " has length " +
                                           std::to_string(pair.size()) + "; 2 is required");
        }
        RETURN_IF_ERROR(put(pair[0], pair[1]));
      }
    }
  }
  for (const auto& [key, value] : a.kwargs) RETURN_IF_ERROR(put(Value::Str(key), value));
  return out;
}

// Python's int() of a float, within graphd's 64-bit ints.
StatusOr<Value> IntOfFloat(double d) {
  if (std::isnan(d)) return PyError("ValueError", "cannot convert float NaN to integer");
  if (std::isinf(d)) return PyError("OverflowError", "cannot convert float infinity to integer");
  std::optional<int64_t> i = TruncateInRange<int64_t>(d);
  if (!i) return PyError("OverflowError", "int(" + FloatRepr(d) + ") is out of graphd's int64 range");
  return Value::Int(*i);
}

StatusOr<Value> Convert(Interpreter& in, CallArgs& a, const std::string& type) {
  if (type == "dict") return MakeDict(in, a);
  if (!a.kwargs.empty()) return PyError("TypeError", type + "() takes no keyword arguments");
  RETURN_IF_ERROR(Count(a, 0, 1, type.c_str()));
  if (a.args.empty()) {
    if (type == "int") return Value::Int(0);
    if (type == "float") return Value::Float(0);
    if (type == "bool") return Value::Bool(false);
    if (type == "str") return Value::Str("");
    if (type == "list") return Value::List({});
    if (type == "tuple") return Value::Tuple({});
    return Value::NewDict();
  }
  const Value& v = a.args[0];
  if (v.is(K::kTensor)) {
    // str() shows any tensor; list()/tuple() iterate it; int()/float()/bool() need an
    // eager (module-level) tensor of one element.
    if (type == "str") return Value::Str(PyStr(v));
    if (type == "list" || type == "tuple") {
      ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(v));
      return type == "list" ? Value::List(std::move(items)) : Value::Tuple(std::move(items));
    }
    const TensorObj& t = *v.as_tensor();
    if (!t.value) {
      return PyError("TypeError", type + "() of a symbolic tensor: its value is only known when the function runs");
    }
    if (t.value->num_elements() != 1 || t.dtype == DType::kString) {
      return PyError("TypeError", type + "() takes a tensor of one number, got shape " + ShapeRepr(t.shape));
    }
    double d = 0;
    switch (t.dtype) {
      case DType::kFloat32: d = t.value->data<float>()[0]; break;
      case DType::kFloat64: d = t.value->data<double>()[0]; break;
      case DType::kInt8: d = t.value->data<int8_t>()[0]; break;
      case DType::kInt16: d = t.value->data<int16_t>()[0]; break;
      case DType::kInt32: d = t.value->data<int32_t>()[0]; break;
      case DType::kInt64: d = static_cast<double>(t.value->data<int64_t>()[0]); break;
      case DType::kUInt8: d = t.value->data<uint8_t>()[0]; break;
      case DType::kUInt16: d = t.value->data<uint16_t>()[0]; break;
      case DType::kUInt32: d = t.value->data<uint32_t>()[0]; break;
      case DType::kBool: d = t.value->data<bool>()[0]; break;
      default: return PyError("TypeError", type + "() of a " + std::string(DTypeName(t.dtype)) + " tensor");
    }
    if (type == "int") {
      if (t.dtype == DType::kInt64) return Value::Int(t.value->data<int64_t>()[0]);
      return IntOfFloat(d);
    }
    if (type == "float") return Value::Float(d);
    if (type == "bool") return Value::Bool(d != 0);
    return PyError("TypeError", type + "() of a tensor");
  }
  if (type == "int") {
    if (v.is_int_like()) return Value::Int(v.as_int());
    if (v.is(K::kFloat)) return IntOfFloat(v.as_float());
    int64_t i;
    if (v.is(K::kStr) && absl::SimpleAtoi(v.as_str(), &i)) return Value::Int(i);
    return PyError("ValueError", "invalid literal for int(): " + PyRepr(v));
  }
  if (type == "float") {
    if (v.is_number()) return Value::Float(v.as_float());
    double d;
    if (v.is(K::kStr) && absl::SimpleAtod(v.as_str(), &d)) return Value::Float(d);
    return PyError("ValueError", "could not convert string to float: " + PyRepr(v));
  }
  if (type == "bool") {
    ASSIGN_OR_RETURN(bool t, in.Truthy(v));
    return Value::Bool(t);
  }
  if (type == "str") return Value::Str(PyStr(v));
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(v));
  return type == "list" ? Value::List(std::move(items)) : Value::Tuple(std::move(items));
}

bool IsInstance(const Value& v, const Value& type) {
  if (type.is(K::kTuple)) {
    for (const Value& t : type.as_tuple()) {
      if (IsInstance(v, t)) return true;
    }
    return false;
  }
  auto b = type.object_as<BuiltinObj>();
  if (b == nullptr) {
    if (auto cls = type.object_as<ExceptionClassObj>()) {
      auto exc = v.object_as<ExceptionObj>();
      return exc && exc->cls()->IsSubclassOf(*cls);
    }
    if (auto cls = type.object_as<ClassObj>()) {
      auto inst = v.object_as<InstanceObj>();
      return inst && inst->cls()->IsSubclassOf(*cls);
    }
    return false;
  }
  const std::string& t = b->name();
  if (t == "int") return v.is_int_like();
  return v.TypeName() == t;
}

Value Fn(const std::string& name, BuiltinFn fn) { return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn))); }

}  // namespace

std::shared_ptr<Namespace> MakeBuiltins() {
  auto b = std::make_shared<Namespace>("builtins");
  AddIterationBuiltins(*b);
  AddExceptionClasses(*b);
  b->Set("print", Fn("print", Print));
  b->Set("len", Fn("len", Len));
  b->Set("range", Fn("range", Range));
  b->Set("enumerate", Fn("enumerate", Enumerate));
  b->Set("zip", Fn("zip", Zip));
  b->Set("min", Fn("min", [](Interpreter& in, CallArgs& a) { return MinMax(in, a, false); }));
  b->Set("max", Fn("max", [](Interpreter& in, CallArgs& a) { return MinMax(in, a, true); }));
  b->Set("sum", Fn("sum", Sum));
  b->Set("sorted", Fn("sorted", Sorted));
  b->Set("reversed", Fn("reversed", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 1, 1, "reversed"));
    ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
    std::reverse(items.begin(), items.end());
    return Value::List(std::move(items));
  }));
  b->Set("abs", Fn("abs", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 1, 1, "abs"));
    const Value& v = a.args[0];
    if (v.is(K::kTensor)) {
      ASSIGN_OR_RETURN(Value method, in.GetAttr(v, "__abs__"));
      return in.Call(method, CallArgs{.site = a.site});
    }
    if (v.is_int_like()) return Value::Int(std::abs(v.as_int()));
    if (v.is(K::kFloat)) return Value::Float(std::fabs(v.as_float()));
    return PyError("TypeError", "bad operand type for abs(): '" + v.TypeName() + "'");
  }));
  b->Set("round", Fn("round", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 1, 2, "round"));
    const Value& v = a.args[0];
    if (!v.is_number()) return PyError("TypeError", "type " + v.TypeName() + " doesn't define __round__ method");
    if (a.args.size() == 2) {
      double scale = std::pow(10.0, static_cast<double>(a.args[1].as_int()));
      return Value::Float(std::nearbyint(v.as_float() * scale) / scale);
    }
    if (v.is_int_like()) return Value::Int(v.as_int());
    return IntOfFloat(std::nearbyint(v.as_float()));  // half to even
  }));
  b->Set("repr", Fn("repr", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 1, 1, "repr"));
    return Value::Str(PyRepr(a.args[0]));
  }));
  for (const char* t : {"int", "float", "bool", "str", "list", "tuple", "dict"}) {
    std::string type = t;
    b->Set(type, Fn(type, [type](Interpreter& in, CallArgs& a) { return Convert(in, a, type); }));
  }
  // type(x): the class of an instance or exception, the conversion builtin of a
  // Python primitive (what isinstance() takes).
  b->Set("type", Fn("type", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 1, 1, "type"));
    const Value& v = a.args[0];
    if (auto e = v.object_as<ExceptionObj>()) return Value::Obj(e->cls());
    if (auto i = v.object_as<InstanceObj>()) return Value::Obj(i->cls());
    const std::string name = v.TypeName();
    for (const char* t : {"int", "float", "bool", "str", "list", "tuple", "dict"}) {
      if (name == t) return *in.FindBuiltin(t);
    }
    return PyError("NotImplementedError", "type() of a " + name + " is not supported by graphd");
  }));
  b->Set("isinstance", Fn("isinstance", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 2, 2, "isinstance"));
    return Value::Bool(IsInstance(a.args[0], a.args[1]));
  }));
  b->Set("callable", Fn("callable", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 1, 1, "callable"));
    const Value& v = a.args[0];
    if (!v.is(K::kObject)) return Value::Bool(false);
    if (v.object_as<FunctionObj>() || v.object_as<BuiltinObj>() || v.object_as<BoundMethod>() ||
        v.object_as<ClassObj>()) {
      return Value::Bool(true);
    }
    if (auto inst = v.object_as<InstanceObj>()) return Value::Bool(inst->cls()->Lookup("__call__") != nullptr);
    return Value::Bool(false);
  }));
  b->Set("issubclass", Fn("issubclass", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 2, 2, "issubclass"));
    auto c = a.args[0].object_as<ClassObj>();
    auto base = a.args[1].object_as<ClassObj>();
    if (c == nullptr || base == nullptr) return PyError("TypeError", "issubclass() arguments must be classes");
    return Value::Bool(c->IsSubclassOf(*base));
  }));
  // super() in a method (its class and self), or super(cls, self).
  b->Set("super", Fn("super", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 0, 2, "super"));
    if (a.args.size() == 2) {
      auto cls = a.args[0].object_as<ClassObj>();
      if (cls == nullptr) return PyError("TypeError", "super() argument 1 must be a class");
      return Value::Obj(std::make_shared<SuperObj>(a.args[1], cls));
    }
    if (!a.args.empty()) return PyError("TypeError", "super() takes no arguments or two");
    if (in.method_frames().empty()) return PyError("RuntimeError", "super(): no arguments");
    const auto& frame = in.method_frames().back();
    return Value::Obj(std::make_shared<SuperObj>(frame.self, frame.cls));
  }));
  // property(fget): read-only computed attributes (@property).
  b->Set("property", Fn("property", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 1, 1, "property"));
    return Value::Obj(std::make_shared<PropertyObj>(a.args[0]));
  }));
  b->Set("hasattr", Fn("hasattr", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 2, 2, "hasattr"));
    return Value::Bool(in.GetAttr(a.args[0], a.args[1].as_str()).ok());
  }));
  b->Set("getattr", Fn("getattr", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 2, 3, "getattr"));
    if (!a.args[1].is(K::kStr)) return PyError("TypeError", "attribute name must be string");
    auto v = in.GetAttr(a.args[0], a.args[1].as_str());
    if (!v.ok() && a.args.size() == 3) return a.args[2];
    return v;
  }));
  b->Set("setattr", Fn("setattr", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Count(a, 3, 3, "setattr"));
    if (!a.args[1].is(K::kStr)) return PyError("TypeError", "attribute name must be string");
    RETURN_IF_ERROR(in.SetAttr(a.args[0], a.args[1].as_str(), a.args[2]));
    return Value::None();
  }));
  b->Set("object", Fn("object", [](Interpreter&, CallArgs&) -> StatusOr<Value> {
    return PyError("NotImplementedError", "object() instances are not supported by graphd; define a class");
  }));
  return b;
}

}  // namespace graphd::compiler::tracer
