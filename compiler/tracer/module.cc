#include "compiler/tracer/module.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/autograph/converter.h"
#include "compiler/frontend/parser.h"
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/namedtuple.h"
#include "compiler/tracer/prelude.h"
#include "compiler/tracer/tracer.h"

namespace graphd::compiler::tracer {

StatusOr<std::unique_ptr<ModuleRuntime>> ModuleRuntime::Parse(const std::string& source,
                                                              const std::string& filename) {
  auto m = std::unique_ptr<ModuleRuntime>(new ModuleRuntime());
  ASSIGN_OR_RETURN(ast::Module parsed, ParseModule(std::make_shared<SourceFile>(filename, source)));
  m->module_ = std::make_shared<ast::Module>(autograph::ConvertModule(parsed));
  // The prelude is parsed and converted once per process and shared (ASTs are immutable).
  static const auto* prelude = [] {
    auto p = ParseModule(std::make_shared<SourceFile>("<graphd prelude>", PreludeSource()));
    return new StatusOr<std::shared_ptr<const ast::Module>>(
        p.ok() ? StatusOr<std::shared_ptr<const ast::Module>>(std::make_shared<ast::Module>(autograph::ConvertModule(*p)))
               : StatusOr<std::shared_ptr<const ast::Module>>(p.status()));
  }();
  if (!prelude->ok()) return errors::Internal(absl::StrCat("the prelude does not parse: ", prelude->status().message()));
  m->prelude_ = **prelude;
  m->globals_ = std::make_shared<Namespace>("__main__");
  m->globals_->Set("__name__", Value::Str("__main__"));
  m->globals_->Set("ag__", Value::Obj(MakeStagingRuntime()));
  m->interp_ = std::make_unique<Interpreter>(m->globals_, MakeTracingBuiltins(), InterpreterLimits{});
  Value tf = Value::Obj(MakeTfModule());
  m->interp_->RegisterModule("tensorflow", tf);
  m->interp_->RegisterModule("tensorflow.compat.v2", tf);
  m->interp_->RegisterModule("numpy", Value::Obj(MakeNumpyModule()));
  m->interp_->RegisterModule("collections", Value::Obj(MakeCollectionsModule()));
  m->interp_->RegisterModule("tensorflow.compat", Value::Obj([&] {
    auto compat = std::make_shared<Namespace>("tensorflow.compat");
    compat->Set("v2", tf);
    return compat;
  }()));
  return m;
}

Status ModuleRuntime::Run(const CancellationToken* token, EagerRunner* eager) {
  // Module-level code runs eagerly: TensorFlow ops execute at once.
  GraphScope module_scope(nullptr, "module");
  Tracer eager_tracer(&module_scope, interp_.get());
  eager_tracer.set_eager(eager);
  interp_->set_cancellation(token);
  if (eager != nullptr) interp_->set_tensor_hooks(&eager_tracer);
  auto prelude_globals = std::make_shared<Namespace>("<graphd prelude>");
  prelude_globals->Set("__name__", Value::Str("graphd_prelude"));
  prelude_globals->Set("ag__", *globals_->Find("ag__"));
  Status status = interp_->ExecModule(*prelude_, prelude_globals);
  if (status.ok()) status = interp_->ExecModule(*module_);
  interp_->set_tensor_hooks(nullptr);
  interp_->set_cancellation(nullptr);
  load_stdout_ = interp_->out();
  interp_->out().clear();
  return status;
}

StatusOr<std::unique_ptr<ModuleRuntime>> ModuleRuntime::Load(const std::string& source, const std::string& filename,
                                                             const CancellationToken* token, EagerRunner* eager) {
  ASSIGN_OR_RETURN(auto m, Parse(source, filename));
  RETURN_IF_ERROR(m->Run(token, eager));
  return m;
}

std::vector<std::string> ModuleRuntime::FunctionNames() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : globals_->attrs()) {
    if (value.object_as<FunctionObj>() && name != "ag__") names.push_back(name);
  }
  return names;
}

std::vector<std::string> ModuleRuntime::ObjectNames() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : globals_->attrs()) {
    if (value.object_as<InstanceObj>()) names.push_back(name);
  }
  return names;
}

