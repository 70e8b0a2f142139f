#include "compiler/import/gradients_import.h"

#include "absl/strings/str_cat.h"
#include "compiler/autodiff/gradients.h"

namespace graphd::compiler {
namespace {

int64_t IntAttr(const AttrMap& attrs, const std::string& key) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return -1;
  const int64_t* v = std::get_if<int64_t>(&it->second);
  return v != nullptr ? *v : -1;
}

}  // namespace

Status ImportGradients(const std::string& name, const std::vector<OutputRef>& inputs, const AttrMap& attrs,
                       Graph& graph, int max_nodes) {
  const int64_t num_ys = IntAttr(attrs, "num_ys");
  const int64_t num_grad_ys = IntAttr(attrs, "num_grad_ys");
  if (num_ys < 1 || (num_grad_ys != 0 && num_grad_ys != num_ys) ||
      static_cast<int64_t>(inputs.size()) != num_ys + num_grad_ys + 1) {
    return errors::WithNode(
        errors::InvalidArgument(absl::StrCat("node '", name, "' (Gradients) needs num_ys >= 1 ys, num_grad_ys (0 or ",
                                             "num_ys) seeds and one source; got ", inputs.size(),
                                             " inputs, num_ys ", num_ys, ", num_grad_ys ", num_grad_ys)),
        name);
  }
  autodiff::GradientRequest request;
  for (int64_t i = 0; i < num_ys; ++i) request.targets.push_back(inputs[i]);
  for (int64_t i = 0; i < num_grad_ys; ++i) request.target_grads.push_back(inputs[num_ys + i]);
  const OutputRef x = inputs.back();
  request.sources = {x};
  autodiff::GraphSink sink(graph, name + "/");
  autodiff::GradBuilder b(sink);
  const int before = graph.num_nodes();
  auto grads = autodiff::AddGradients(b, graph, request);
  Status status = grads.status();
  if (status.ok()) {
    OutputRef g = (*grads)[0].has_value() ? *(*grads)[0] : OutputRef{};
    if (!(*grads)[0].has_value()) {
      auto zeros = b.ZerosLike(x);
      status = zeros.status();
      if (zeros.ok()) g = *zeros;
    }
    if (status.ok()) status = graph.AddNode({.name = name, .op = "Identity", .inputs = {g}}).status();
  }
  if (status.ok() && graph.num_nodes() > max_nodes) {
    status = errors::ResourceExhausted(absl::StrCat("the gradients of '", name, "' would grow the graph to ",
                                                    graph.num_nodes(), " nodes; at most ", max_nodes, " are allowed"));
  }
  if (!status.ok()) {
    graph.Truncate(before);
    return errors::WithNode(status, name);
  }
  return absl::OkStatus();
}

}  // namespace graphd::compiler
