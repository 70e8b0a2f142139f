// Attribute access and indexing: methods of list, dict and str, sequence indexing and
// slicing; objects and tensors answer for themselves.
#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/interpreter.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

Value Method(const std::string& name, BuiltinFn fn) { return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn))); }

Status Arity(const CallArgs& a, size_t lo, size_t hi, const std::string& name) {
  if (a.args.size() < lo || a.args.size() > hi || !a.kwargs.empty()) {
    return PyError("TypeError", name + "() takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                                    " positional arguments but " + std::to_string(a.args.size()) + " were given");
  }
  return absl::OkStatus();
}

StatusOr<int64_t> Index(const Value& index, int64_t size, const char* what) {
  if (!index.is_int_like()) return PyError("TypeError", std::string(what) + " indices must be integers or slices, not " + index.TypeName());
  int64_t i = index.as_int() < 0 ? index.as_int() + size : index.as_int();
  if (i < 0 || i >= size) return PyError("IndexError", std::string(what) + " index out of range");
  return i;
}

// Python slice semantics: the selected indices.
StatusOr<std::vector<int64_t>> SliceIndices(const SliceObj& s, int64_t n) {
  auto get = [](const Value& v, int64_t dflt) -> StatusOr<int64_t> {
    if (v.is_none()) return dflt;
    if (!v.is_int_like()) return PyError("TypeError", "slice indices must be integers or None");
    return v.as_int();
  };
  ASSIGN_OR_RETURN(int64_t step, get(s.step, 1));
  if (step == 0) return PyError("ValueError", "slice step cannot be zero");
  int64_t lo_default = step > 0 ? 0 : n - 1, hi_default = step > 0 ? n : -1;
  ASSIGN_OR_RETURN(int64_t start, get(s.start, lo_default));
  ASSIGN_OR_RETURN(int64_t stop, get(s.stop, hi_default));
  auto clamp = [&](int64_t v, bool is_default) {
    if (is_default) return v;
    if (v < 0) v += n;
    if (step > 0) return std::clamp<int64_t>(v, 0, n);
    return std::clamp<int64_t>(v, -1, n - 1);
  };
  start = clamp(start, s.start.is_none());
  stop = clamp(stop, s.stop.is_none());
  std::vector<int64_t> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(i);
  return out;
}

StatusOr<Value> ListMethod(Interpreter& interp, const Value& self, const std::string& name) {
  auto list = self.as_list();
  if (name == "append") return Method(name, [list](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 1, 1, "append"));
    list->items.push_back(a.args[0]);
    return Value::None();
  });
  if (name == "extend") return Method(name, [list](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 1, 1, "extend"));
    ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
    list->items.insert(list->items.end(), items.begin(), items.end());
    return Value::None();
  });
  if (name == "insert") return Method(name, [list](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 2, 2, "insert"));
    int64_t n = static_cast<int64_t>(list->items.size());
    int64_t i = std::clamp<int64_t>(a.args[0].as_int() < 0 ? a.args[0].as_int() + n : a.args[0].as_int(), 0, n);
    list->items.insert(list->items.begin() + i, a.args[1]);
    return Value::None();
  });
  if (name == "pop") return Method(name, [list](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 0, 1, "pop"));
    if (list->items.empty()) return PyError("IndexError", "pop from empty list");
    ASSIGN_OR_RETURN(int64_t i, Index(a.args.empty() ? Value::Int(-1) : a.args[0], list->items.size(), "pop"));
    Value v = list->items[i];
    list->items.erase(list->items.begin() + i);
    return v;
  });
  if (name == "index" || name == "count") return Method(name, [list, name](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 1, 1, name));
    RETURN_IF_ERROR(CheckNesting(a.args[0], "comparing"));  // PyEquals recurses no deeper than it
    int64_t count = 0;
    for (size_t i = 0; i < list->items.size(); ++i) {
      if (PyEquals(list->items[i], a.args[0])) {
        if (name == "index") return Value::Int(static_cast<int64_t>(i));
        ++count;
      }
    }
    if (name == "index") return PyError("ValueError", PyRepr(a.args[0]) + " is not in list");
    return Value::Int(count);
  });
  return PyError("AttributeError", "'list' object has no attribute '" + name + "'");
}

