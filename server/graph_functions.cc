#include "server/graph_functions.h"

#include <chrono>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/import/graphdef_fingerprint.h"
#include "compiler/import/graphdef_function.h"
#include "compiler/passes/spec_body.h"
#include "compiler/tracer/tensor_format.h"
#include "executor/runtime/executor.h"

namespace graphd::server {
namespace {

using compiler::onnx_import::OnnxModel;
using compiler::onnx_import::ValueInfo;

// Bound on the graphs one session may hold.
constexpr size_t kMaxGraphs = 256;

int64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

// The key of a build: the input shapes, then `values_key` (which optionals hold a
// value, and the values of the inputs the build is specialised on).
void BuildKey(const std::vector<ValueInfo>& declared, const std::vector<PartialShape>& shapes,
              const std::string& values_key, compiler::SignatureKey& key) {
  for (size_t i = 0; i < shapes.size(); ++i) key.AddTensor(declared[i].dtype, shapes[i]);
  key.AddRaw(values_key);
}

StatusOr<std::string> ValuesKey(const std::vector<ValueInfo>& declared, const std::vector<int>& value_inputs,
                                const std::vector<GraphValue>& inputs, std::vector<Tensor>* values) {
  std::string key;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].kind == GraphValue::Kind::kOptional) absl::StrAppend(&key, i, inputs[i].items.empty() ? "-" : "+");
  }
  values->assign(inputs.size(), Tensor());
  for (int i : value_inputs) {
    if (!declared[i].is_tensor()) continue;
    const Tensor& t = inputs[i].tensor;
    if (t.dtype() == DType::kString || t.num_elements() > 1024) {
      return errors::InvalidArgument(absl::StrCat("input '", declared[i].name,
                                                  "' gives shapes, axes or pads: it must be numeric with at "
                                                  "most 1024 values, got ", t.DebugString()));
    }
    absl::StrAppend(&key, "|", i, "=",
                    absl::BytesToHexString(absl::string_view(static_cast<const char*>(t.raw_data()), t.bytes())));
    ASSIGN_OR_RETURN((*values)[i], t.Clone());
  }
  return key;
}

// "(x: float32[2,3], axes: int64[1]=[1])": input shapes, and the values of inputs the
// build is specialised on.
std::string ReadableSignature(const std::vector<ValueInfo>& declared, const std::vector<PartialShape>& shapes,
                              const std::vector<Tensor>& values) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto& in = declared[i];
    std::string part = absl::StrCat(in.name, ": ", DTypeName(in.dtype), shapes[i].ToString());
    if (i < values.size() && values[i].dtype() != DType::kInvalid) {
      absl::StrAppend(&part, "=", compiler::tracer::FormatTensorValues(values[i]));
    }
    parts.push_back(std::move(part));
  }
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

std::string InputNames(const std::vector<ValueInfo>& declared) {
  std::vector<std::string> names;
  for (const auto& in : declared) names.push_back(in.name);
  return absl::StrJoin(names, ", ");
}

// Models any session loaded, by content, so that sessions loading the same bytes
// share one parsed model and its initializers' buffers. Held weakly: a model lives
// as long as some session holds it.
class SharedModels {
 public:
  static SharedModels& Get() {
    static SharedModels* models = new SharedModels();
    return *models;
  }

