#include "compiler/tracer/objects.h"

#include "absl/strings/str_cat.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/interpreter.h"

namespace graphd::compiler::tracer {

const Value* Namespace::Find(const std::string& name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

StatusOr<Value> Namespace::GetAttr(Interpreter&, const std::string& name) {
  if (const Value* v = Find(name)) return *v;
  return PyError("AttributeError", "module '" + name_ + "' has no attribute '" + name + "'");
}

Status Namespace::SetAttr(Interpreter&, const std::string& name, Value value) {
  Set(name, std::move(value));
  return absl::OkStatus();
}

StatusOr<Value> FunctionObj::GetAttr(Interpreter& interp, const std::string& attr) {
  if (attr == "__name__") return Value::Str(name);
  if (attr == "get_concrete_function" && tf_function) {
    Value self = Value::Obj(shared_from_this());
    return Value::Obj(std::make_shared<BuiltinObj>(
        "get_concrete_function", [self](Interpreter& in, CallArgs& args) -> StatusOr<Value> {
          if (in.tensor_hooks() != nullptr) {
            auto handled = in.tensor_hooks()->GetConcreteFunction(in, self, args);
            if (handled) return *std::move(handled);
          }
          return PyError("TypeError", "get_concrete_function() is available in module-level code, not while tracing");
        }));
  }
  return Object::GetAttr(interp, attr);
}

StatusOr<Value> FunctionObj::Call(Interpreter& interp, CallArgs& call) {
  if (tf_function && interp.tensor_hooks() != nullptr) {
    auto handled = interp.tensor_hooks()->CallFunction(interp, Value::Obj(shared_from_this()), call);
    if (handled) return *std::move(handled);
  }
  auto scope = std::make_shared<Scope>();
  scope->parent = closure;
  scope->info = info;
  auto bind = [&](const std::string& param, Value v) {
    auto cell = std::make_shared<Cell>();
    cell->value = std::move(v);
    cell->bound = true;
    scope->cells[param] = std::move(cell);
  };
  const auto& params = params_list();
  size_t n = params.size();
  if (call.args.size() > n && !this->params->vararg) {
    return PyError("TypeError", absl::StrCat(name, "() takes ", n, " positional argument", n == 1 ? "" : "s", " but ",
                                             call.args.size(), " were given"));
  }
  std::vector<bool> given(n, false);
  for (size_t i = 0; i < std::min(n, call.args.size()); ++i) {
    bind(params[i], call.args[i]);
    given[i] = true;
  }
  if (this->params->vararg) {
    std::vector<Value> rest;
    for (size_t i = n; i < call.args.size(); ++i) rest.push_back(call.args[i]);
    bind(this->params->vararg->name, Value::Tuple(std::move(rest)));
  }
  Value kwargs = Value::NewDict();
  autograph::NameSet kw_given;
  for (auto& [key, value] : call.kwargs) {
    auto it = std::find(params.begin(), params.end(), key);
    if (it != params.end()) {
      size_t i = it - params.begin();
      if (given[i]) return PyError("TypeError", name + "() got multiple values for argument '" + key + "'");
      bind(key, value);
      given[i] = true;
    } else if (kwonly.contains(key)) {
      bind(key, value);
      kw_given.insert(key);
    } else if (this->params->kwarg) {
      kwargs.as_dict()->items.emplace_back(Value::Str(key), value);
    } else {
      return PyError("TypeError", name + "() got an unexpected keyword argument '" + key + "'");
    }
  }
  // Defaults fill the last parameters.
  size_t first_default = n - defaults.size();
  for (size_t i = 0; i < n; ++i) {
    if (given[i]) continue;
    if (i >= first_default) {
      bind(params[i], defaults[i - first_default]);
    } else {
      return PyError("TypeError", name + "() missing required positional argument: '" + params[i] + "'");
    }
  }
  for (const std::string& k : kwonly) {
    if (kw_given.contains(k)) continue;
    auto it = std::find_if(kw_defaults.begin(), kw_defaults.end(), [&](const auto& p) { return p.first == k; });
    if (it == kw_defaults.end()) return PyError("TypeError", name + "() missing required keyword-only argument: '" + k + "'");
    bind(k, it->second);
  }
  if (this->params->kwarg) bind(this->params->kwarg->name, kwargs);
  // A method: super() inside it needs its class and self.
  std::shared_ptr<ClassObj> cls = owner.lock();
  const bool method = cls != nullptr && !call.args.empty();
  if (method) interp.method_frames().push_back({cls, call.args[0]});
  auto result = interp.RunBody(*this, std::move(scope));
  if (method) interp.method_frames().pop_back();
  if (!result.ok() && lambda_body == nullptr && def != nullptr) {
    // One traceback frame per user function the error passed through: the call site.
    return errors::WithLocation(result.status(), call.site);
  }
  return result;
}

const std::vector<std::string>& FunctionObj::params_list() {
  if (param_names_.size() != params->args.size()) {
    param_names_.clear();
    for (const auto& a : params->args) param_names_.push_back(a.name);
  }
  return param_names_;
}

StatusOr<Value> BoundMethod::Call(Interpreter& interp, CallArgs& args) {
  args.args.insert(args.args.begin(), self_);
  return interp.Call(fn_, std::move(args));
}

StatusOr<Value> ClassObj::Call(Interpreter& interp, CallArgs& args) {
  auto instance = std::make_shared<InstanceObj>(std::static_pointer_cast<ClassObj>(shared_from_this()));
  if (ContainerRegistry* r = CurrentContainerRegistry()) r->Add(instance);
  auto self = Value::Obj(std::move(instance));
  if (const Value* init = Lookup("__init__")) {
    CallArgs with_self = args;
    with_self.args.insert(with_self.args.begin(), self);
    RETURN_IF_ERROR(interp.Call(*init, std::move(with_self)).status());
  } else if (!args.args.empty() || !args.kwargs.empty()) {
    return PyError("TypeError", name_ + "() takes no arguments");
  }
  return self;
}

const Value* ClassObj::Lookup(const std::string& name) const {
  if (const Value* v = dict_->Find(name)) return v;
  return LookupInBases(name);
}

const Value* ClassObj::LookupInBases(const std::string& name) const {
  for (const auto& base : bases_) {
    if (const Value* v = base->Lookup(name)) return v;
  }
  return nullptr;
}

bool ClassObj::IsSubclassOf(const ClassObj& other) const {
  if (this == &other) return true;
  for (const auto& base : bases_) {
    if (base->IsSubclassOf(other)) return true;
  }
  return false;
}

StatusOr<Value> ClassObj::GetAttr(Interpreter&, const std::string& name) {
  if (name == "__name__") return Value::Str(name_);
  if (const Value* v = Lookup(name)) return *v;
  return PyError("AttributeError", "type object '" + name_ + "' has no attribute '" + name + "'");
}

StatusOr<std::optional<Value>> ClassAttribute(Interpreter& interp, const ClassObj& cls, const Value& self,
                                              const std::string& name, bool bases_only) {
  const Value* v = bases_only ? cls.LookupInBases(name) : cls.Lookup(name);
  if (v == nullptr) return std::optional<Value>();
  if (v->object_as<FunctionObj>() || v->object_as<NativeMethodObj>()) {
    return std::optional<Value>(Value::Obj(std::make_shared<BoundMethod>(self, *v)));
  }
  if (auto prop = v->object_as<PropertyObj>()) {
    ASSIGN_OR_RETURN(Value got, interp.Call(prop->getter, CallArgs{.args = {self}}));
    return std::optional<Value>(std::move(got));
  }
  return std::optional<Value>(*v);
}

StatusOr<Value> SuperObj::GetAttr(Interpreter& interp, const std::string& name) {
  ASSIGN_OR_RETURN(std::optional<Value> v, ClassAttribute(interp, *cls_, self_, name, /*bases_only=*/true));
  if (v.has_value()) return *std::move(v);
  return PyError("AttributeError", "'super' object has no attribute '" + name + "'");
}

Status ClassObj::SetAttr(Interpreter&, const std::string& name, Value value) {
  dict_->Set(name, std::move(value));
  return absl::OkStatus();
}

InstanceObj::~InstanceObj() {
  std::vector<Value> values;
  values.reserve(attrs_.size());
  for (auto& [name, value] : attrs_) values.push_back(std::move(value));
  attrs_.clear();
  ReleaseNested(values);
}

StatusOr<Value> InstanceObj::GetAttr(Interpreter& interp, const std::string& name) {
  if (auto it = attrs_.find(name); it != attrs_.end()) return it->second;
  ASSIGN_OR_RETURN(std::optional<Value> v, ClassAttribute(interp, *cls_, Value::Obj(shared_from_this()), name));
  if (v.has_value()) return *std::move(v);
  return PyError("AttributeError", "'" + cls_->name() + "' object has no attribute '" + name + "'");
}

StatusOr<Value> InstanceObj::Call(Interpreter& interp, CallArgs& args) {
  ASSIGN_OR_RETURN(std::optional<Value> call, ClassAttribute(interp, *cls_, Value::Obj(shared_from_this()), "__call__"));
  if (!call.has_value()) return PyError("TypeError", "'" + cls_->name() + "' object is not callable");
  return interp.Call(*call, std::move(args));
}

StatusOr<Value> InstanceObj::Enter(Interpreter& interp) {
  ASSIGN_OR_RETURN(Value enter, GetAttr(interp, "__enter__"));
  return interp.Call(enter, CallArgs{});
}

Status InstanceObj::Exit(Interpreter& interp, bool) {
  ASSIGN_OR_RETURN(Value exit, GetAttr(interp, "__exit__"));
  return interp.Call(exit, CallArgs{.args = {Value::None(), Value::None(), Value::None()}}).status();
}

Status InstanceObj::SetAttr(Interpreter&, const std::string& name, Value value) {
  attrs_[name] = std::move(value);
  return absl::OkStatus();
}

std::string RangeObj::Repr() const {
  return step == 1 ? absl::StrCat("range(", start, ", ", stop, ")") : absl::StrCat("range(", start, ", ", stop, ", ", step, ")");
}

int64_t RangeObj::size() const {
  if (step > 0 && start < stop) return (stop - start + step - 1) / step;
  if (step < 0 && start > stop) return (start - stop - step - 1) / (-step);
  return 0;
}

}  // namespace graphd::compiler::tracer
