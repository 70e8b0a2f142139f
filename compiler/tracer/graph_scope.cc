#include "compiler/tracer/graph_scope.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "compiler/tracer/errors.h"

namespace graphd::compiler::tracer {
namespace {

// The identity of one output of a node (distinct per output index).
std::atomic<uint64_t> next_serial{1};

const void* KeyOf(const OutputRef& r) { return static_cast<const char*>(static_cast<const void*>(r.node)) + r.index; }

}  // namespace

GraphScope::GraphScope(GraphScope* parent, std::string name)
    : parent_(parent),
      serial_(next_serial.fetch_add(1, std::memory_order_relaxed)),
      name_(std::move(name)),
      graph_(std::make_unique<Graph>()),
      passes_(parent != nullptr ? parent->passes_ : nullptr),
      raw_bodies_(parent != nullptr ? parent->raw_bodies_ : std::make_shared<RawBodies>()),
      eager_lookup_(parent != nullptr ? parent->eager_lookup_ : nullptr),
      lookup_owner_(parent != nullptr ? parent->lookup_owner_ : nullptr),
      max_nodes_(parent != nullptr ? parent->max_nodes_ : kMaxNodes) {}

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
  if (graph_->num_nodes() >= max_nodes_) {
    return errors::WithPythonClass(
        errors::ResourceExhausted(absl::StrCat("a traced body holds at most ", max_nodes_,
                                               " nodes (a Python loop unrolled or gradients taken too many times?)")),
        "MemoryError");
  }
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
  if (t.symbolic() && t.scope == this && t.scope_serial == serial_) return t.ref;
  if (!t.symbolic() && eager_lookup_ != nullptr) {
    if (std::optional<OutputRef> r = (*eager_lookup_)(t)) {
      if (lookup_owner_ == this) return *r;
      TensorObj held;  // the tape's node for it, captured from the tape's scope
      held.dtype = t.dtype;
      held.shape = t.shape;
      held.scope = lookup_owner_;
      held.scope_serial = lookup_owner_->serial_;
      held.ref = *r;
      return Bring(held);
    }
  }
  if (!t.symbolic()) {
    // An eager value becomes a constant. Not deduplicated: a freed tensor's address
    // may be reused by another one.
    ASSIGN_OR_RETURN(const Node* c, Add("Const", "Const", {}, {{"value", *t.value}}));
    return OutputRef{c, 0};
  }
  bool reachable = false;
  for (const GraphScope* s = parent_; s != nullptr && !reachable; s = s->parent_) {
    reachable = s == t.scope && s->serial_ == t.scope_serial;
  }
  if (!reachable) {
    return PyError("ValueError",
                   "a tensor made inside a conditional branch, a loop body or another tf.function was used "
                   "outside it (InaccessibleTensorError): return it from that block as a variable instead of "
                   "keeping it in a Python object");
  }
  const void* key = KeyOf(t.ref);
  if (auto it = brought_.find(key); it != brought_.end()) return it->second;
  // Make sure the parent has it first (it may itself be a capture there).
  ASSIGN_OR_RETURN(OutputRef in_parent, parent_->Bring(t));
  // The parent's tensor may have been brought here already under its own name (a
  // nested body's captures are brought into the enclosing body by their outer refs).
  if (auto it = brought_.find(KeyOf(in_parent)); it != brought_.end()) {
    brought_[key] = it->second;
    return it->second;
  }
  ASSIGN_OR_RETURN(const Node* arg, Add("Arg", "capture", {}, {{"dtype", t.dtype}, {"shape", t.shape}}));
  auto outer = std::make_shared<TensorObj>();
  outer->dtype = t.dtype;
  outer->shape = t.shape;
  outer->scope = parent_;
  outer->scope_serial = parent_->serial_;
  outer->ref = in_parent;
  captures_.push_back({outer, arg});
  OutputRef here{arg, 0};
  brought_[key] = here;
  brought_[KeyOf(in_parent)] = here;
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

namespace {

// A copy of `graph` as a Function with the copies of `args` and `results`.
StatusOr<FunctionRef> CopyAsFunction(const std::string& name, const Graph& graph, const std::vector<const Node*>& args,
                                     const std::vector<OutputRef>& results) {
  auto copy = std::make_unique<Graph>(graph.ops());
  std::vector<const Node*> map(graph.num_nodes(), nullptr);
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node& n = *graph.node(id);
    NodeSpec spec{.name = n.name(), .op = n.op_name(), .attrs = n.attrs(), .device = n.device(), .range = n.range()};
    for (const OutputRef& in : n.inputs()) spec.inputs.push_back({map[in.node->id()], in.index});
    for (const Node* c : n.control_inputs()) spec.control_inputs.push_back(map[c->id()]);
    ASSIGN_OR_RETURN(map[id], copy->AddNode(std::move(spec)));
  }
  std::vector<const Node*> copy_args;
  for (const Node* a : args) copy_args.push_back(map[a->id()]);
  std::vector<OutputRef> copy_results;
  for (const OutputRef& r : results) copy_results.push_back({map[r.node->id()], r.index});
  return MakeFunction(name, std::move(copy), std::move(copy_args), std::move(copy_results));
}

}  // namespace

StatusOr<FunctionRef> GraphScope::Finish(std::vector<const Node*> args, std::vector<OutputRef> results) {
  if (passes_ == nullptr) return MakeFunction(name_, std::move(graph_), std::move(args), std::move(results));
  // Branches and loop bodies keep a copy as traced, for gradients.
  FunctionRef raw;
  if (parent_ != nullptr) {
    ASSIGN_OR_RETURN(raw, CopyAsFunction(name_, *graph_, args, results));
  }
  passes::FunctionBody body{.name = name_, .graph = std::move(graph_), .args = std::move(args),
                            .results = std::move(results)};
  RETURN_IF_ERROR(passes_->Run(body).status());
  ASSIGN_OR_RETURN(FunctionRef fn, std::move(body).ToFunction());
  if (raw != nullptr) (*raw_bodies_)[fn.get()] = raw;
  return fn;
}

FunctionRef GraphScope::RawBody(const Function& fn) const {
  auto it = raw_bodies_->find(&fn);
  return it != raw_bodies_->end() ? it->second : nullptr;
}

StatusOr<FunctionRef> GraphScope::FinishBody(std::string name, std::unique_ptr<Graph> graph,
                                             std::vector<const Node*> args, std::vector<OutputRef> results) const {
  if (passes_ == nullptr) return MakeFunction(std::move(name), std::move(graph), std::move(args), std::move(results));
  passes::FunctionBody body{.name = std::move(name), .graph = std::move(graph), .args = std::move(args),
                            .results = std::move(results)};
  RETURN_IF_ERROR(passes_->Run(body).status());
  return std::move(body).ToFunction();
}

}  // namespace graphd::compiler::tracer
