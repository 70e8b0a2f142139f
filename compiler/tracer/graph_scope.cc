#include "compiler/tracer/graph_scope.h"

#include "absl/strings/str_cat.h"

namespace graphd::compiler::tracer {

GraphScope::GraphScope(GraphScope* parent, std::string name)
    : parent_(parent),
      name_(std::move(name)),
      graph_(std::make_unique<Graph>()),
      passes_(parent != nullptr ? parent->passes_ : nullptr) {}

std::string GraphScope::UniqueName(const std::string& base) {
  std::string clean = base.empty() ? "op" : base;
  int& count = name_counts_[clean];
  std::string name = count == 0 ? clean : absl::StrCat(clean, "_", count);
  ++count;
  while (graph_->FindNode(name) != nullptr) name = absl::StrCat(clean, "_", count++);
  return name;
}

StatusOr<const Node*> GraphScope::Add(const std::string& op, const std::string& base, std::vector<OutputRef> inputs,
                                      AttrMap attrs, bool stateful, SourceRange range) {
  NodeSpec spec{.name = UniqueName(base), .op = op, .inputs = std::move(inputs), .attrs = std::move(attrs),
                .range = std::move(range)};
  if (stateful && last_stateful_ != nullptr) spec.control_inputs.push_back(last_stateful_);
  ASSIGN_OR_RETURN(const Node* node, graph_->AddNode(std::move(spec)));
  if (stateful) last_stateful_ = node;
  return node;
}

StatusOr<const Node*> GraphScope::NewArg(const std::string& base, DType dtype, const PartialShape& shape) {
  ASSIGN_OR_RETURN(const Node* arg, Add("Arg", base, {}, {{"dtype", dtype}, {"shape", shape}}));
  args_.push_back(arg);
  return arg;
}

StatusOr<OutputRef> GraphScope::Bring(const TensorObj& t) {
  if (t.symbolic() && t.scope == this) return t.ref;
  if (!t.symbolic()) {
    // An eager value becomes a constant. Not deduplicated: a freed tensor's address
    // may be reused by another one.
    ASSIGN_OR_RETURN(const Node* c, Add("Const", "Const", {}, {{"value", *t.value}}));
    return OutputRef{c, 0};
  }
  const void* key = t.symbolic() ? static_cast<const void*>(t.ref.node) : static_cast<const void*>(&t);
  if (t.symbolic()) key = static_cast<const char*>(key) + t.ref.index;  // distinct per output
  if (auto it = brought_.find(key); it != brought_.end()) return it->second;
  OutputRef here;
  if (!t.symbolic()) {
    ASSIGN_OR_RETURN(const Node* c, Add("Const", "Const", {}, {{"value", *t.value}}));
    here = {c, 0};
  } else {
    if (parent_ == nullptr) {
      return errors::Internal("a tensor from another trace was used here (tensors cannot leave the function that made them)");
    }
    // Make sure the parent has it first (it may itself be a capture there).
    ASSIGN_OR_RETURN(OutputRef in_parent, parent_->Bring(t));
    ASSIGN_OR_RETURN(const Node* arg, Add("Arg", "capture", {}, {{"dtype", t.dtype}, {"shape", t.shape}}));
    auto outer = std::make_shared<TensorObj>();
    outer->dtype = t.dtype;
    outer->shape = t.shape;
    outer->scope = parent_;
    outer->ref = in_parent;
    captures_.push_back({outer, arg});
    here = {arg, 0};
  }
  brought_[key] = here;
  return here;
}

std::vector<const Node*> GraphScope::ArgsInOrder() const {
  std::vector<const Node*> out = args_;
  for (const Capture& c : captures_) out.push_back(c.arg);
  return out;
}

StatusOr<FunctionRef> GraphScope::Finish(std::vector<OutputRef> results) {
  return Finish(ArgsInOrder(), std::move(results));
}

StatusOr<FunctionRef> GraphScope::Finish(std::vector<const Node*> args, std::vector<OutputRef> results) {
  if (passes_ == nullptr) return MakeFunction(name_, std::move(graph_), std::move(args), std::move(results));
  passes::FunctionBody body{.name = name_, .graph = std::move(graph_), .args = std::move(args),
                            .results = std::move(results)};
  RETURN_IF_ERROR(passes_->Run(body).status());
  return std::move(body).ToFunction();
}

}  // namespace graphd::compiler::tracer
