#include "compiler/passes/verifier.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace graphd::compiler::passes {
namespace {

Status Broken(const Node& node, absl::string_view what) {
  return errors::WithNode(errors::Internal(absl::StrCat("node '", node.name(), "' (", node.op_name(),
                                                        "): ", what)),
                          node.name());
}

bool InGraph(const Graph& g, const Node* n) { return n != nullptr && g.FindNode(n->name()) == n; }

// Shapes that may describe the same tensor.
bool Compatible(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank()) return true;
  if (a.rank() != b.rank()) return false;
  for (int d = 0; d < a.rank(); ++d) {
    if (a.dim(d) != kUnknownDim && b.dim(d) != kUnknownDim && a.dim(d) != b.dim(d)) return false;
  }
  return true;
}

Status Reinfer(const Node& node) {
  std::vector<TensorType> types;
  std::vector<const Tensor*> values;
  for (const OutputRef& in : node.inputs()) {
    types.push_back(in.node->output(in.index));
    const Tensor* value = nullptr;
    if (in.node->Is(OpId::kConst)) {
      auto it = in.node->attrs().find("value");
      if (it != in.node->attrs().end()) value = std::get_if<Tensor>(&it->second);
    }
    values.push_back(value);
  }
  InferenceContext ctx(node.name(), node.op(), types, node.attrs(), values);
  if (node.op().infer) {
    Status s = node.op().infer(ctx);
    if (!s.ok()) return Broken(node, absl::StrCat("inference now fails: ", s.message()));
  }
  if (static_cast<int>(ctx.outputs().size()) != node.num_outputs()) {
    return Broken(node, absl::StrCat("inference now gives ", ctx.outputs().size(), " outputs, not ",
                                     node.num_outputs()));
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    const TensorType& now = ctx.outputs()[i];
    const TensorType& was = node.output(i);
    if (now.dtype != was.dtype || !Compatible(now.shape, was.shape)) {
      return Broken(node, absl::StrCat("output ", i, " was ", DTypeName(was.dtype), was.shape.ToString(),
                                       " but inference now gives ", DTypeName(now.dtype), now.shape.ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

Status VerifyBody(const FunctionBody& body) {
  if (body.graph == nullptr) return errors::Internal("the body has no graph");
  const Graph& g = *body.graph;
  int arg_nodes = 0;
  for (int id = 0; id < g.num_nodes(); ++id) {
    const Node& node = *g.node(id);
    if (node.id() != id) return Broken(node, absl::StrCat("has id ", node.id(), " at position ", id));
    if (g.FindNode(node.name()) != &node) return Broken(node, "its name does not resolve to it");
    for (const OutputRef& in : node.inputs()) {
      if (!InGraph(g, in.node) || in.node->id() >= id) {
        return Broken(node, "reads a node that is not an earlier node of the graph");
      }
      if (in.index < 0 || in.index >= in.node->num_outputs()) {
        return Broken(node, absl::StrCat("reads output ", in.index, " of '", in.node->name(), "'"));
      }
    }
    for (const Node* c : node.control_inputs()) {
      if (!InGraph(g, c) || c->id() >= id) return Broken(node, "has a control input that is not an earlier node");
    }
    RETURN_IF_ERROR(Reinfer(node));
    arg_nodes += node.Is(OpId::kArg);
  }
  absl::flat_hash_set<const Node*> args;
  for (const Node* a : body.args) {
    if (!InGraph(g, a) || !a->Is(OpId::kArg) || !args.insert(a).second) {
      return errors::Internal("the argument list is not the graph's Arg nodes, each once");
    }
  }
  if (static_cast<int>(args.size()) != arg_nodes) {
    return errors::Internal(absl::StrCat("the graph has ", arg_nodes, " Arg nodes but ", args.size(), " arguments"));
  }
  for (const OutputRef& r : body.results) {
    if (!InGraph(g, r.node) || r.index < 0 || r.index >= r.node->num_outputs()) {
      return errors::Internal("a result is not an output of the graph");
    }
  }
  return absl::OkStatus();
}

}  // namespace graphd::compiler::passes