StatusOr<Value> DictMethod(const Value& self, const std::string& name) {
  auto dict = self.as_dict();
  if (name == "keys" || name == "values" || name == "items") return Method(name, [dict, name](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 0, 0, name));
    std::vector<Value> out;
    for (const auto& [k, v] : dict->items) out.push_back(name == "keys" ? k : name == "values" ? v : Value::Tuple({k, v}));
    return Value::List(std::move(out));
  });
  if (name == "get" || name == "pop" || name == "setdefault") return Method(name, [dict, name](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 1, 2, name));
    ASSIGN_OR_RETURN(int i, dict->Find(a.args[0]));
    Value dflt = a.args.size() > 1 ? a.args[1] : Value::None();
    if (i < 0) {
      if (name == "pop" && a.args.size() < 2) return PyError("KeyError", PyRepr(a.args[0]));
      if (name == "setdefault") dict->items.emplace_back(a.args[0], dflt);
      return dflt;
    }
    Value v = dict->items[i].second;
    if (name == "pop") dict->items.erase(dict->items.begin() + i);
    return v;
  });
  if (name == "update") return Method(name, [dict](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 1, 1, "update"));
    if (!a.args[0].is(K::kDict)) return PyError("TypeError", "update() takes a dict");
    for (const auto& [k, v] : a.args[0].as_dict()->items) {
      ASSIGN_OR_RETURN(int i, dict->Find(k));
      if (i >= 0) dict->items[i].second = v; else dict->items.emplace_back(k, v);
    }
    return Value::None();
  });
  return PyError("AttributeError", "'dict' object has no attribute '" + name + "'");
}

StatusOr<Value> StrMethod(const Value& self, const std::string& name) {
  std::string s = self.as_str();
  if (name == "join") return Method(name, [s](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 1, 1, "join"));
    ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
    std::vector<std::string> parts;
    for (const Value& v : items) {
      if (!v.is(K::kStr)) return PyError("TypeError", "sequence item: expected str instance, " + v.TypeName() + " found");
      parts.push_back(v.as_str());
    }
    return Value::Str(absl::StrJoin(parts, s));
  });
  if (name == "upper" || name == "lower" || name == "strip") return Method(name, [s, name](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 0, 0, name));
    std::string out = s;
    if (name == "upper") std::transform(out.begin(), out.end(), out.begin(), ::toupper);
    if (name == "lower") std::transform(out.begin(), out.end(), out.begin(), ::tolower);
    if (name == "strip") out = std::string(absl::StripAsciiWhitespace(out));
    return Value::Str(out);
  });
  if (name == "startswith" || name == "endswith") return Method(name, [s, name](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 1, 1, name));
    if (!a.args[0].is(K::kStr)) return PyError("TypeError", name + " arg must be str");
    return Value::Bool(name == "startswith" ? absl::StartsWith(s, a.args[0].as_str()) : absl::EndsWith(s, a.args[0].as_str()));
  });
  if (name == "split") return Method(name, [s](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 0, 1, "split"));
    std::vector<std::string> parts;
    if (a.args.empty()) {
      parts = absl::StrSplit(s, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
    } else {
      parts = absl::StrSplit(s, a.args[0].as_str());
    }
    std::vector<Value> out;
    for (auto& p : parts) out.push_back(Value::Str(p));
    return Value::List(std::move(out));
  });
  if (name == "replace") return Method(name, [s](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Arity(a, 2, 2, "replace"));
    return Value::Str(absl::StrReplaceAll(s, {{a.args[0].as_str(), a.args[1].as_str()}}));
  });
  if (name == "format") return Method(name, [s](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    // "{}" and "{0}"-style fields with positional arguments.
    std::string out;
    size_t next = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '{' && i + 1 < s.size() && s[i + 1] == '{') { out += '{'; ++i; continue; }
      if (s[i] == '}' && i + 1 < s.size() && s[i + 1] == '}') { out += '}'; ++i; continue; }
      if (s[i] != '{') { out += s[i]; continue; }
      size_t close = s.find('}', i);
      if (close == std::string::npos) return PyError("ValueError", "Single '{' encountered in format string");
      std::string field = s.substr(i + 1, close - i - 1);
      size_t index = next++;
      if (!field.empty()) {
        if (!absl::SimpleAtoi(field, &index)) return PyError("NotImplementedError", "str.format fields other than {} and {N} are not supported by graphd");
      }
      if (index >= a.args.size()) return PyError("IndexError", "Replacement index " + std::to_string(index) + " out of range for positional args tuple");
      out += PyStr(a.args[index]);
      i = close;
    }
    return Value::Str(out);
  });
  return PyError("AttributeError", "'str' object has no attribute '" + name + "'");
}

}  // namespace

