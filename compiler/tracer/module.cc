#include "compiler/tracer/module.h"

#include "compiler/autograph/converter.h"
#include "compiler/frontend/parser.h"
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/tracer.h"

namespace graphd::compiler::tracer {

StatusOr<std::unique_ptr<ModuleRuntime>> ModuleRuntime::Load(const std::string& source, const std::string& filename,
                                                             const CancellationToken* token, EagerRunner* eager) {
  auto m = std::unique_ptr<ModuleRuntime>(new ModuleRuntime());
  ASSIGN_OR_RETURN(ast::Module parsed, ParseModule(std::make_shared<SourceFile>(filename, source)));
  m->module_ = std::make_shared<ast::Module>(autograph::ConvertModule(parsed));
  m->globals_ = std::make_shared<Namespace>("__main__");
  m->globals_->Set("__name__", Value::Str("__main__"));
  m->globals_->Set("ag__", Value::Obj(MakeStagingRuntime()));
  m->interp_ = std::make_unique<Interpreter>(m->globals_, MakeTracingBuiltins(), InterpreterLimits{}, token);
  Value tf = Value::Obj(MakeTfModule());
  m->interp_->RegisterModule("tensorflow", tf);
  m->interp_->RegisterModule("tensorflow.compat.v2", tf);
  m->interp_->RegisterModule("numpy", Value::Obj(MakeNumpyModule()));
  m->interp_->RegisterModule("tensorflow.compat", Value::Obj([&] {
    auto compat = std::make_shared<Namespace>("tensorflow.compat");
    compat->Set("v2", tf);
    return compat;
  }()));
  // Module-level code runs eagerly: TensorFlow ops execute at once.
  GraphScope module_scope(nullptr, "module");
  Tracer eager_tracer(&module_scope, m->interp_.get());
  eager_tracer.set_eager(eager);
  if (eager != nullptr) m->interp_->set_tensor_hooks(&eager_tracer);
  Status status = m->interp_->ExecModule(*m->module_);
  m->interp_->set_tensor_hooks(nullptr);
  RETURN_IF_ERROR(status);
  m->load_stdout_ = m->interp_->out();
  m->interp_->out().clear();
  m->interp_->set_cancellation(nullptr);
  return m;
}

std::vector<std::string> ModuleRuntime::FunctionNames() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : globals_->attrs()) {
    if (value.object_as<FunctionObj>() && name != "ag__") names.push_back(name);
  }
  return names;
}

StatusOr<Value> ModuleRuntime::Function(const std::string& name) const {
  const Value* v = globals_->Find(name);
  if (v == nullptr || !v->object_as<FunctionObj>()) {
    return errors::NotFound("the module has no function '" + name + "'");
  }
  return *v;
}

StatusOr<ConcreteFunction> ModuleRuntime::Trace(const std::string& name, const TraceArgs& args,
                                                const CancellationToken* token, bool allow_variable_creation) {
  ASSIGN_OR_RETURN(Value fn, Function(name));
  interp_->set_cancellation(token);
  interp_->ResetSteps();
  auto cf = TraceFunction(*interp_, fn, args, allow_variable_creation, passes_);
  interp_->set_cancellation(nullptr);
  return cf;
}

StatusOr<std::vector<std::string>> ModuleRuntime::ParamNames(const std::string& name) const {
  ASSIGN_OR_RETURN(Value fn, Function(name));
  std::vector<std::string> out;
  for (const auto& a : fn.object_as<FunctionObj>()->params->args) out.push_back(a.name);
  return out;
}

StatusOr<std::optional<std::vector<Value>>> ModuleRuntime::InputSignature(const std::string& name) const {
  ASSIGN_OR_RETURN(Value fn, Function(name));
  return fn.object_as<FunctionObj>()->input_signature;
}

StatusOr<std::string> ModuleRuntime::ToCode(const std::string& name) const {
  ASSIGN_OR_RETURN(Value fn, Function(name));
  auto obj = fn.object_as<FunctionObj>();
  if (obj->def == nullptr) return PyError("TypeError", "'" + name + "' is a lambda");
  return autograph::ToCode(*obj->def->As<ast::FunctionDef>());
}

}  // namespace graphd::compiler::tracer
