// tf.Module: the base class user modules derive from. __init__(name=None) names the
// module (its class name in snake_case by default); `name`, `name_scope`,
// `variables`, `trainable_variables` and `submodules` are read-only properties.
// Variables and submodules are found as TensorFlow's Module._flatten finds them: the
// instance's attributes in sorted order of their names, each taken apart as tf.nest
// does (lists, tuples, dict values by sorted key), this module's leaves first, then
// each submodule's in the order found, each object once.
#include <cctype>
#include <set>

#include "compiler/tracer/errors.h"
#include "compiler/tracer/nest.h"
#include "compiler/tracer/tf_args.h"
#include "compiler/tracer/variables.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// TensorFlow's camel_to_snake: "MyDense" -> "my_dense", "MLP" -> "mlp".
std::string CamelToSnake(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool upper = std::isupper(static_cast<unsigned char>(c));
    const bool next_lower = i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
    const bool prev_lower_or_digit = i > 0 && (std::islower(static_cast<unsigned char>(name[i - 1])) ||
                                               std::isdigit(static_cast<unsigned char>(name[i - 1])));
    if (upper && i > 0 && (next_lower || prev_lower_or_digit)) out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool ValidIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool IsModule(const Value& v, const ClassObj& module_class) {
  auto inst = v.object_as<InstanceObj>();
  return inst != nullptr && inst->cls()->IsSubclassOf(module_class);
}

enum class Want { kVariables, kTrainable, kSubmodules };

struct Flattener {
  const ClassObj& module_class;
  Want want;
  std::vector<Value> out;
  std::set<const void*> seen;

  bool Matches(const Value& v) const {
    if (want == Want::kSubmodules) return IsModule(v, module_class);
    auto var = v.object_as<VariableObj>();
    return var != nullptr && (want == Want::kVariables || var->trainable());
  }

  Status Leaves(const Value& v, std::vector<Value>& leaves, int depth) {
    if (depth > kMaxNestDepth) return PyError("RecursionError", "tf.Module attributes nest too deeply");
    if (v.is(K::kList) || v.is(K::kTuple)) {
      for (const Value& item : v.is(K::kList) ? v.as_list()->items : v.as_tuple()) {
        RETURN_IF_ERROR(Leaves(item, leaves, depth + 1));
      }
      return absl::OkStatus();
    }
    if (v.is(K::kDict)) {
      std::vector<Value> values;
      RETURN_IF_ERROR(FlattenLeaves(v, values));
      leaves.insert(leaves.end(), values.begin(), values.end());
      return absl::OkStatus();
    }
    leaves.push_back(v);
    return absl::OkStatus();
  }

  Status Module(const InstanceObj& m, int depth) {
    if (depth > kMaxNestDepth) return PyError("RecursionError", "tf.Module submodules nest too deeply");
    std::vector<std::shared_ptr<InstanceObj>> submodules;
    for (const auto& [name, value] : m.attrs()) {  // a std::map: sorted by name
      std::vector<Value> leaves;
      RETURN_IF_ERROR(Leaves(value, leaves, 0));
      for (const Value& leaf : leaves) {
        if (Matches(leaf) && seen.insert(leaf.as_object().get()).second) out.push_back(leaf);
        if (IsModule(leaf, module_class)) submodules.push_back(leaf.object_as<InstanceObj>());
      }
    }
    for (const auto& sub : submodules) {
      if (sub.get() == &m) continue;
      RETURN_IF_ERROR(Module(*sub, depth + 1));
    }
    return absl::OkStatus();
  }
};

Value Property(const std::string& name, BuiltinFn getter) {
  return Value::Obj(std::make_shared<PropertyObj>(Fn(name, std::move(getter))));
}

StatusOr<std::shared_ptr<InstanceObj>> Self(const CallArgs& a, const std::string& what) {
  auto self = a.args.empty() ? nullptr : a.args[0].object_as<InstanceObj>();
  if (self == nullptr) return PyError("TypeError", what + " needs a tf.Module instance");
  return self;
}

}  // namespace

Value MakeModuleClass(Value name_scope_fn) {
  auto dict = std::make_shared<Namespace>("Module");
  auto cls = std::make_shared<ClassObj>("Module", dict);
  std::weak_ptr<ClassObj> weak = cls;
  dict->Set("__init__", Value::Obj(std::make_shared<NativeMethodObj>(
                            "__init__", [](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
                              ASSIGN_OR_RETURN(auto self, Self(call, "Module.__init__()"));
                              CallArgs rest = call;
                              rest.args.erase(rest.args.begin());
                              Args a("Module", rest, {"name"});
                              RETURN_IF_ERROR(a.Check());
                              std::string name = CamelToSnake(self->cls()->name());
                              if (a.Has("name")) {
                                ASSIGN_OR_RETURN(name, a.StrOr("name", ""));
                                if (!ValidIdentifier(name)) {
                                  return PyError("ValueError", "'" + name +
                                                                   "' is not a valid module name. Module names must "
                                                                   "be valid Python identifiers (e.g. a valid class "
                                                                   "name).");
                                }
                              }
                              RETURN_IF_ERROR(self->SetAttr(in, "_name", Value::Str(name)));
                              return Value::None();
                            })));
  dict->Set("name", Property("name", [](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
              ASSIGN_OR_RETURN(auto self, Self(call, "Module.name"));
              auto it = self->attrs().find("_name");
              if (it == self->attrs().end()) {
                return PyError("AttributeError", "the Module's __init__ was not called (call super().__init__())");
              }
              return it->second;
            }));
  dict->Set("name_scope", Property("name_scope", [name_scope_fn](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
              ASSIGN_OR_RETURN(Value name, in.GetAttr(call.args[0], "name"));
              return in.Call(name_scope_fn, CallArgs{.args = {name}});
            }));
  auto flatten = [weak](Want want, const std::string& what) {
    return [weak, want, what](Interpreter&, CallArgs& call) -> StatusOr<Value> {
      ASSIGN_OR_RETURN(auto self, Self(call, what));
      auto module_class = weak.lock();
      if (module_class == nullptr) return PyError("RuntimeError", "tf.Module is gone");
      Flattener f{*module_class, want, {}, {}};
      f.seen.insert(self.get());
      RETURN_IF_ERROR(f.Module(*self, 0));
      return Value::Tuple(std::move(f.out));
    };
  };
  dict->Set("variables", Property("variables", flatten(Want::kVariables, "Module.variables")));
  dict->Set("trainable_variables", Property("trainable_variables", flatten(Want::kTrainable, "Module.trainable_variables")));
  dict->Set("submodules", Property("submodules", flatten(Want::kSubmodules, "Module.submodules")));
  return Value::Obj(cls);
}

}  // namespace graphd::compiler::tracer
