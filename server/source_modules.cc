#include "server/source_modules.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_value.h"
#include "compiler/tracer/tf_objects.h"
#include "executor/runtime/executor.h"

namespace graphd::server {
namespace {

using compiler::tracer::OutputSlot;
using compiler::tracer::TensorObj;
using K = Value::Kind;

int64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

// Splits call arguments into the trace's view (tensors as TensorSpecs), the feeds,
// and the signature text that keys the cache.
struct Prepared {
  compiler::tracer::TraceArgs trace;
  std::vector<Tensor> feeds;
  std::string signature;
};

Value Prepare(const Value& v, Prepared& p, std::vector<std::string>& sig) {
  if (v.is(K::kTensor) && !v.as_tensor()->symbolic()) {
    const Tensor& t = *v.as_tensor()->value;
    p.feeds.push_back(t);
    sig.push_back(absl::StrCat(DTypeName(t.dtype()), t.shape().ToString()));
    return Value::Obj(std::make_shared<compiler::tracer::TensorSpecObj>(PartialShape(t.shape()), t.dtype(), ""));
  }
  sig.push_back(v.TypeName() + ":" + compiler::tracer::PyRepr(v));
  return v;
}

Value Fill(const Value& v, const std::vector<Tensor>& results) {
  if (auto slot = v.object_as<OutputSlot>()) {
    auto t = std::make_shared<TensorObj>();
    const Tensor& r = results[slot->index];
    t->dtype = r.dtype();
    t->shape = PartialShape(r.shape());
    t->value = r;
    return Value::Tensor(std::move(t));
  }
  if (v.is(K::kTuple) || v.is(K::kList)) {
    std::vector<Value> items;
    for (const Value& e : v.is(K::kTuple) ? v.as_tuple() : v.as_list()->items) items.push_back(Fill(e, results));
    return v.is(K::kTuple) ? Value::Tuple(std::move(items)) : Value::List(std::move(items));
  }
  if (v.is(K::kDict)) {
    Value out = Value::NewDict();
    for (const auto& [k, e] : v.as_dict()->items) out.as_dict()->items.emplace_back(k, Fill(e, results));
    return out;
  }
  return v;
}

}  // namespace

StatusOr<SourceModules::Loaded> SourceModules::Load(const std::string& source, const std::string& filename,
                                                    const CancellationToken& token) {
  ASSIGN_OR_RETURN(auto runtime, compiler::tracer::ModuleRuntime::Load(source, filename, &token));
  Loaded loaded{.functions = runtime->FunctionNames(), .stdout_text = runtime->load_stdout()};
  absl::MutexLock lock(&mu_);
  loaded.module_id = next_id_++;
  modules_[loaded.module_id].runtime = std::move(runtime);
  return loaded;
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
                                         const CancellationToken& token) {
  Prepared p;
  std::vector<std::string> sig;
  for (const Value& a : args) p.trace.args.push_back(Prepare(a, p, sig));
  for (const auto& [k, v] : kwargs) {
    std::vector<std::string> one;
    p.trace.kwargs.emplace_back(k, Prepare(v, p, one));
    sig.push_back(k + "=" + one[0]);
  }
  p.signature = "(" + absl::StrJoin(sig, ", ") + ")";

  CallResult result;
  std::shared_ptr<const Compiled> compiled;
  {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(Module * module, Find(module_id));
    FunctionState& state = module->functions[function];
    auto it = state.by_signature.find(p.signature);
    if (it != state.by_signature.end()) {
      compiled = it->second;
    } else {
      auto start = std::chrono::steady_clock::now();
      ASSIGN_OR_RETURN(compiler::tracer::ConcreteFunction cf, module->runtime->Trace(function, p.trace, &token));
      ++state.tracing_count;
      auto fresh = std::make_shared<Compiled>();
      ASSIGN_OR_RETURN(fresh->plan, executor::Plan::Build(SpecForFunction(*cf.function), device_));
      result.stdout_text = cf.trace_stdout;
      fresh->function = std::move(cf);
      state.by_signature.emplace(p.signature, fresh);
      compiled = fresh;
      result.compile_us = MicrosSince(start);
    }
    result.tracing_count = state.tracing_count;
  }
  auto start = std::chrono::steady_clock::now();
  OutputSink printed;
  executor::RunContext ctx{.variables = &variables, .cancellation = &token, .output = &printed};
  auto outputs_or = executor::Execute(*compiled->plan, std::move(p.feeds), ctx);
  result.execute_us = MicrosSince(start);
  result.stdout_text += printed.TakeStdout();
  result.stderr_text = printed.TakeStderr();
  if (!outputs_or.ok()) return outputs_or.status();
  std::vector<Tensor>& outputs = *outputs_or;
  result.output = Fill(compiled->function.output_template, outputs);
  return result;
}

StatusOr<std::string> SourceModules::ToCode(int64_t module_id, const std::string& function) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Module * module, Find(module_id));
  return module->runtime->ToCode(function);
}

StatusOr<SourceModules::Description> SourceModules::Describe(int64_t module_id, const std::string& function) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Module * module, Find(module_id));
  Description d;
  auto it = module->functions.find(function);
  if (it != module->functions.end()) {
    d.tracing_count = it->second.tracing_count;
    for (const auto& [sig, unused] : it->second.by_signature) d.signatures.push_back(sig);
  }
  return d;
}

}  // namespace graphd::server
