#include "compiler/tracer/namedtuple.h"

#include <cctype>

#include "absl/strings/str_split.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/interpreter.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

Value Fn(const std::string& name, BuiltinFn fn) { return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn))); }

// namedtuple(typename, field_names, *, defaults=None, rename=False, module=None)
StatusOr<Value> NamedTuple(Interpreter& in, CallArgs& a) {
  if (a.args.size() != 2) return PyError("TypeError", "namedtuple() takes a type name and the field names");
  if (!a.args[0].is(K::kStr) || !IsIdentifier(a.args[0].as_str())) {
    return PyError("ValueError", "Type names and field names must be valid identifiers: " + PyRepr(a.args[0]));
  }
  std::vector<std::string> fields;
  if (a.args[1].is(K::kStr)) {
    for (absl::string_view f : absl::StrSplit(a.args[1].as_str(), absl::ByAnyChar(", \t\n"), absl::SkipEmpty())) {
      fields.emplace_back(f);
    }
  } else {
    ASSIGN_OR_RETURN(std::vector<Value> names, in.Iterate(a.args[1]));
    for (const Value& n : names) {
      if (!n.is(K::kStr)) return PyError("TypeError", "Type names and field names must be strings");
      fields.push_back(n.as_str());
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!IsIdentifier(fields[i]) || fields[i][0] == '_') {
      return PyError("ValueError", "Field names must be valid identifiers not starting with '_': '" + fields[i] + "'");
    }
    for (size_t j = 0; j < i; ++j) {
      if (fields[j] == fields[i]) return PyError("ValueError", "Encountered duplicate field name: '" + fields[i] + "'");
    }
  }
  std::vector<Value> defaults;
  for (const auto& [key, value] : a.kwargs) {
    if (key == "defaults") {
      if (value.is_none()) continue;
      ASSIGN_OR_RETURN(defaults, in.Iterate(value));
      if (defaults.size() > fields.size()) return PyError("TypeError", "Got more default values than field names");
    } else if (key != "rename" && key != "module") {
      return PyError("TypeError", "namedtuple() got an unexpected keyword argument '" + key + "'");
    }
  }
  return Value::Obj(std::make_shared<NamedTupleClassObj>(a.args[0].as_str(), std::move(fields), std::move(defaults),
                                                         nullptr));
}

}  // namespace

StatusOr<Value> NamedTupleClassObj::Call(Interpreter&, CallArgs& a) {
  const size_t n = fields_.size();
  if (a.args.size() > n) {
    return PyError("TypeError", name_ + "() takes " + std::to_string(n) + " positional arguments but " +
                                    std::to_string(a.args.size()) + " were given");
  }
  std::vector<std::optional<Value>> items(n);
  for (size_t i = 0; i < a.args.size(); ++i) items[i] = a.args[i];
  for (const auto& [key, value] : a.kwargs) {
    size_t i = 0;
    while (i < n && fields_[i] != key) ++i;
    if (i == n) return PyError("TypeError", name_ + "() got an unexpected keyword argument '" + key + "'");
    if (items[i]) return PyError("TypeError", name_ + "() got multiple values for argument '" + key + "'");
    items[i] = value;
  }
  std::vector<Value> out;
  for (size_t i = 0; i < n; ++i) {
    const size_t first_default = n - defaults_.size();
    if (!items[i] && i >= first_default) items[i] = defaults_[i - first_default];
    if (!items[i]) return PyError("TypeError", name_ + "() missing required argument: '" + fields_[i] + "'");
    out.push_back(*items[i]);
  }
  auto self = std::static_pointer_cast<NamedTupleClassObj>(shared_from_this());
  return Value::Obj(std::make_shared<NamedTupleObj>(self, std::move(out)));
}

StatusOr<Value> NamedTupleClassObj::GetAttr(Interpreter& interp, const std::string& name) {
  if (name == "__name__") return Value::Str(name_);
  if (name == "_fields") {
    std::vector<Value> names;
    for (const auto& f : fields_) names.push_back(Value::Str(f));
    return Value::Tuple(std::move(names));
  }
  if (name == "_make") {
    auto self = std::static_pointer_cast<NamedTupleClassObj>(shared_from_this());
    return Fn("_make", [self](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
      if (a.args.size() != 1) return PyError("TypeError", "_make() takes one iterable");
      ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
      CallArgs call{.args = std::move(items), .site = a.site};
      return self->Call(in, call);
    });
  }
  if (const Value* m = Method(name)) return *m;
  return Object::GetAttr(interp, name);
}

std::shared_ptr<NamedTupleClassObj> NamedTupleClassObj::Derive(std::string name, std::shared_ptr<Namespace> dict) const {
  return std::make_shared<NamedTupleClassObj>(std::move(name), fields_, defaults_, std::move(dict));
}

std::string NamedTupleObj::Repr() const {
  std::string out = cls_->name() + "(";
  for (size_t i = 0; i < items_.size(); ++i) out += (i ? ", " : "") + cls_->fields()[i] + "=" + PyRepr(items_[i]);
  return out + ")";
}

StatusOr<Value> NamedTupleObj::GetAttr(Interpreter& interp, const std::string& name) {
  const auto& fields = cls_->fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i] == name) return items_[i];
  }
  auto self = std::static_pointer_cast<NamedTupleObj>(shared_from_this());
  if (name == "_asdict") {
    return Fn("_asdict", [self](Interpreter&, CallArgs&) -> StatusOr<Value> {
      Value d = Value::NewDict();
      for (size_t i = 0; i < self->items_.size(); ++i) {
        d.as_dict()->items.emplace_back(Value::Str(self->cls_->fields()[i]), self->items_[i]);
      }
      return d;
    });
  }
  if (name == "_replace") {
    return Fn("_replace", [self](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
      CallArgs call{.args = {}, .site = a.site};
      call.kwargs = a.kwargs;
      for (size_t i = 0; i < self->items_.size(); ++i) {
        bool given = false;
        for (const auto& [key, value] : a.kwargs) given |= key == self->cls_->fields()[i];
        if (!given) call.kwargs.emplace_back(self->cls_->fields()[i], self->items_[i]);
      }
      return self->cls_->Call(in, call);
    });
  }
  if (const Value* m = cls_->Method(name)) {
    if (m->object_as<FunctionObj>()) return Value::Obj(std::make_shared<BoundMethod>(Value::Obj(self), *m));
    return *m;
  }
  return cls_->GetAttr(interp, name);
}

std::shared_ptr<Namespace> MakeCollectionsModule() {
  auto m = std::make_shared<Namespace>("collections");
  m->Set("namedtuple", Fn("namedtuple", NamedTuple));
  return m;
}

}  // namespace graphd::compiler::tracer
