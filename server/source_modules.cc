#include "server/source_modules.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "compiler/import/graphdef_fingerprint.h"
#include "compiler/tracer/concrete_objects.h"
#include "compiler/tracer/tf_objects.h"
#include "executor/runtime/executor.h"

namespace graphd::server {

StatusOr<SourceModules::Loaded> SourceModules::Load(const std::string& source, const std::string& filename,
                                                    VariableStore& variables, const CancellationToken& token) {
  // Module-level TensorFlow ops run at once on this session's device and variables;
  // @tf.function calls there go through the module's function cache like client calls.
  class Runner : public compiler::tracer::EagerRunner {
   public:
    Runner(SourceModules& owner, Module& module, VariableStore& variables, const CancellationToken& token)
        : owner_(owner), module_(module), variables_(variables), token_(token) {}
    StatusOr<std::vector<Tensor>> Run(const Function& body) override {
      ASSIGN_OR_RETURN(auto plan, executor::Plan::Build(SpecForFunction(body), owner_.compile_.device));
      OutputSink printed;
      auto out = executor::Execute(*plan, {}, {.variables = &variables_, .cancellation = &token_, .output = &printed});
      stdout_text += printed.TakeStdout();
      stderr_text += printed.TakeStderr();
      if (out.ok()) {
        // Eager results (random numbers, say) become Python values later traces may
        // bake in: the module's history includes them, so only modules that computed
        // the same values share traces.
        absl::MutexLock lock(&owner_.mu_);
        Fingerprinter history(module_.history);
        for (const Tensor& t : *out) compiler::AddTensor(history, t);
        module_.history = history.Finish();
      }
      return out;
    }
    std::optional<StatusOr<Value>> CallFunction(compiler::tracer::Interpreter& interp, const Value& fn,
                                                const compiler::tracer::CallArgs& call,
                                                const std::vector<Value>& concrete) override {
      auto result = owner_.Invoke(module_, fn, call.args, call.kwargs, variables_, token_, concrete);
      if (!result.ok()) return result.status();
      interp.out() += result->stdout_text;
      stderr_text += result->stderr_text;
      return result->output;
    }
    std::optional<StatusOr<Value>> GetConcreteFunction(compiler::tracer::Interpreter& interp, const Value& fn,
                                                       const compiler::tracer::CallArgs& call) override {
      // All TensorSpecs: the concrete function for exactly those (as the client's
      // get_concrete_function); otherwise the trace a call with these arguments uses.
      bool specs = call.kwargs.empty();
      for (const Value& a : call.args) specs = specs && a.object_as<compiler::tracer::TensorSpecObj>() != nullptr;
      auto result = specs ? owner_.Invoke(module_, fn, {}, {}, variables_, token_, call.args, /*trace_only=*/true)
                          : owner_.Invoke(module_, fn, call.args, call.kwargs, variables_, token_, {}, true);
      if (!result.ok()) return result.status();
      interp.out() += result->stdout_text;
      std::vector<Value> signature = specs ? call.args : std::vector<Value>{};
      if (!specs && result->trace_signature.kwargs.empty()) {
        signature = result->trace_signature.args;  // usable when every argument was a tensor
        for (const Value& a : signature) {
          if (!a.object_as<compiler::tracer::TensorSpecObj>()) signature.clear();
          if (signature.empty()) break;
        }
      }
      return Value::Obj(std::make_shared<compiler::tracer::ConcreteFunctionObj>(
          fn, result->concrete->function->name, result->concrete->traced_nodes, signature));
    }
    std::string stdout_text, stderr_text;  // printed by eager ops

   private:
    SourceModules& owner_;
    Module& module_;
    VariableStore& variables_;
    const CancellationToken& token_;
  };
  Module module;
  ASSIGN_OR_RETURN(module.runtime, compiler::tracer::ModuleRuntime::Parse(source, filename));
  module.runtime->set_passes(compile_.target.passes);
  // The n-th load of this code in this session: the same module, variable names and
  // (after the same calls) the same Python state in every session, so their traces
  // can be shared.
  const Fingerprint code = Fingerprinter().Add("source").Add(filename).Add(source).Finish();
  int64_t ordinal;
  {
    absl::MutexLock lock(&mu_);
    ordinal = loads_[code]++;
  }
  module.history = compile_.Content(Fingerprinter(code).AddInt(ordinal));
  module.runtime->set_variable_prefix(absl::StrCat(code.ToString().substr(0, 12), ".", ordinal, "/"));
  Runner runner(*this, module, variables, token);
  module.loading = true;
  RETURN_IF_ERROR(module.runtime->Run(&token, &runner));
  module.loading = false;
  Loaded loaded{.functions = module.runtime->FunctionNames(),
                .stdout_text = module.runtime->load_stdout() + runner.stdout_text,
                .stderr_text = runner.stderr_text};
  for (const std::string& name : loaded.functions) {
    ASSIGN_OR_RETURN(module.by_name[name], module.runtime->FunctionValue(name));
  }
  // Top-level objects: their methods and __call__ are callable too ("model.step").
  for (const std::string& name : module.runtime->ObjectNames()) loaded.functions.push_back(name);
  absl::MutexLock lock(&mu_);
  loaded.module_id = next_id_++;
  modules_[loaded.module_id] = std::move(module);
  return loaded;
}

StatusOr<Value> SourceModules::FunctionNamed(Module& module, const std::string& name, std::optional<Value>* self) {
  if (auto it = module.by_name.find(name); it != module.by_name.end()) return it->second;
  absl::MutexLock trace_lock(module.trace_mu.get());
  // A name bound by a trace: the module's state must include the traces it took.
  const CancellationToken unbounded;  // replays are bounded by the interpreter's step limit
  RETURN_IF_ERROR(CatchUp(module, unbounded));
  ASSIGN_OR_RETURN(compiler::tracer::ModuleRuntime::Callable callable, module.runtime->ResolveCallable(name));
  if (callable.self.has_value()) {
    if (self == nullptr) return errors::Internal("a method resolved without its instance");
    *self = std::move(callable.self);
  }
  return callable.function;
}

StatusOr<SourceModules::Module*> SourceModules::Find(int64_t module_id) {
  auto it = modules_.find(module_id);
  if (it == modules_.end()) {
    return errors::NotFound(absl::StrCat("module ", module_id, " is not loaded in this session"));
  }
  return &it->second;
}

StatusOr<CallResult> SourceModules::Call(int64_t module_id, const std::string& function, std::vector<Value> args,
                                         std::vector<std::pair<std::string, Value>> kwargs, VariableStore& variables,
                                         const CancellationToken& token, const std::vector<Value>& concrete,
                                         bool trace_only, executor::RunTrace* run_trace) {
  Module* module;
  {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(module, Find(module_id));
  }
  // Modules are never removed while the session lives, so `module` stays valid.
  std::optional<Value> self;
  ASSIGN_OR_RETURN(Value fn, FunctionNamed(*module, function, &self));
  if (self.has_value()) args.insert(args.begin(), *std::move(self));  // a method: its instance first
  return Invoke(*module, fn, std::move(args), std::move(kwargs), variables, token, concrete, trace_only, run_trace);
}

StatusOr<std::string> SourceModules::ToCode(int64_t module_id, const std::string& function) {
  Module* module;
  {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(module, Find(module_id));
  }
  absl::MutexLock trace_lock(module->trace_mu.get());
  return module->runtime->ToCode(function);
}

StatusOr<SourceModules::Signature> SourceModules::SignatureOf(int64_t module_id, const std::string& function) {
  Module* module;
  {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(module, Find(module_id));
  }
  std::optional<Value> self;
  ASSIGN_OR_RETURN(Value fn, FunctionNamed(*module, function, &self));
  const compiler::tracer::FunctionInfo info = compiler::tracer::ModuleRuntime::Info(fn);
  Signature signature;
  if (info.input_signature != nullptr) signature.input_signature = *info.input_signature;
  signature.params = compiler::tracer::ModuleRuntime::ParamNames(fn);
  if (self.has_value() && !signature.params.empty()) signature.params.erase(signature.params.begin());
  return signature;
}

StatusOr<SourceModules::Description> SourceModules::Describe(int64_t module_id, const std::string& function,
                                                             bool with_graphs) {
  Module* module = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (module_id == 0) {  // the latest module defining `function`
      for (auto it = modules_.rbegin(); it != modules_.rend() && module == nullptr; ++it) {
        if (it->second.by_name.contains(function)) module = &it->second;
      }
      if (module == nullptr) {
        return errors::NotFound(absl::StrCat("no module loaded in this session defines a function '", function, "'"));
      }
    } else {
      ASSIGN_OR_RETURN(module, Find(module_id));
    }
  }
  std::optional<Value> self;
  ASSIGN_OR_RETURN(Value fn, FunctionNamed(*module, function, &self));
  absl::MutexLock lock(&mu_);
  Description d;
  auto it = module->functions.find(compiler::tracer::ModuleRuntime::Info(fn).serial);
  if (it != module->functions.end()) {
    d.tracing_count = it->second.tracing_count;
    it->second.traces.ForEach([&](const UsedSignatures::Item& item) {
      auto compiled = item.function.lock();
      if (compiled == nullptr) return;  // evicted from the cache since
      d.signatures.push_back(compiled->signature);
      d.placements.push_back(PlanOf(*compiled->plan).Placement());
      if (with_graphs) d.functions.push_back(compiled->function);
    });
  }
  return d;
}

}  // namespace graphd::server
