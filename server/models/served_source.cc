// The function-source half of ServedModel (model.py): loading the module, finding the
// served tf.function and its signature, and calling it.
#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/tracer/tensor_value.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/trace.h"
#include "server/models/served_model.h"

namespace graphd::server::models {

Status ServedModel::LoadSource(const std::string& source, const std::string& path, const v1::ModelConfig& config,
                               const CancellationToken& token, std::vector<compiler::ValueInfo>* inputs,
                               std::vector<compiler::ValueInfo>* outputs) {
  using compiler::tracer::Value;
  using K = Value::Kind;
  auto at_file = [&path](absl::string_view problem) {
    return errors::InvalidArgument(absl::StrCat(path, ": ", problem));
  };
  SourceModules& modules = session_->source_modules();
  auto loaded = modules.Load(source, path, session_->variables(), token);
  if (!loaded.ok()) return at_file(loaded.status().message());
  module_id_ = loaded->module_id;
  function_ = config.function().empty() ? "serve" : config.function();
  if (!absl::c_linear_search(loaded->functions, function_)) {
    return at_file(absl::StrCat("defines no tf.function '", function_, "' (its functions: ",
                                absl::StrJoin(loaded->functions, ", "), "; config.pbtxt's `function` names another)"));
  }
  ASSIGN_OR_RETURN(SourceModules::Signature signature, modules.SignatureOf(module_id_, function_));
  if (!signature.input_signature.has_value()) {
    return at_file(absl::StrCat("'", function_, "' needs an input_signature (a served function is traced once)"));
  }
  for (size_t i = 0; i < signature.input_signature->size(); ++i) {
    auto spec = (*signature.input_signature)[i].object_as<compiler::tracer::TensorSpecObj>();
    std::string name = !spec->name.empty() ? spec->name : i < signature.params.size() ? signature.params[i]
                                                                                        : absl::StrCat("input_", i);
    inputs->push_back({std::move(name), spec->dtype, spec->shape});
  }
  auto traced = modules.Call(module_id_, function_, {}, {}, session_->variables(), token, {}, /*trace_only=*/true);
  if (!traced.ok()) return at_file(traced.status().message());
  const Value& result = traced->concrete->output_template;
  const Function& fn = *traced->compiled->function;
  auto add = [&](const Value& v, std::string name, std::string key) -> Status {
    auto slot = v.object_as<compiler::tracer::OutputSlot>();
    if (slot == nullptr) {
      return at_file(absl::StrCat("'", function_, "' must return tensors: one, a tuple or list, or a dict of them"));
    }
    const TensorType& t = fn.result_type(slot->index);
    outputs->push_back({std::move(name), t.dtype, t.shape});
    result_keys_.push_back(std::move(key));
    return absl::OkStatus();
  };
  if (result.is(K::kDict)) {
    returns_dict_ = true;
    for (const auto& [k, v] : result.as_dict()->items) {
      if (!k.is(K::kStr)) return at_file(absl::StrCat("'", function_, "' returns a dict whose keys are not all strings"));
      RETURN_IF_ERROR(add(v, k.as_str(), k.as_str()));
    }
  } else if (result.is(K::kTuple) || result.is(K::kList)) {
    returns_sequence_ = true;
    const std::vector<Value>& items = result.is(K::kTuple) ? result.as_tuple() : result.as_list()->items;
    for (size_t i = 0; i < items.size(); ++i) RETURN_IF_ERROR(add(items[i], absl::StrCat("output_", i), ""));
  } else {
    RETURN_IF_ERROR(add(result, "output_0", ""));
  }
  return absl::OkStatus();
}

StatusOr<std::vector<Tensor>> ServedModel::ExecuteSource(std::vector<Tensor> inputs,
                                                         const CancellationToken& token) const {
  using compiler::tracer::Value;
  using K = Value::Kind;
  std::vector<Value> args;
  for (Tensor& t : inputs) {
    auto obj = std::make_shared<compiler::tracer::TensorObj>();
    obj->dtype = t.dtype();
    obj->shape = PartialShape(t.shape());
    obj->value = std::move(t);
    args.push_back(Value::Tensor(std::move(obj)));
  }
  ASSIGN_OR_RETURN(CallResult r, session_->source_modules().Call(module_id_, function_, std::move(args), {},
                                                                 session_->variables(), token));
  std::vector<Tensor> results;
  auto take = [&](const Value& v) -> Status {
    if (!v.is(K::kTensor) || !v.as_tensor()->value.has_value()) {
      return errors::Internal(absl::StrCat("'", function_, "' returned something other than its traced tensors"));
    }
    results.push_back(*v.as_tensor()->value);
    return absl::OkStatus();
  };
  if (returns_dict_) {
    for (const std::string& key : result_keys_) {
      bool found = false;
      for (const auto& [k, v] : r.output.as_dict()->items) {
        if (k.is(K::kStr) && k.as_str() == key) {
          RETURN_IF_ERROR(take(v));
          found = true;
          break;
        }
      }
      if (!found) return errors::Internal(absl::StrCat("'", function_, "' returned no '", key, "'"));
    }
  } else if (returns_sequence_) {
    const std::vector<Value>& items = r.output.is(K::kTuple) ? r.output.as_tuple() : r.output.as_list()->items;
    for (const Value& v : items) RETURN_IF_ERROR(take(v));
  } else {
    RETURN_IF_ERROR(take(r.output));
  }
  std::vector<Tensor> outputs;
  for (int i : output_index_) outputs.push_back(std::move(results[i]));
  return outputs;
}

}  // namespace graphd::server::models