  // `key`: the bytes' Fingerprint (seeded per process: colliding models cannot be crafted).
  StatusOr<std::shared_ptr<const OnnxModel>> Load(absl::string_view bytes, const Fingerprint& key,
                                                  const compiler::passes::ConstantEvaluator* evaluator) {
    {
      absl::MutexLock lock(&mu_);
      if (auto it = models_.find(key); it != models_.end()) {
        if (auto model = it->second.lock()) return model;
      }
    }
    ASSIGN_OR_RETURN(auto model, compiler::onnx_import::ParseOnnxModel(bytes, evaluator));
    absl::MutexLock lock(&mu_);
    absl::erase_if(models_, [](const auto& entry) { return entry.second.expired(); });
    models_[key] = model;
    return model;
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<Fingerprint, std::weak_ptr<const OnnxModel>> models_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

StatusOr<LoadedGraph> GraphFunctions::LoadOnnx(const std::string& name, absl::string_view model_bytes,
                                               bool reduce_retracing) {
  const Fingerprint bytes = Fingerprinter().Add(model_bytes).Finish();  // hashed once: parse and cache keys
  ASSIGN_OR_RETURN(auto model, SharedModels::Get().Load(model_bytes, bytes, &evaluator_));
  LoadedGraph loaded;
  loaded.name = !name.empty() ? name : !model->graph_name().empty() ? model->graph_name() : "onnx_model";
  loaded.inputs = model->inputs();
  loaded.outputs = model->outputs();
  loaded.opset = model->opset();
  auto entry = std::make_shared<Entry>();
  entry->content = compile_.Content(Fingerprinter(bytes).Add("onnx").Add(loaded.name));
  entry->inputs = model->inputs();
  entry->value_inputs = model->value_inputs();
  entry->reduce_retracing = reduce_retracing;
  entry->model = std::move(model);
  RETURN_IF_ERROR(Register(loaded.name, std::move(entry)));
  return loaded;
}

StatusOr<LoadedGraph> GraphFunctions::LoadGraphDef(const std::string& name, const GraphDef& def,
                                                   const std::vector<std::string>& inputs,
                                                   const std::vector<std::string>& outputs, bool reduce_retracing) {
  LoadedGraph loaded;
  loaded.name = name.empty() ? "graph" : name;
  ASSIGN_OR_RETURN(auto fn, compiler::MakeGraphDefFunction(def, loaded.name, inputs, outputs));
  ASSIGN_OR_RETURN(FunctionRef declared, compiler::BuildGraphDefFunction(fn));
  for (int i = 0; i < declared->num_args(); ++i) {
    const TensorType& t = declared->arg_type(i);
    loaded.inputs.push_back({fn.body.arg_names[i], t.dtype, t.shape});
  }
  for (int i = 0; i < declared->num_results(); ++i) {
    const TensorType& t = declared->result_type(i);
    loaded.outputs.push_back({fn.body.results[i], t.dtype, t.shape});
  }
  auto entry = std::make_shared<Entry>();
  Fingerprinter content;
  content.Add("graphdef").Add(loaded.name).AddInt(static_cast<int64_t>(inputs.size()));
  for (const std::string& in : inputs) content.Add(in);
  content.AddInt(static_cast<int64_t>(outputs.size()));
  for (const std::string& out : outputs) content.Add(out);
  compiler::AddGraphDef(content, def);
  entry->content = compile_.Content(content);
  entry->inputs = loaded.inputs;
  entry->reduce_retracing = reduce_retracing;
  entry->graph_def = std::make_shared<const compiler::GraphDefFunction>(std::move(fn));
  RETURN_IF_ERROR(Register(loaded.name, std::move(entry)));
  return loaded;
}

Status GraphFunctions::Register(const std::string& name, std::shared_ptr<Entry> entry) {
  absl::MutexLock lock(&mu_);
  if (graphs_.size() >= kMaxGraphs && !graphs_.contains(name)) {
    return errors::ResourceExhausted(absl::StrCat("a session holds at most ", kMaxGraphs,
                                                  " graphs; load under an existing name to replace one"));
  }
  graphs_[name] = std::move(entry);
  return absl::OkStatus();
}

StatusOr<FunctionRef> GraphFunctions::Build(const Entry& entry, const std::string& name,
                                            const std::vector<PartialShape>& shapes,
                                            const std::vector<Tensor>& values) const {
  if (entry.graph_def != nullptr) {
    ASSIGN_OR_RETURN(FunctionRef function, compiler::BuildGraphDefFunction(*entry.graph_def, shapes));
    if (compile_.target.passes == nullptr) return function;
    return compiler::passes::OptimizeFunction(*function, *compile_.target.passes);
  }
  return compiler::onnx_import::BuildOnnxFunction(*entry.model, name, shapes, values, &evaluator_,
                                                  compile_.target.passes);
}

Status GraphFunctions::CheckInputs(const std::string& name, const std::vector<ValueInfo>& declared,
                                   const std::vector<GraphValue>& inputs) {
  if (inputs.size() != declared.size()) {
    return errors::InvalidArgument(absl::StrCat("graph '", name, "' takes ", declared.size(), " input",
                                                declared.size() == 1 ? "" : "s", " (", InputNames(declared),
                                                "), got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& want = declared[i];
    if (!want.is_tensor()) continue;  // checked by onnx_import::InputShapes
    if (inputs[i].kind != GraphValue::Kind::kTensor) {
      return errors::InvalidArgument(absl::StrCat("input '", want.name, "' of graph '", name,
                                                  "' must be a tensor, got a sequence or an optional"));
    }
    const Tensor& got = inputs[i].tensor;
    if (got.dtype() != want.dtype) {
      return errors::InvalidArgument(absl::StrCat("input '", want.name, "' of graph '", name, "' must be ",
                                                  DTypeName(want.dtype), ", got ", DTypeName(got.dtype())));
    }
    if (!want.shape.IsCompatibleWith(got.shape())) {
      return errors::InvalidArgument(absl::StrCat("input '", want.name, "' of graph '", name, "' must have shape ",
                                                  want.shape.ToString(), ", got ", got.shape().ToString()));
    }
  }
  return absl::OkStatus();
}

StatusOr<std::shared_ptr<const GraphFunctions::Compiled>> GraphFunctions::Lookup(
    const std::string& name, const std::vector<GraphValue>& inputs, const CancellationToken& token, GraphCallResult& result,
    std::shared_ptr<const OnnxModel>* model) {
  std::shared_ptr<Entry> entry;
  {
    absl::MutexLock lock(&mu_);
    auto it = graphs_.find(name);
    if (it == graphs_.end()) {
      return errors::NotFound(absl::StrCat("no graph named '", name, "' is loaded in this session"));
    }
    entry = it->second;  // immutable but for `used`, which needs the lock
  }
  *model = entry->model;
  RETURN_IF_ERROR(CheckInputs(name, entry->inputs, inputs));
  std::vector<Tensor> values;
  ASSIGN_OR_RETURN(std::string values_key, ValuesKey(entry->inputs, entry->value_inputs, inputs, &values));
  ASSIGN_OR_RETURN(std::vector<PartialShape> shapes, InputShapes(*entry, inputs));
  compiler::SignatureKey key;
  BuildKey(entry->inputs, shapes, values_key, key);
  std::shared_ptr<const Compiled> compiled = compile_.cache.Lookup(entry->content, key.bytes());
  // reduce_retracing: a generalised build this session made that fits the call, and
  // otherwise a build generalised against the latest one.
  compiler::SignatureKey general;
  if (compiled == nullptr && entry->reduce_retracing) {
    absl::MutexLock lock(&mu_);
    compiled = entry->used.FindAccepting(key, compile_.cache, &general);
    if (compiled == nullptr) general = entry->used.Generalized(key);
  }
  const compiler::SignatureKey& build_key = general.empty() ? key : general;
  RETURN_IF_ERROR(CheckQuick(compiled.get()));
  if (compiled == nullptr) {
    bool built = false;
    ASSIGN_OR_RETURN(compiled, compile_.GetOrCompile(entry->content, build_key.bytes(),
                                                     [&]() -> StatusOr<std::shared_ptr<Compiled>> {
      std::vector<PartialShape> build_shapes = build_key.TensorShapes();
      ASSIGN_OR_RETURN(FunctionRef function, Build(*entry, name, build_shapes, values));
      return compiler::Compile(std::move(function), ReadableSignature(entry->inputs, build_shapes, values),
                               compile_.target, /*optimized=*/true);
    }, &built, token));
    if (built) result.compile_us = compiled->compile_us;
  }
  absl::MutexLock lock(&mu_);
  const UsedSignatures::Item* known = entry->used.Find(build_key.bytes());
  if (known == nullptr || known->function.lock() != compiled) {
    entry->used.Record(entry->content, build_key, compiled);
    result.first_use = true;
  }
  return compiled;
}

StatusOr<GraphCallResult> GraphFunctions::Call(const std::string& name, std::vector<GraphValue> inputs,
                                               VariableStore& variables, const CancellationToken& token) {
  GraphCallResult result;
  std::shared_ptr<const OnnxModel> model;  // the one `compiled` was built from
  ASSIGN_OR_RETURN(auto compiled, Lookup(name, inputs, token, result, &model));
  auto start = std::chrono::steady_clock::now();
  std::vector<Tensor> args;
  if (model != nullptr) {
    ASSIGN_OR_RETURN(args, compiler::onnx_import::FlattenInputs(*model, inputs));
  } else {
    for (GraphValue& v : inputs) args.push_back(std::move(v.tensor));  // a GraphDef's inputs are tensors
  }
  executor::RunContext ctx{.variables = &variables, .cancellation = &token};
  ASSIGN_OR_RETURN(std::vector<Tensor> results, executor::Execute(PlanOf(*compiled->plan), std::move(args), ctx));
  if (model != nullptr) {
    ASSIGN_OR_RETURN(result.outputs, compiler::onnx_import::UnflattenOutputs(*model, std::move(results)));
  } else {
    for (Tensor& t : results) result.outputs.push_back(GraphValue::FromTensor(std::move(t)));
  }
  result.execute_us = MicrosSince(start);
  compiled->cost.Record(result.execute_us);
  return result;
}

StatusOr<std::vector<PartialShape>> GraphFunctions::InputShapes(const Entry& entry,
                                                                const std::vector<GraphValue>& inputs) {
  if (entry.model != nullptr) return compiler::onnx_import::InputShapes(*entry.model, inputs);
  std::vector<PartialShape> shapes;
  for (const GraphValue& v : inputs) shapes.emplace_back(v.tensor.shape());
  return shapes;
}

bool GraphFunctions::Contains(const std::string& name) {
  absl::MutexLock lock(&mu_);
  return graphs_.contains(name);
}

StatusOr<GraphFunctions::Description> GraphFunctions::Describe(const std::string& name, bool with_graphs) {
  absl::MutexLock lock(&mu_);
  auto it = graphs_.find(name);
  if (it == graphs_.end()) {
    return errors::NotFound(absl::StrCat("no graph named '", name, "' is loaded in this session"));
  }
  const Entry& entry = *it->second;
  Description d;
  entry.used.ForEach([&](const UsedSignatures::Item& item) {
    auto compiled = item.function.lock();
    if (compiled == nullptr) return;  // evicted from the cache since
    d.signatures.push_back(compiled->signature);
    d.placements.push_back(PlanOf(*compiled->plan).Placement());
    if (with_graphs) d.functions.push_back(compiled->function);
  });
  if (d.signatures.empty() && with_graphs && entry.value_inputs.empty()) {
    std::vector<PartialShape> shapes;
    for (const auto& in : entry.inputs) shapes.push_back(in.shape);
    auto declared = Build(entry, name, shapes, {});
    if (declared.ok()) {
      d.signatures.push_back(ReadableSignature(entry.inputs, shapes, {}));
      d.placements.emplace_back();
      d.functions.push_back(*std::move(declared));
    }
  }
  return d;
}

}  // namespace graphd::server