StatusOr<ModuleRuntime::Callable> ModuleRuntime::ResolveCallable(const std::string& path) {
  std::vector<std::string> parts = absl::StrSplit(path, '.');
  const Value* top = globals_->Find(parts[0]);
  auto not_found = [&](const std::string& why) {
    return errors::NotFound("the module has no function '" + path + "'" + why);
  };
  if (top == nullptr || parts.size() > 16) return not_found("");
  Value v = *top;
  for (size_t i = 1; i < parts.size(); ++i) {
    auto inst = v.object_as<InstanceObj>();
    if (inst != nullptr && i + 1 == parts.size()) {
      // The last part on an object: a method, bound to it.
      const Value* method = inst->cls()->Lookup(parts[i]);
      if (method != nullptr && method->object_as<FunctionObj>()) return Callable{*method, v};
    }
    if (parts[i].empty() || parts[i][0] == '_') return not_found(" (private attributes are not callable)");
    auto next = interp_->GetAttr(v, parts[i]);
    if (!next.ok()) return not_found(": " + std::string(next.status().message()));
    v = *std::move(next);
  }
  if (v.object_as<FunctionObj>()) return Callable{v, std::nullopt};
  if (auto inst = v.object_as<InstanceObj>()) {
    const Value* call = inst->cls()->Lookup("__call__");
    if (call != nullptr && call->object_as<FunctionObj>()) return Callable{*call, v};
    return not_found(" (the object's class defines no __call__)");
  }
  return not_found(" (it is a " + v.TypeName() + ", not a function, a method or a callable object)");
}

StatusOr<Value> ModuleRuntime::FunctionValue(const std::string& name) const {
  const Value* v = globals_->Find(name);
  if (v == nullptr || !v->object_as<FunctionObj>()) {
    return errors::NotFound("the module has no function '" + name + "'");
  }
  return *v;
}

FunctionInfo ModuleRuntime::Info(const Value& fn) {
  const auto* obj = static_cast<const FunctionObj*>(fn.as_object().get());
  return FunctionInfo{.name = obj->name,
                      .input_signature = obj->input_signature ? &*obj->input_signature : nullptr,
                      .reduce_retracing = obj->reduce_retracing,
                      .key = obj,
                      .serial = obj->serial,
                      .method = !obj->owner.expired()};
}

void ModuleRuntime::set_variable_prefix(std::string prefix) { interp_->set_variable_prefix(std::move(prefix)); }

std::vector<std::string> ModuleRuntime::ParamNames(const Value& fn) {
  std::vector<std::string> names;
  for (const auto& a : fn.object_as<FunctionObj>()->params->args) names.push_back(a.name);
  return names;
}

StatusOr<ConcreteFunction> ModuleRuntime::Trace(const Value& fn, const TraceArgs& args,
                                                const CancellationToken* token, bool allow_variable_creation) {
  // A trace may run inside the top-level code (a @tf.function called there): the
  // interpreter's token and step count are restored after it.
  const CancellationToken* saved = interp_->cancellation();
  interp_->set_cancellation(token);
  auto cf = TraceFunction(*interp_, fn, args, allow_variable_creation, passes_);
  interp_->set_cancellation(saved);
  return cf;
}

StatusOr<ConcreteFunction> ModuleRuntime::Trace(const std::string& name, const TraceArgs& args,
                                                const CancellationToken* token, bool allow_variable_creation) {
  ASSIGN_OR_RETURN(Value fn, FunctionValue(name));
  interp_->ResetSteps();
  return Trace(fn, args, token, allow_variable_creation);
}

StatusOr<std::string> ModuleRuntime::ToCode(const std::string& name) const {
  ASSIGN_OR_RETURN(Value fn, FunctionValue(name));
  auto obj = fn.object_as<FunctionObj>();
  if (obj->def == nullptr) return PyError("TypeError", "'" + name + "' is a lambda");
  return autograph::ToCode(*obj->def->As<ast::FunctionDef>());
}

}  // namespace graphd::compiler::tracer
