#include "compiler/passes/spec_body.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace graphd::compiler::passes {
namespace {

class Copier {
 public:
  explicit Copier(const ExecutionSpec& spec) : spec_(spec), graph_(std::make_unique<Graph>()) {
    for (const OutputRef& f : spec.feeds) fed_.insert(f);
    for (const Node* node : spec.nodes) {
      in_spec_.insert(node);
      if (!Skipped(*node)) names_.insert(node->name());
      for (int i = 0; i < static_cast<int>(node->inputs().size()); ++i) {
        if (node->op().IsRefInput(i)) names_.insert(node->inputs()[i].node->name());
      }
    }
  }

  StatusOr<SpecBody> Copy(std::string name) && {
    SpecBody out;
    for (size_t i = 0; i < spec_.feeds.size(); ++i) {
      const OutputRef& feed = spec_.feeds[i];
      const TensorType& type = feed.node->output(feed.index);
      ASSIGN_OR_RETURN(
          const Node* arg,
          graph_->AddNode(
              {.name = ArgName(feed),
               .op = "Arg",
               .attrs = {{"index", static_cast<int64_t>(i)}, {"dtype", type.dtype}, {"shape", type.shape}}}));
      out.body.args.push_back(arg);
      feeds_[feed] = OutputRef{arg, 0};
    }
    for (const Node* node : spec_.nodes) {
      if (Skipped(*node)) continue;
      RETURN_IF_ERROR(CopyNode(*node, &out.not_run));
    }
    for (const OutputRef& fetch : spec_.fetches) {
      ASSIGN_OR_RETURN(OutputRef ref, Map(fetch));
      out.body.results.push_back(ref);
    }
    out.body.name = std::move(name);
    out.body.graph = std::move(graph_);
    return out;
  }

 private:
  // A fed Placeholder or Arg: its Arg replaces it. Other fed nodes a run includes
  // (a control input needs them) are copied and run, their outputs unused.
  bool Skipped(const Node& node) const {
    if (!node.Is(OpId::kPlaceholder) && !node.Is(OpId::kArg)) return false;
    for (int o = 0; o < node.num_outputs(); ++o) {
      if (!fed_.contains(OutputRef{&node, o})) return false;
    }
    return node.num_outputs() > 0;
  }

  // The fed node's name when that node is not copied and the name is free, else a
  // fresh one.
  std::string ArgName(const OutputRef& feed) {
    std::string base = feed.index == 0 ? feed.node->name() : absl::StrCat(feed.node->name(), "_", feed.index);
    std::string name = base;
    for (int k = 1; names_.contains(name); ++k) name = absl::StrCat(base, "_feed", k);
    names_.insert(name);
    return name;
  }

  StatusOr<OutputRef> Map(const OutputRef& ref) const {
    if (auto it = feeds_.find(ref); it != feeds_.end()) return it->second;
    auto it = copied_.find(ref.node);
    if (it == copied_.end()) {
      return errors::Internal(absl::StrCat("node '", ref.node->name(), "' is read but not part of the run"));
    }
    return OutputRef{it->second, ref.index};
  }

  Status CopyNode(const Node& node, absl::flat_hash_set<std::string>* not_run) {
    NodeSpec copy{.name = node.name(),
                  .op = node.op_name(),
                  .attrs = node.attrs(),
                  .device = node.device(),
                  .range = node.range()};
    for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
      const OutputRef& in = node.inputs()[i];
      if (node.op().IsRefInput(i) && !copied_.contains(in.node) && !in_spec_.contains(in.node)) {
        // A variable only written here: in the graph (ref inputs must name it), not run.
        RETURN_IF_ERROR(CopyNode(*in.node, not_run));
        not_run->insert(in.node->name());
      }
      ASSIGN_OR_RETURN(OutputRef mapped, Map(in));
      copy.inputs.push_back(mapped);
    }
    for (const Node* c : node.control_inputs()) {
      if (auto it = copied_.find(c); it != copied_.end()) copy.control_inputs.push_back(it->second);
    }
    ASSIGN_OR_RETURN(const Node* added, graph_->AddNode(std::move(copy)));
    copied_[&node] = added;
    return absl::OkStatus();
  }

  const ExecutionSpec& spec_;
  std::unique_ptr<Graph> graph_;
  absl::flat_hash_set<OutputRef> fed_;
  absl::flat_hash_set<const Node*> in_spec_;
  absl::flat_hash_set<std::string> names_;  // names the copy uses or will use
  absl::flat_hash_map<OutputRef, OutputRef> feeds_;
  absl::flat_hash_map<const Node*, const Node*> copied_;
};

}  // namespace

StatusOr<SpecBody> BodyFromSpec(std::string name, const ExecutionSpec& spec) {
  return Copier(spec).Copy(std::move(name));
}

ExecutionSpec SpecWithout(const Function& function, const absl::flat_hash_set<std::string>& not_run) {
  ExecutionSpec spec = SpecForFunction(function);
  if (!not_run.empty()) {
    std::erase_if(spec.nodes, [&](const Node* node) { return not_run.contains(node->name()); });
  }
  return spec;
}

StatusOr<FunctionRef> OptimizeFunction(const Function& function, const Pipeline& pipeline) {
  ASSIGN_OR_RETURN(SpecBody copy, BodyFromSpec(function.name, SpecForFunction(function)));
  RETURN_IF_ERROR(pipeline.Run(copy.body).status());
  return std::move(copy.body).ToFunction();
}

}  // namespace graphd::compiler::passes
