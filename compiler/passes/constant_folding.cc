#include "compiler/passes/constant_folding.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "compiler/passes/pass_util.h"
#include "core/logging.h"

namespace graphd::compiler::passes {
namespace {

bool IsConst(const Node& node) { return node.Is(OpId::kConst); }

// Bytes a tensor holds; strings count their characters too.
int64_t ContentBytes(const Tensor& t) {
  int64_t bytes = static_cast<int64_t>(t.bytes());
  if (t.dtype() == DType::kString && t.raw_data() != nullptr) {
    for (const std::string& s : t.flat<std::string>()) bytes += static_cast<int64_t>(s.size());
  }
  return bytes;
}

}  // namespace

bool ConstantFolding::Foldable(const Node& node, const std::vector<bool>& control_outputs) const {
  if (IsConst(node) || node.num_outputs() == 0 || IsPinned(node, control_outputs)) return false;
  for (const OutputRef& in : node.inputs()) {
    if (!IsConst(*in.node)) return false;
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    const TensorType& t = node.output(i);
    if (!t.shape.known_rank() || !t.shape.fully_defined()) return false;
    // num_elements cannot overflow (AddNode checked the shape), but times the element
    // size it can (2^62 floats): compare by division.
    const int64_t size = std::max<int64_t>(static_cast<int64_t>(DTypeSize(t.dtype)), 1);
    if (t.shape.num_elements() > max_output_bytes_ / size) return false;
  }
  return true;
}

StatusOr<std::vector<Tensor>> ConstantFolding::Evaluate(const OpRegistry& ops, const Node& node) const {
  // A function of the node alone, its Const inputs copied in.
  auto graph = std::make_unique<Graph>(ops);
  absl::flat_hash_map<const Node*, const Node*> copies;
  std::vector<OutputRef> inputs;
  for (const OutputRef& in : node.inputs()) {
    auto it = copies.find(in.node);
    if (it == copies.end()) {
      ASSIGN_OR_RETURN(const Node* c, graph->AddNode({.name = in.node->name(), .op = "Const",
                                                      .attrs = in.node->attrs()}));
      it = copies.emplace(in.node, c).first;
    }
    inputs.push_back({it->second, in.index});
  }
  ASSIGN_OR_RETURN(const Node* copy, graph->AddNode({.name = node.name(),
                                                     .op = node.op_name(),
                                                     .inputs = std::move(inputs),
                                                     .attrs = node.attrs(),
                                                     .device = node.device(),
                                                     .range = node.range()}));
  std::vector<OutputRef> results;
  for (int i = 0; i < copy->num_outputs(); ++i) results.push_back({copy, i});
  ASSIGN_OR_RETURN(FunctionRef fn, MakeFunction(absl::StrCat("fold/", node.name()), std::move(graph),
                                                std::vector<const Node*>{}, std::move(results)));
  ASSIGN_OR_RETURN(std::vector<Tensor> values, evaluator_.Evaluate(*fn));
  if (static_cast<int>(values.size()) != node.num_outputs()) {
    return errors::Internal("the evaluator returned the wrong number of values");
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    const TensorType& want = node.output(i);
    if (values[i].dtype() != want.dtype || !want.shape.IsCompatibleWith(values[i].shape())) {
      return errors::Internal(absl::StrCat("output ", i, " evaluated to ", values[i].DebugString(),
                                           ", not the inferred type"));
    }
    if (ContentBytes(values[i]) > max_output_bytes_) {
      return errors::ResourceExhausted("the folded value would be too large");
    }
  }
  return values;
}

StatusOr<bool> ConstantFolding::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const std::vector<bool> control_outputs = ControlOutputs(g);
  std::vector<bool> used(n, false);
  for (int id = 0; id < n; ++id) {
    for (const OutputRef& in : g.node(id)->inputs()) used[in.node->id()] = true;
  }
  for (const OutputRef& r : body.results) used[r.node->id()] = true;

  std::vector<bool> folded(n, false);
  std::vector<int> rank(n);  // a folded constant takes its node's place
  for (int id = 0; id < n; ++id) rank[id] = id;
  bool changed = false;
  // In id order, so a node whose inputs were just folded sees the new constants.
  for (int id = 0; id < n; ++id) {
    const Node& node = *g.node(id);
    if (!used[id] || !Foldable(node, control_outputs)) continue;
    auto values = Evaluate(g.ops(), node);
    if (!values.ok()) {
      GRAPHD_LOG_DEBUG("constant_folding: not folding '{}' ({}): {}", node.name(), node.op_name(),
                       std::string(values.status().message()));
      continue;
    }
    for (int i = 0; i < node.num_outputs(); ++i) {
      std::string base = node.num_outputs() == 1 ? absl::StrCat(node.name(), "/folded")
                                                 : absl::StrCat(node.name(), "/folded_", i);
      ASSIGN_OR_RETURN(const Node* c, g.AddNode({.name = FreshName(g, base),
                                                 .op = "Const",
                                                 .attrs = {{"value", std::move((*values)[i])}},
                                                 .device = node.device(),
                                                 .range = node.range()}));
      RETURN_IF_ERROR(body.ReplaceAllUses({&node, i}, {c, 0}).status());
      rank.push_back(id);
    }
    folded[id] = true;
    changed = true;
  }
  if (changed) {
    folded.resize(g.num_nodes(), false);
    RETURN_IF_ERROR(g.Compact(folded, &rank));  // also sorts the new constants before their uses
  }
  return changed;
}

}  // namespace graphd::compiler::passes
