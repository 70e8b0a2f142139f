#include "compiler/autodiff/body_grad.h"

namespace graphd::compiler::autodiff {

bool IsVariableRead(const Node& n) { return n.op_name() == "ReadVariableOp"; }

namespace {

// The first node of `fn` or a body inside it whose rerun would be visible:
// assignments, prints, stateful random ops. Reads, asserts and control flow are not.
const Node* FirstSideEffect(const Function& fn) {
  for (int id = 0; id < fn.graph->num_nodes(); ++id) {
    const Node& n = *fn.graph->node(id);
    for (const auto& [name, value] : n.attrs()) {
      if (const FunctionRef* body = std::get_if<FunctionRef>(&value); body && *body) {
        if (const Node* inner = FirstSideEffect(**body)) return inner;
      }
    }
    const std::string& op = n.op_name();
    if (n.op().stateful && !IsVariableRead(n) && op != "If" && op != "While" && op != "Assert") return &n;
  }
  return nullptr;
}

// The variable reads of `fn` and its bodies, by var_name (one read each).
void CollectReads(const Function& fn, std::map<std::string, const Node*>& reads) {
  for (int id = 0; id < fn.graph->num_nodes(); ++id) {
    const Node& n = *fn.graph->node(id);
    if (IsVariableRead(n)) reads.emplace(AttrOr<std::string>(n, "var_name", ""), &n);
    for (const auto& [name, value] : n.attrs()) {
      if (const FunctionRef* body = std::get_if<FunctionRef>(&value); body && *body) CollectReads(**body, reads);
    }
  }
}

Status CheckPure(const Node& n, const Function& fn) {
  if (const Node* effect = FirstSideEffect(fn)) {
    return errors::Unimplemented(absl::StrCat(
        "the gradient of ", n.op_name(), " (node '", n.name(), "') recomputes its body, which must be free of side "
        "effects, but it has ", effect->op_name(), " (node '", effect->name(), "'); move it out of the ",
        n.op_name() == "If" ? "branch" : "loop", " or out of the tape"));
  }
  return absl::OkStatus();
}

// Sum of `parts`, or nullopt.
StatusOr<std::optional<OutputRef>> SumParts(GradBuilder& b, const std::vector<OutputRef>& parts) {
  if (parts.empty()) return std::optional<OutputRef>();
  OutputRef sum = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    ASSIGN_OR_RETURN(sum, b.Add(sum, parts[i]));
  }
  return std::optional<OutputRef>(sum);
}

}  // namespace

// The node's two bodies (attributes `a`, `b`) as traced, checked free of side effects.
StatusOr<std::pair<FunctionRef, FunctionRef>> PureBodies(const GradEnv* env, const Node& n, const char* a,
                                                         const char* b) {
  FunctionRef first = AttrOr<FunctionRef>(n, a, nullptr), second = AttrOr<FunctionRef>(n, b, nullptr);
  if (first == nullptr || second == nullptr) return errors::Internal(absl::StrCat(n.name(), " lacks its bodies"));
  if (env != nullptr) {
    first = env->Raw(first);
    second = env->Raw(second);
  }
  RETURN_IF_ERROR(CheckPure(n, *first));
  RETURN_IF_ERROR(CheckPure(n, *second));
  return std::make_pair(first, second);
}

// The source variables (of env) read in `bodies`, with one read of each for its type.
std::map<std::string, const Node*> SourceVariables(const GradEnv* env, const std::vector<FunctionRef>& bodies) {
  std::map<std::string, const Node*> all, out;
  if (env == nullptr) return out;
  for (const FunctionRef& body : bodies) CollectReads(*body, all);
  for (const auto& [name, read] : all) {
    if (env->variables.contains(name)) out.emplace(name, read);
  }
  return out;
}

// Adds the nodes of `fn` through `b` with its arguments replaced by `args`; returns
// its results, and the copies of its variable reads (var_name -> outputs). Control
// edges are dropped: the body has no side effects to order.
StatusOr<std::vector<OutputRef>> InlineBody(GradBuilder& b, NodeSink& sink, const Function& fn,
                                            const std::vector<OutputRef>& args,
                                            std::map<std::string, std::vector<OutputRef>>* reads) {
  absl::flat_hash_map<const Node*, OutputRef> arg_of;
  for (int i = 0; i < fn.num_args(); ++i) arg_of[fn.args[i]] = args[i];
  absl::flat_hash_map<const Node*, const Node*> copy;
  for (int id = 0; id < fn.graph->num_nodes(); ++id) {
    const Node& n = *fn.graph->node(id);
    if (arg_of.contains(&n)) continue;
    std::vector<OutputRef> inputs;
    for (const OutputRef& in : n.inputs()) {
      auto a = arg_of.find(in.node);
      inputs.push_back(a != arg_of.end() ? a->second : OutputRef{copy.at(in.node), in.index});
    }
    ASSIGN_OR_RETURN(const Node* c, sink.Add(n.op_name(), n.name(), std::move(inputs), n.attrs()));
    copy[&n] = c;
    if (IsVariableRead(n) && reads != nullptr) (*reads)[AttrOr<std::string>(n, "var_name", "")].push_back({c, 0});
  }
  std::vector<OutputRef> results;
  for (const OutputRef& r : fn.results) {
    auto a = arg_of.find(r.node);
    results.push_back(a != arg_of.end() ? a->second : OutputRef{copy.at(r.node), r.index});
  }
  return results;
}

// Zeros shaped like variable `read` (a ReadVariableOp of some body), in `body`.
StatusOr<OutputRef> VariableZeros(NewBody& body, const Node& read) {
  ASSIGN_OR_RETURN(OutputRef r, body.b.Op("ReadVariableOp", {}, read.attrs()));
  return body.b.ZerosLike(r);
}

StatusOr<BodyGrads> DifferentiateBody(NewBody& body, const std::vector<OutputRef>& results,
                                      const std::vector<OutputRef>& seeds, const std::vector<OutputRef>& sources,
                                      const std::map<std::string, std::vector<OutputRef>>& reads,
                                      const std::map<std::string, const Node*>& vars) {
  GradientRequest request;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!IsFloating(TypeOf(results[i]).dtype)) continue;
    request.targets.push_back(results[i]);
    request.target_grads.push_back(seeds[i]);
  }
  request.sources = sources;
  std::vector<std::pair<size_t, size_t>> var_range;  // per var: [first, last) in request.sources
  for (const auto& [name, read] : vars) {
    const size_t first = request.sources.size();
    auto it = reads.find(name);
    if (it != reads.end()) request.sources.insert(request.sources.end(), it->second.begin(), it->second.end());
    var_range.emplace_back(first, request.sources.size());
  }
  ASSIGN_OR_RETURN(std::vector<std::optional<OutputRef>> grads, AddGradients(body.b, *body.graph, request));
  BodyGrads out;
  out.sources.assign(grads.begin(), grads.begin() + static_cast<long>(sources.size()));
  size_t k = 0;
  for (const auto& [name, read] : vars) {
    std::vector<OutputRef> parts;
    for (size_t i = var_range[k].first; i < var_range[k].second; ++i) {
      if (grads[i].has_value()) parts.push_back(*grads[i]);
    }
    auto nested = body.child.variable_grads.find(name);
    if (nested != body.child.variable_grads.end()) parts.insert(parts.end(), nested->second.begin(), nested->second.end());
    ASSIGN_OR_RETURN(std::optional<OutputRef> sum, SumParts(body.b, parts));
    out.variables.push_back(sum);
    ++k;
  }
  return out;
}

}  // namespace graphd::compiler::autodiff
