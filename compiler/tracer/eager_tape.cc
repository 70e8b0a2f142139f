#include "compiler/tracer/eager_tape.h"

#include "absl/strings/str_cat.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/nest.h"
#include "core/graph/node_attr.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

const void* KeyOf(const Tensor& t) { return t.num_elements() > 0 ? t.raw_data() : nullptr; }

}  // namespace

EagerRecording::EagerRecording() : scope_(std::make_unique<GraphScope>(nullptr, "gradient_tape")) {
  scope_->set_eager_lookup([this](const TensorObj& t) { return Lookup(t); });
}

std::optional<OutputRef> EagerRecording::Find(const Tensor& value) const {
  const void* key = KeyOf(value);
  if (key == nullptr) return std::nullopt;
  auto it = held_.find(key);
  if (it == held_.end()) return std::nullopt;
  const Tensor& held = it->second.first;
  if (held.dtype() != value.dtype() || held.shape() != value.shape()) return std::nullopt;
  return it->second.second;
}

std::optional<OutputRef> EagerRecording::Lookup(const TensorObj& t) const {
  if (t.symbolic() || !t.value.has_value()) return std::nullopt;
  return Find(*t.value);
}

StatusOr<OutputRef> EagerRecording::Hold(const Tensor& value, OutputRef ref) {
  if (const void* key = KeyOf(value)) held_[key] = {value, ref};
  return ref;
}

StatusOr<OutputRef> EagerRecording::Constant(const Tensor& value) {
  ASSIGN_OR_RETURN(const Node* c, scope_->Add("Const", "Const", {}, {{"value", value}}));
  return OutputRef{c, 0};
}

StatusOr<OutputRef> EagerRecording::Watch(const TensorObj& t) {
  if (std::optional<OutputRef> r = Lookup(t)) return *r;
  ASSIGN_OR_RETURN(OutputRef c, Constant(*t.value));
  return Hold(*t.value, c);
}

std::vector<OutputRef> EagerRecording::Reads(const std::string& var_name) const {
  std::vector<OutputRef> out;
  if (auto it = reads_.find(var_name); it != reads_.end()) out = it->second;
  // Reads inside @tf.function bodies traced into the tape.
  const Graph& g = scope_->graph();
  for (int id = 0; id < g.num_nodes(); ++id) {
    const Node& n = *g.node(id);
    if (n.op_name() == "ReadVariableOp" && AttrOr<std::string>(n, "var_name", "") == var_name) out.push_back({&n, 0});
  }
  return out;
}

Status EagerRecording::RecordOp(const std::string& op, const std::vector<OutputRef>& inputs, const AttrMap& attrs,
                                bool stateful, const std::vector<Tensor>& outputs) {
  if (stateful) {
    // A read, an update or a random draw: its outputs are constants here (a read
    // remembers its variable, the source of that variable's gradient).
    for (const Tensor& out : outputs) {
      ASSIGN_OR_RETURN(OutputRef c, Constant(out));
      RETURN_IF_ERROR(Hold(out, c).status());
      auto name = attrs.find("var_name");
      if (op == "ReadVariableOp" && name != attrs.end()) reads_[std::get<std::string>(name->second)].push_back(c);
    }
    return absl::OkStatus();
  }
  std::vector<OutputRef> in;
  for (const OutputRef& r : inputs) {
    const Tensor& value = std::get<Tensor>(r.node->attrs().find("value")->second);
    if (std::optional<OutputRef> held = Find(value)) {
      in.push_back(*held);
    } else {
      ASSIGN_OR_RETURN(OutputRef c, Constant(value));
      in.push_back(c);
    }
  }
  ASSIGN_OR_RETURN(const Node* node, scope_->Add(op, op, std::move(in), attrs));
  for (size_t i = 0; i < outputs.size(); ++i) {
    RETURN_IF_ERROR(Hold(outputs[i], OutputRef{node, static_cast<int>(i)}).status());
  }
  return absl::OkStatus();
}