StatusOr<Value> Interpreter::GetAttr(const Value& v, const std::string& name) {
  switch (v.kind()) {
    case K::kList: return ListMethod(*this, v, name);
    case K::kDict: return DictMethod(v, name);
    case K::kStr: return StrMethod(v, name);
    case K::kTensor:
      if (hooks_ != nullptr) return hooks_->GetAttr(*this, v, name);
      break;
    case K::kObject:
      if (v.as_object()) return v.as_object()->GetAttr(*this, name);
      break;
    default: break;
  }
  return PyError("AttributeError", "'" + v.TypeName() + "' object has no attribute '" + name + "'");
}

StatusOr<Value> Interpreter::Subscript(const Value& v_in, const Value& index) {
  Value v = v_in;
  if (v.is(K::kObject) && v.as_object() && v.as_object()->IsTensorLike()) {
    ASSIGN_OR_RETURN(v, v.as_object()->AsTensor(*this));
  }
  if (v.is(K::kTensor)) {
    if (hooks_ != nullptr) return hooks_->Subscript(*this, v, index);
    return PyError("TypeError", "indexing a tensor needs the tracer");
  }
  if (v.is(K::kDict)) {
    ASSIGN_OR_RETURN(int i, v.as_dict()->Find(index));
    if (i < 0) return PyError("KeyError", PyRepr(index));
    return v.as_dict()->items[i].second;
  }
  std::vector<Value> items;
  const char* what = "list";
  if (v.is(K::kList)) {
    items = v.as_list()->items;
  } else if (v.is(K::kTuple)) {
    items = v.as_tuple();
    what = "tuple";
  } else if (v.is(K::kStr) || v.is(K::kObject)) {
    ASSIGN_OR_RETURN(items, Iterate(v));
    what = v.is(K::kStr) ? "string" : "range";
  } else {
    return PyError("TypeError", "'" + v.TypeName() + "' object is not subscriptable");
  }
  if (auto slice = index.object_as<SliceObj>()) {
    ASSIGN_OR_RETURN(std::vector<int64_t> picks, SliceIndices(*slice, static_cast<int64_t>(items.size())));
    std::vector<Value> out;
    for (int64_t i : picks) out.push_back(items[i]);
    if (v.is(K::kStr)) {
      std::string s;
      for (const Value& c : out) s += c.as_str();
      return Value::Str(s);
    }
    return v.is(K::kTuple) ? Value::Tuple(std::move(out)) : Value::List(std::move(out));
  }
  ASSIGN_OR_RETURN(int64_t i, Index(index, static_cast<int64_t>(items.size()), what));
  return items[i];
}

}  // namespace graphd::compiler::tracer
