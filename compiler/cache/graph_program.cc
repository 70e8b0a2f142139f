#include "compiler/cache/graph_program.h"

#include <chrono>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/import/graphdef_fingerprint.h"
#include "compiler/passes/spec_body.h"
#include "compiler/tracer/tensor_format.h"

namespace graphd::compiler {
namespace {

// Inputs whose values select a build may hold at most this many values.
constexpr int64_t kMaxValueInputElements = 1024;

std::string InputNames(const std::vector<ValueInfo>& declared) {
  std::vector<std::string> names;
  for (const auto& in : declared) names.push_back(in.name);
  return absl::StrJoin(names, ", ");
}

// Checks tensor inputs (sequences and optionals: onnx_import::InputShapes).
Status CheckInputs(const std::string& name, const std::vector<ValueInfo>& declared,
                   const std::vector<GraphValue>& inputs) {
  if (inputs.size() != declared.size()) {
    return errors::InvalidArgument(absl::StrCat("graph '", name, "' takes ", declared.size(), " input",
                                                declared.size() == 1 ? "" : "s", " (", InputNames(declared),
                                                "), got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& want = declared[i];
    if (!want.is_tensor()) continue;
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

// Which optionals hold a value, and the values of the inputs a build is specialised
// on (copied into `values`).
StatusOr<std::string> ValuesKey(const std::vector<ValueInfo>& declared, const std::vector<int>& value_inputs,
                                const std::vector<GraphValue>& inputs, std::vector<Tensor>& values) {
  std::string key;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].kind == GraphValue::Kind::kOptional) absl::StrAppend(&key, i, inputs[i].items.empty() ? "-" : "+");
  }
  values.assign(inputs.size(), Tensor());
  for (int i : value_inputs) {
    if (!declared[i].is_tensor()) continue;
    const Tensor& t = inputs[i].tensor;
    if (t.dtype() == DType::kString || t.num_elements() > kMaxValueInputElements) {
      return errors::InvalidArgument(absl::StrCat("input '", declared[i].name,
                                                  "' gives shapes, axes or pads: it must be numeric with at most ",
                                                  kMaxValueInputElements, " values, got ", t.DebugString()));
    }
    absl::StrAppend(&key, "|", i, "=",
                    absl::BytesToHexString(absl::string_view(static_cast<const char*>(t.raw_data()), t.bytes())));
    ASSIGN_OR_RETURN(values[i], t.Clone());
  }
  return key;
}

int64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StatusOr<std::shared_ptr<const GraphProgram>> GraphProgram::LoadOnnx(FunctionCache& cache, const OnnxBytes& model,
                                                                     const passes::ConstantEvaluator* evaluator,
                                                                     const CancellationToken* token,
                                                                     uint64_t owner) {
  // Hashed once (seeded per process: colliding models cannot be crafted).
  const absl::string_view bytes = model.bytes;
  const Fingerprint content =
      Fingerprinter(model.fingerprint ? *model.fingerprint : BlockFingerprint(bytes)).Add("onnx").Finish();
  const Fingerprint parsed_key = Fingerprinter(content).Add("parsed model").AddInt(static_cast<int64_t>(owner)).Finish();
  ASSIGN_OR_RETURN(FunctionCache::Ref entry, cache.GetOrCompile(parsed_key, "", [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
    auto start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(auto parsed, onnx_import::ParseOnnxModel(bytes, evaluator, model.parsed));
    auto program = std::shared_ptr<GraphProgram>(new GraphProgram());
    program->content_ = content;
    program->inputs_ = parsed->inputs();
    program->outputs_ = parsed->outputs();
    program->model_ = std::move(parsed);
    auto made = std::make_shared<CompiledFunction>();
    made->id = NextCompiledFunctionId();
    made->signature = "(parsed ONNX model)";
    made->front_end = std::move(program);
    made->bytes = static_cast<int64_t>(bytes.size());
    made->compile_us = MicrosSince(start);
    return made;
  }, /*compiled=*/nullptr, owner, token));
  return std::static_pointer_cast<const GraphProgram>(entry->front_end);
}

StatusOr<std::shared_ptr<const GraphProgram>> GraphProgram::FromGraphDef(const GraphDef& def, const std::string& name,
                                                                         const std::vector<std::string>& inputs,
                                                                         const std::vector<std::string>& outputs) {
  ASSIGN_OR_RETURN(GraphDefFunction fn, MakeGraphDefFunction(def, name, inputs, outputs));
  ASSIGN_OR_RETURN(FunctionRef declared, BuildGraphDefFunction(fn));
  auto program = std::shared_ptr<GraphProgram>(new GraphProgram());
  for (int i = 0; i < declared->num_args(); ++i) {
    const TensorType& t = declared->arg_type(i);
    program->inputs_.push_back({fn.body.arg_names[i], t.dtype, t.shape});
  }
  for (int i = 0; i < declared->num_results(); ++i) {
    const TensorType& t = declared->result_type(i);
    program->outputs_.push_back({fn.body.results[i], t.dtype, t.shape});
  }
  Fingerprinter content;
  content.Add("graphdef").Add(name).AddInt(static_cast<int64_t>(inputs.size()));
  for (const std::string& in : inputs) content.Add(in);
  content.AddInt(static_cast<int64_t>(outputs.size()));
  for (const std::string& out : outputs) content.Add(out);
  AddGraphDef(content, def);
  program->content_ = content.Finish();
  program->graph_def_ = std::make_shared<const GraphDefFunction>(std::move(fn));
  return std::shared_ptr<const GraphProgram>(std::move(program));
}

const std::string& GraphProgram::graph_name() const {
  static const std::string* none = new std::string();
  return model_ != nullptr ? model_->graph_name() : *none;
}

int64_t GraphProgram::opset() const { return model_ != nullptr ? model_->opset() : 0; }

bool GraphProgram::specializes_on_values() const { return model_ != nullptr && !model_->value_inputs().empty(); }

Status GraphProgram::CallKey(const std::string& name, const std::vector<GraphValue>& inputs, SignatureKey& key,
                             std::vector<Tensor>& values) const {
  RETURN_IF_ERROR(CheckInputs(name, inputs_, inputs));
  std::vector<PartialShape> shapes;
  std::string values_key;
  if (model_ != nullptr) {
    ASSIGN_OR_RETURN(values_key, ValuesKey(inputs_, model_->value_inputs(), inputs, values));
    ASSIGN_OR_RETURN(shapes, onnx_import::InputShapes(*model_, inputs));
  } else {
    values.assign(inputs.size(), Tensor());
    for (const GraphValue& v : inputs) shapes.emplace_back(v.tensor.shape());
  }
  for (size_t i = 0; i < shapes.size(); ++i) key.AddTensor(inputs_[i].dtype, shapes[i]);
  key.AddRaw(values_key);
  return absl::OkStatus();
}

StatusOr<FunctionRef> GraphProgram::Build(const std::string& name, const std::vector<PartialShape>& shapes,
                                          const std::vector<Tensor>& values,
                                          const passes::ConstantEvaluator* evaluator,
                                          const passes::Pipeline* passes) const {
  if (graph_def_ != nullptr) {
    ASSIGN_OR_RETURN(FunctionRef function, BuildGraphDefFunction(*graph_def_, shapes));
    if (passes == nullptr) return function;
    return passes::OptimizeFunction(*function, *passes);
  }
  return onnx_import::BuildOnnxFunction(*model_, name, shapes, values, evaluator, passes);
}

StatusOr<std::shared_ptr<CompiledFunction>> GraphProgram::Compile(const std::string& name, const SignatureKey& key,
                                                                  const std::vector<Tensor>& values,
                                                                  const passes::ConstantEvaluator* evaluator,
                                                                  const CompileTarget& target) const {
  std::vector<PartialShape> shapes = key.TensorShapes();
  ASSIGN_OR_RETURN(FunctionRef function, Build(name, shapes, values, evaluator, target.passes));
  return compiler::Compile(std::move(function), ReadableSignature(shapes, values), target, /*optimized=*/true);
}

StatusOr<FunctionRef> GraphProgram::Declared(const std::string& name, const passes::ConstantEvaluator* evaluator,
                                             const passes::Pipeline* passes) const {
  if (specializes_on_values()) {
    return errors::Unimplemented(absl::StrCat("graph '", name, "' is built per call: some inputs give shapes"));
  }
  std::vector<PartialShape> shapes;
  for (const auto& in : inputs_) shapes.push_back(in.shape);
  return Build(name, shapes, {}, evaluator, passes);
}

std::string GraphProgram::DeclaredSignature() const {
  std::vector<PartialShape> shapes;
  for (const auto& in : inputs_) shapes.push_back(in.shape);
  return ReadableSignature(shapes, {});
}

std::string GraphProgram::ReadableSignature(const std::vector<PartialShape>& shapes,
                                            const std::vector<Tensor>& values) const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto& in = inputs_[i];
    std::string part = absl::StrCat(in.name, ": ", DTypeName(in.dtype), shapes[i].ToString());
    if (i < values.size() && values[i].dtype() != DType::kInvalid) {
      absl::StrAppend(&part, "=", tracer::FormatTensorValues(values[i]));
    }
    parts.push_back(std::move(part));
  }
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

StatusOr<std::vector<Tensor>> GraphProgram::FlattenInputs(std::vector<GraphValue> inputs) const {
  if (model_ != nullptr) return onnx_import::FlattenInputs(*model_, inputs);
  std::vector<Tensor> args;
  for (GraphValue& v : inputs) args.push_back(std::move(v.tensor));  // a GraphDef's inputs are tensors
  return args;
}

StatusOr<std::vector<GraphValue>> GraphProgram::UnflattenOutputs(std::vector<Tensor> results) const {
  if (model_ != nullptr) return onnx_import::UnflattenOutputs(*model_, std::move(results));
  std::vector<GraphValue> outputs;
  for (Tensor& t : results) outputs.push_back(GraphValue::FromTensor(std::move(t)));
  return outputs;
}

}  // namespace graphd::compiler