Status EagerRecording::RecordCall(Interpreter& interp, Tracer& tracer, const Value& fn, CallArgs& args,
                                  const Value& result) {
  // Trace the call once more, into this graph, as Python (print output dropped).
  const size_t printed = interp.out().size();
  tracer.Push(scope_.get());
  tracer.set_inline_calls(true);
  StatusOr<Value> traced = interp.Call(fn, args);
  tracer.set_inline_calls(false);
  tracer.Pop();
  interp.out().resize(printed);
  if (!traced.ok()) {
    return errors::WithPythonClass(
        errors::Unimplemented(absl::StrCat("a GradientTape could not record this call: ", traced.status().message())),
        "NotImplementedError");
  }
  std::vector<Value> symbolic, eager;
  RETURN_IF_ERROR(FlattenLeaves(*traced, symbolic));
  RETURN_IF_ERROR(FlattenLeaves(result, eager));
  if (symbolic.size() != eager.size()) return errors::Internal("a recorded call returned another structure");
  for (size_t i = 0; i < eager.size(); ++i) {
    if (!eager[i].is(K::kTensor) || !symbolic[i].is(K::kTensor)) continue;
    const TensorObj& s = *symbolic[i].as_tensor();
    const TensorObj& e = *eager[i].as_tensor();
    if (!s.symbolic() || s.scope != scope_.get() || !e.value.has_value()) continue;
    RETURN_IF_ERROR(Hold(*e.value, s.ref).status());
  }
  return absl::OkStatus();
}

std::vector<bool> EagerRecording::Needed(const std::vector<OutputRef>& refs) const {
  std::vector<bool> needed(scope_->graph().num_nodes(), false);
  std::vector<const Node*> stack;
  for (const OutputRef& r : refs) stack.push_back(r.node);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (needed[n->id()]) continue;
    needed[n->id()] = true;
    for (const OutputRef& in : n->inputs()) stack.push_back(in.node);
  }
  return needed;
}

Status EagerRecording::RecordFrom(const EagerRecording& from, const std::vector<OutputRef>& refs,
                                  const std::vector<Tensor>& values) {
  const Graph& g = from.scope_->graph();
  const std::vector<bool> needed = from.Needed(refs);
  // Per node of `from`: its copy here, or (a constant) the node standing for its value.
  std::vector<const Node*> copied(g.num_nodes(), nullptr);
  std::vector<std::optional<OutputRef>> linked(g.num_nodes());
  auto here = [&](const OutputRef& r) -> OutputRef {
    const int id = r.node->id();
    return linked[id].has_value() ? *linked[id] : OutputRef{copied[id], r.index};
  };
  for (int id = 0; id < g.num_nodes(); ++id) {  // ids are in creation order: inputs first
    if (!needed[id]) continue;
    const Node& n = *g.node(id);
    if (n.op_name() == "Const") {
      const Tensor& value = std::get<Tensor>(n.attrs().find("value")->second);
      if (std::optional<OutputRef> held = Find(value)) {
        linked[id] = *held;
      } else {
        ASSIGN_OR_RETURN(linked[id], Constant(value));
      }
      continue;
    }
    std::vector<OutputRef> in;
    for (const OutputRef& r : n.inputs()) in.push_back(here(r));
    ASSIGN_OR_RETURN(copied[id], scope_->Add(n.op_name(), n.name(), std::move(in), n.attrs()));
  }
  for (size_t i = 0; i < refs.size() && i < values.size(); ++i) RETURN_IF_ERROR(Hold(values[i], here(refs[i])).status());
  return absl::OkStatus();
}

StatusOr<std::vector<Tensor>> EagerRecording::Evaluate(EagerRunner& runner, const std::vector<OutputRef>& refs) const {
  if (refs.empty()) return std::vector<Tensor>{};
  const Graph& g = scope_->graph();
  const std::vector<bool> needed = Needed(refs);
  auto copy = std::make_unique<Graph>(g.ops());
  std::vector<const Node*> map(g.num_nodes(), nullptr);
  for (int id = 0; id < g.num_nodes(); ++id) {
    if (!needed[id]) continue;
    const Node& n = *g.node(id);
    const std::string& op = n.op_name();
    if (n.op().stateful && op != "ReadVariableOp" && op != "If" && op != "While" && op != "Assert") {
      return errors::WithPythonClass(
          errors::Unimplemented(absl::StrCat("the gradient recomputes ", op, " (node '", n.name(),
                                             "'), which has side effects; keep it out of the tape")),
          "NotImplementedError");
    }
    NodeSpec spec{.name = n.name(), .op = op, .attrs = n.attrs(), .range = n.range()};
    for (const OutputRef& in : n.inputs()) spec.inputs.push_back({map[in.node->id()], in.index});
    ASSIGN_OR_RETURN(map[id], copy->AddNode(std::move(spec)));
  }
  std::vector<OutputRef> results;
  for (const OutputRef& r : refs) results.push_back({map[r.node->id()], r.index});
  ASSIGN_OR_RETURN(FunctionRef fn, MakeFunction("gradient_tape", std::move(copy), std::vector<const Node*>{},
                                                std::move(results)));
  return runner.Run(*fn);
}

}  // namespace graphd::compiler::tracer
