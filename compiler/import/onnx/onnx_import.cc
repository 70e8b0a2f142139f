#include "compiler/import/onnx/onnx_import.h"

#include <algorithm>
#include <exception>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/graph_body.h"
#include "compiler/passes/function_body.h"
#include "compiler/passes/pipeline.h"
#include "compiler/import/onnx/node_context.h"
#include "compiler/import/onnx/op_table.h"
#include "compiler/import/onnx/tensor_proto.h"
#include "compiler/import/onnx/utf8_check.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"

namespace graphd::compiler::onnx_import {

struct OnnxModel::Impl {
  // The model without its initializers' data, which lives in `initializers`: every
  // function built from the model shares those buffers.
  onnx::ModelProto model;
  std::vector<std::pair<std::string, Tensor>> initializers;
};

OnnxModel::OnnxModel() : impl_(std::make_unique<Impl>()) {}
OnnxModel::~OnnxModel() = default;

namespace {

bool IsDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

// Refuses tensors stored outside the model, in the graph and every subgraph.
Status CheckNoExternalData(const onnx::GraphProto& g) {
  auto check = [](const onnx::TensorProto& t) -> Status {
    if (t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0) {
      std::string location;
      for (const auto& kv : t.external_data()) {
        if (kv.key() == "location") location = kv.value();
      }
      return errors::InvalidArgument(absl::StrCat(
          "tensor '", t.name(), "' refers to external data", location.empty() ? "" : " at '",
          location, location.empty() ? "" : "'",
          ": graphd only loads self-contained models and never opens paths named by a model"));
    }
    return absl::OkStatus();
  };
  for (const auto& t : g.initializer()) RETURN_IF_ERROR(check(t));
  for (const auto& t : g.sparse_initializer()) {
    RETURN_IF_ERROR(check(t.values()));
    RETURN_IF_ERROR(check(t.indices()));
  }
  for (const auto& node : g.node()) {
    for (const auto& a : node.attribute()) {
      if (a.has_t()) RETURN_IF_ERROR(check(a.t()));
      for (const auto& t : a.tensors()) RETURN_IF_ERROR(check(t));
      if (a.has_g()) RETURN_IF_ERROR(CheckNoExternalData(a.g()));
      for (const auto& sub : a.graphs()) RETURN_IF_ERROR(CheckNoExternalData(sub));
    }
  }
  return absl::OkStatus();
}

StatusOr<ValueInfo> ReadValueInfo(const onnx::ValueInfoProto& v, absl::string_view what) {
  ValueInfo info{v.name()};
  const onnx::TypeProto* type = &v.type();
  if (type->has_optional_type()) {
    info.optional = true;
    type = &type->optional_type().elem_type();
  }
  if (type->has_sequence_type()) {
    info.sequence = true;
    type = &type->sequence_type().elem_type();
  }
  if (!type->has_tensor_type()) {
    return errors::Unimplemented(absl::StrCat(what, " '", v.name(), "' is not a tensor, a sequence of tensors or ",
                                              "an optional of either (maps are not supported)"));
  }
  auto dtype = DTypeFromOnnx(type->tensor_type().elem_type());
  if (!dtype.ok()) {
    return errors::InvalidArgument(absl::StrCat(what, " '", v.name(), "': ", dtype.status().message()));
  }
  info.dtype = *dtype;
  info.shape = ShapeFromTypeProto(*type);
  return info;
}

// The function arguments' types for input `in` built for `shape` (the tensor's, or
// the one its tensors share): see the calling convention in onnx_import.h.
std::vector<TensorType> ArgTypes(const ValueInfo& in, const PartialShape& shape) {
  std::vector<TensorType> types;
  if (in.optional) types.push_back({DType::kBool, PartialShape(std::vector<int64_t>{})});
  if (in.sequence) {
    types.push_back({in.dtype, PartialShape(std::vector<int64_t>{kUnknownDim})});
    const int64_t rank = shape.known_rank() ? shape.rank() : kUnknownDim;
    types.push_back({DType::kInt64, PartialShape(std::vector<int64_t>{kUnknownDim, rank})});
  } else {
    types.push_back({in.dtype, shape});
  }
  return types;
}

StatusOr<FunctionRef> Build(const OnnxModel& model, const std::string& function_name,
                            const std::vector<PartialShape>& input_shapes, const std::vector<Tensor>& input_values,
                            std::vector<int>* wanted, const passes::ConstantEvaluator* evaluator,
                            const passes::Pipeline* pipeline);

}  // namespace

StatusOr<std::shared_ptr<const OnnxModel>> ParseOnnxModel(absl::string_view model_bytes,
                                                          const passes::ConstantEvaluator* evaluator,
                                                          const std::function<void()>& parsed) {
  std::shared_ptr<OnnxModel> m(new OnnxModel());
  onnx::ModelProto& model = m->impl_->model;
  if (model_bytes.size() > static_cast<size_t>(INT32_MAX)) {
    return errors::InvalidArgument(absl::StrCat("the model is ", model_bytes.size(),
                                                " bytes; an onnx.ModelProto holds at most 2 GiB"));
  }
  const bool ok = !model_bytes.empty() && model.ParseFromArray(model_bytes.data(), static_cast<int>(model_bytes.size()));
  if (parsed) parsed();
  if (!ok) return errors::InvalidArgument("not an ONNX model: the bytes do not parse as an onnx.ModelProto");
  if (!model.has_graph()) return errors::InvalidArgument("not an ONNX model: it has no graph");
  RETURN_IF_ERROR(CheckUtf8Strings(model));
  // Before the checker, which would look for external files next to the model.
  RETURN_IF_ERROR(CheckNoExternalData(model.graph()));
  // Opsets are checked before the checker, which rejects opsets newer than its own.
  // A model without the default domain (ai.onnx.ml only...) fails later, per node.
  bool found = false;
  for (const auto& op : model.opset_import()) {
    if (!IsDefaultDomain(op.domain())) continue;
    found = true;
    m->opset_ = op.version();
  }
  if (found && (m->opset_ < kMinOpset || m->opset_ > kMaxOpset)) {
    return errors::Unimplemented(absl::StrCat("ONNX opset ", m->opset_, " is not supported (graphd supports opsets ",
                                              kMinOpset, " to ", kMaxOpset, ")"));
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return errors::InvalidArgument(absl::StrCat("the ONNX checker rejected the model: ", e.what()));
  }
  const onnx::GraphProto& g = model.graph();
  m->graph_name_ = g.name();
  absl::flat_hash_set<std::string> initializers;
  for (const auto& t : g.initializer()) initializers.insert(t.name());
  for (auto& t : *m->impl_->model.mutable_graph()->mutable_initializer()) {
    ASSIGN_OR_RETURN(Tensor value, TensorFromProto(t));
    m->impl_->initializers.emplace_back(t.name(), std::move(value));
    // Only the name stays (the graph's checks look it up): clearing the data fields
    // would keep their capacity, the whole model's size once more.
    onnx::TensorProto name_only;
    name_only.set_name(t.name());
    t.Swap(&name_only);
  }
  for (const auto& in : g.input()) {
    if (initializers.contains(in.name())) continue;
    ASSIGN_OR_RETURN(ValueInfo v, ReadValueInfo(in, "input"));
    m->inputs_.push_back(std::move(v));
  }
  for (const auto& out : g.output()) {
    ASSIGN_OR_RETURN(ValueInfo v, ReadValueInfo(out, "output"));
    m->outputs_.push_back(std::move(v));
  }
  // A trial build: unsupported ops fail the load; inputs whose values are needed
  // (shapes, axes fed as graph inputs) become value inputs, specialised per call.
  // Unknown op types fail the load even when the trial below cannot finish.
  for (const auto& node : g.node()) {
    if (IsDefaultDomain(node.domain()) && FindOpBuilder(node.op_type()) != nullptr) continue;
    std::string name = !node.name().empty() ? node.name() : node.output_size() > 0 ? node.output(0) : "";
    if (!IsDefaultDomain(node.domain())) {
      return errors::Unimplemented(absl::StrCat("ONNX op '", node.domain(), ".", node.op_type(),
                                                "' is not supported: only the default domain is (node '", name, "')"));
    }
    return errors::Unimplemented(absl::StrCat("ONNX op '", node.op_type(), "' (opset ", m->opset_,
                                              ") is not supported (node '", name, "')"));
  }
  std::vector<int> wanted;
  auto trial = Build(*m, "trial", {}, {}, &wanted, evaluator, nullptr);
  bool dynamic = false;  // with unknown dims, a build may need the concrete shapes of a call
  for (const ValueInfo& in : m->inputs_) dynamic = dynamic || !in.shape.fully_defined();
  if (!trial.ok() && wanted.empty() && !dynamic) return trial.status();
  std::sort(wanted.begin(), wanted.end());
  m->value_inputs_ = std::move(wanted);
  return std::shared_ptr<const OnnxModel>(std::move(m));
}

namespace {

// BuildOnnxFunction; `wanted` gets the inputs whose values a builder needed.
StatusOr<FunctionRef> Build(const OnnxModel& model, const std::string& function_name,
                            const std::vector<PartialShape>& input_shapes, const std::vector<Tensor>& input_values,
                            std::vector<int>* wanted, const passes::ConstantEvaluator* evaluator,
                            const passes::Pipeline* pipeline) {
  const onnx::GraphProto& g = model.impl().model.graph();
  if (!input_shapes.empty() && input_shapes.size() != model.inputs().size()) {
    return errors::InvalidArgument(absl::StrCat("the model has ", model.inputs().size(), " inputs, got ",
                                                input_shapes.size(), " shapes"));
  }
  auto graph = std::make_unique<Graph>();
  ImportContext ctx(*graph, model.opset());
  ctx.set_evaluator(evaluator);
  std::vector<const Node*> args;
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    const ValueInfo& in = model.inputs()[i];
    PartialShape shape = in.shape;
    if (!input_shapes.empty()) {
      const PartialShape& given = input_shapes[i];
      if (in.is_tensor() && given.fully_defined() && !in.shape.IsCompatibleWith(given.ToShape())) {
        return errors::InvalidArgument(absl::StrCat("input '", in.name, "' must have shape ", in.shape.ToString(),
                                                    ", got ", given.ToString()));
      }
      shape = given;
    }
    if (!in.is_tensor()) {
      std::vector<OutputRef> parts;
      for (const TensorType& t : ArgTypes(in, shape)) {
        ASSIGN_OR_RETURN(OutputRef arg, ctx.AddNode(in.name, "Arg", {},
                                                    {{"index", static_cast<int64_t>(args.size())},
                                                     {"dtype", t.dtype}, {"shape", t.shape}}));
        args.push_back(arg.node);
        parts.push_back(arg);
      }
      RETURN_IF_ERROR(ctx.DefineValue(in.name, ValueKind{.optional = in.optional, .sequence = in.sequence},
                                      std::move(parts)));
      continue;
    }
    ASSIGN_OR_RETURN(OutputRef arg, ctx.AddNode(in.name, "Arg", {},
                                                {{"index", static_cast<int64_t>(args.size())}, {"dtype", in.dtype},
                                                 {"shape", shape}}));
    args.push_back(arg.node);
    RETURN_IF_ERROR(ctx.Define(in.name, arg));
    ctx.DefineArg(in.name, static_cast<int>(i), i < input_values.size() ? input_values[i] : Tensor());
  }
  for (const auto& [name, value] : model.impl().initializers) {
    if (ctx.IsDefined(name)) continue;
    RETURN_IF_ERROR(ctx.DefineConst(name, value));
  }
  RETURN_IF_ERROR(ImportGraphNodes(ctx, g, wanted));
  std::vector<OutputRef> results;
  for (size_t i = 0; i < model.outputs().size(); ++i) {
    const ValueInfo& info = model.outputs()[i];
    const std::string& name = g.output(static_cast<int>(i)).name();
    ValueKind kind = ctx.KindOf(name);
    if (kind.optional != info.optional || kind.sequence != info.sequence) {
      return errors::Unimplemented(absl::StrCat("output '", name, "' is declared as ",
                                                info.optional ? "an optional" : info.sequence ? "a sequence" : "a tensor",
                                                " but computed as another kind of value"));
    }
    ASSIGN_OR_RETURN(std::vector<OutputRef> parts, ctx.GetParts(name));
    results.insert(results.end(), parts.begin(), parts.end());
  }
  passes::FunctionBody body{.name = function_name, .graph = std::move(graph), .args = std::move(args),
                            .results = std::move(results)};
  if (pipeline != nullptr) RETURN_IF_ERROR(pipeline->Run(body).status());
  return std::move(body).ToFunction();
}

}  // namespace

StatusOr<FunctionRef> BuildOnnxFunction(const OnnxModel& model, const std::string& function_name,
                                        const std::vector<PartialShape>& input_shapes,
                                        const std::vector<Tensor>& input_values,
                                        const passes::ConstantEvaluator* evaluator,
                                        const passes::Pipeline* pipeline) {
  return Build(model, function_name, input_shapes, input_values, nullptr, evaluator, pipeline);
}

StatusOr<ImportedModel> ImportOnnx(absl::string_view model_bytes, const std::string& function_name) {
  ASSIGN_OR_RETURN(auto model, ParseOnnxModel(model_bytes));
  ImportedModel out;
  ASSIGN_OR_RETURN(out.function, BuildOnnxFunction(*model, function_name));
  out.inputs = model->inputs();
  out.outputs = model->outputs();
  out.opset = model->opset();
  return out;
}

}  // namespace graphd::compiler::onnx_import
