#include "compiler/autodiff/gradients.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace graphd::compiler::autodiff {

const GradRegistry& GradRegistry::Global() {
  static const GradRegistry* registry = [] {
    auto* r = new GradRegistry;
    RegisterMathGrads(*r);
    RegisterNnGrads(*r);
    RegisterArrayGrads(*r);
    RegisterControlFlowGrads(*r);
    RegisterConvGrads(*r);
    return r;
  }();
  return *registry;
}

namespace {

void Insert(std::map<std::string, std::optional<GradFn>, std::less<>>& fns, const std::string& op,
            std::optional<GradFn> fn) {
  if (!fns.emplace(op, std::move(fn)).second) {
    std::fprintf(stderr, "graphd: gradient of %s registered twice\n", op.c_str());
    std::abort();
  }
}

}  // namespace

void GradRegistry::Register(const std::string& op, GradFn fn) { Insert(fns_, op, std::move(fn)); }

void GradRegistry::RegisterNonDifferentiable(const std::string& op) { Insert(fns_, op, std::nullopt); }

const GradFn* GradRegistry::Find(absl::string_view op, bool* non_differentiable) const {
  *non_differentiable = false;
  auto it = fns_.find(op);
  if (it == fns_.end()) return nullptr;
  if (!it->second.has_value()) {
    *non_differentiable = true;
    return nullptr;
  }
  return &*it->second;
}

std::vector<std::string> GradRegistry::OpNames() const {
  std::vector<std::string> names;
  for (const auto& [name, fn] : fns_) names.push_back(name);
  return names;
}

namespace {

// Sum of the gradients that reached one output.
StatusOr<OutputRef> SumOf(GradBuilder& b, const std::vector<OutputRef>& parts) {
  OutputRef sum = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    ASSIGN_OR_RETURN(sum, b.Add(sum, parts[i]));
  }
  return sum;
}

bool Differentiable(OutputRef r) { return IsFloating(TypeOf(r).dtype); }

bool FunctionReadsAny(const Function& fn, const std::set<std::string>& variables);

bool BodiesReadAny(const Node& node, const std::set<std::string>& variables) {
  for (const auto& [name, value] : node.attrs()) {
    if (const FunctionRef* body = std::get_if<FunctionRef>(&value); body && *body) {
      if (FunctionReadsAny(**body, variables)) return true;
    }
  }
  return false;
}

bool FunctionReadsAny(const Function& fn, const std::set<std::string>& variables) {
  for (int id = 0; id < fn.graph->num_nodes(); ++id) {
    const Node& n = *fn.graph->node(id);
    if (n.op_name() == "ReadVariableOp") {
      auto it = n.attrs().find("var_name");
      if (it != n.attrs().end() && variables.contains(std::get<std::string>(it->second))) return true;
    }
    if (BodiesReadAny(n, variables)) return true;
  }
  return false;
}

}  // namespace

StatusOr<std::vector<std::optional<OutputRef>>> AddGradients(GradBuilder& b, const Graph& graph,
                                                             const GradientRequest& request) {
  const GradRegistry& registry = GradRegistry::Global();
  const int n = graph.num_nodes();
  auto recorded = [&](const Node& node) { return !request.recorded || request.recorded(node); };

  // Nodes whose outputs depend on a source through recorded nodes.
  absl::flat_hash_set<OutputRef> sources;
  for (const OutputRef& s : request.sources) {
    if (Differentiable(s)) sources.insert(s);
  }
  std::vector<bool> relevant(n, false);
  const GradEnv* env = b.env();
  for (int id = 0; id < n; ++id) {
    const Node& node = *graph.node(id);
    if (!recorded(node)) continue;
    // If and While nodes whose bodies read a source variable.
    if (env != nullptr && !env->variables.empty() && BodiesReadAny(node, env->variables)) {
      relevant[id] = true;
      continue;
    }
    for (const OutputRef& in : node.inputs()) {
      if (sources.contains(in) || (in.node->id() < n && relevant[in.node->id()])) {
        relevant[id] = true;
        break;
      }
    }
  }
  auto flows_into = [&](const OutputRef& in) {
    return Differentiable(in) && (sources.contains(in) || relevant[in.node->id()]);
  };

  absl::flat_hash_map<OutputRef, std::vector<OutputRef>> pending;
  for (size_t i = 0; i < request.targets.size(); ++i) {
    const OutputRef& t = request.targets[i];
    if (!Differentiable(t)) continue;
    const std::optional<OutputRef> seed = i < request.target_grads.size() ? request.target_grads[i] : std::nullopt;
    if (seed.has_value()) {
      pending[t].push_back(*seed);
    } else {
      ASSIGN_OR_RETURN(OutputRef ones, b.Op("OnesLike", {t}));
      pending[t].push_back(ones);
    }
  }

  for (int id = n - 1; id >= 0; --id) {
    const Node& node = *graph.node(id);
    if (!relevant[id]) continue;
    bool any = false;
    for (int o = 0; o < node.num_outputs() && !any; ++o) any = pending.contains(OutputRef{&node, o});
    if (!any) continue;
    bool non_differentiable = false;
    const GradFn* fn = registry.Find(node.op_name(), &non_differentiable);
    if (non_differentiable) continue;
    if (fn == nullptr) {
      return errors::WithLocation(errors::Unimplemented(absl::StrCat("no gradient is defined for op ", node.op_name(),
                                                             " (node '", node.name(), "')")),
                          node.range());
    }
    std::vector<OutputRef> dy;
    for (int o = 0; o < node.num_outputs(); ++o) {
      auto it = pending.find(OutputRef{&node, o});
      if (it != pending.end()) {
        ASSIGN_OR_RETURN(OutputRef sum, SumOf(b, it->second));
        dy.push_back(sum);
      } else {
        ASSIGN_OR_RETURN(OutputRef zero, b.ZerosLike(OutputRef{&node, o}));
        dy.push_back(zero);
      }
    }
    auto dx = (*fn)(b, node, dy);
    if (!dx.ok()) return errors::WithLocation(dx.status(), node.range());
    if (dx->size() != node.inputs().size()) {
      return errors::Internal(absl::StrCat("the gradient of ", node.op_name(), " gave ", dx->size(),
                                           " results for ", node.inputs().size(), " inputs"));
    }
    for (size_t i = 0; i < dx->size(); ++i) {
      const OutputRef& in = node.inputs()[i];
      if ((*dx)[i].has_value() && flows_into(in)) pending[in].push_back(*(*dx)[i]);
    }
  }

  std::vector<std::optional<OutputRef>> result;
  for (const OutputRef& s : request.sources) {
    auto it = pending.find(s);
    if (!Differentiable(s) || it == pending.end()) {
      result.push_back(std::nullopt);
      continue;
    }
    ASSIGN_OR_RETURN(OutputRef sum, SumOf(b, it->second));
    result.push_back(sum);
  }
  return result;
}

}  // namespace graphd::compiler::autodiff
