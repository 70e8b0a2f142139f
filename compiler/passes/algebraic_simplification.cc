#include "compiler/passes/algebraic_simplification.h"

#include <numeric>
#include <optional>

#include "compiler/passes/pass_util.h"

namespace graphd::compiler::passes {
namespace {

const TensorType& TypeOf(OutputRef ref) { return ref.node->output(ref.index); }

// The value of `ref` when it reads a Const.
const Tensor* ConstValue(OutputRef ref) {
  if (!ref.node->Is(OpId::kConst)) return nullptr;
  auto it = ref.node->attrs().find("value");
  return it == ref.node->attrs().end() ? nullptr : std::get_if<Tensor>(&it->second);
}

template <typename T>
bool AllEqualAs(const Tensor& t, double v) {
  for (T x : t.flat<T>()) {
    if (static_cast<double>(x) != v) return false;
  }
  return true;
}

// Whether `t` has elements and every one equals `v` (numbers of the common dtypes).
bool AllEqual(const Tensor& t, double v) {
  if (t.num_elements() == 0) return false;
  switch (t.dtype()) {
    case DType::kFloat32: return AllEqualAs<float>(t, v);
    case DType::kFloat64: return AllEqualAs<double>(t, v);
    case DType::kInt8: return AllEqualAs<int8_t>(t, v);
    case DType::kInt16: return AllEqualAs<int16_t>(t, v);
    case DType::kInt32: return AllEqualAs<int32_t>(t, v);
    case DType::kInt64: return AllEqualAs<int64_t>(t, v);
    case DType::kUInt8: return AllEqualAs<uint8_t>(t, v);
    case DType::kUInt16: return AllEqualAs<uint16_t>(t, v);
    case DType::kUInt32: return AllEqualAs<uint32_t>(t, v);
    case DType::kUInt64: return AllEqualAs<uint64_t>(t, v);
    default: return false;
  }
}

// Whether broadcasting a value of shape `c` against `x` leaves x's shape unchanged.
bool KeepsShape(const PartialShape& x, const Shape& c) {
  if (c.rank() == 0) return true;
  if (!x.known_rank() || c.rank() > x.rank()) return false;
  for (int i = 0; i < c.rank(); ++i) {
    const int64_t d = c.dim(i);
    if (d != 1 && d != x.dim(x.rank() - c.rank() + i)) return false;
  }
  return true;
}

// A Transpose's permutation (its perm, or the reversal when it has none and the rank
// is known).
std::optional<IntList> Perm(const Node& t) {
  auto it = t.attrs().find("perm");
  if (it != t.attrs().end()) {
    const IntList* p = std::get_if<IntList>(&it->second);
    return p == nullptr ? std::nullopt : std::optional<IntList>(*p);
  }
  const PartialShape& x = TypeOf(t.inputs()[0]).shape;
  if (!x.known_rank()) return std::nullopt;
  IntList p(x.rank());
  for (int i = 0; i < x.rank(); ++i) p[i] = x.rank() - 1 - i;
  return p;
}

// Whether `pad` is a Pad of one input whose paddings (an attribute) are all 0: torch
// exports AvgPool2d as such a Pad and an AveragePool, and the Pad copied the map
// (DenseNet-121's three transitions: 0.47 ms).
bool IsZeroPad(const Node& pad) {
  if (!pad.Is(OpId::kPad) || pad.inputs().size() != 1) return false;
  auto it = pad.attrs().find("paddings");
  const IntList* p = it == pad.attrs().end() ? nullptr : std::get_if<IntList>(&it->second);
  if (p == nullptr) return false;
  for (int64_t v : *p) {
    if (v != 0) return false;
  }
  return true;
}

bool IsIdentity(const IntList& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

class Simplifier {
 public:
  explicit Simplifier(FunctionBody& body)
      : body_(body), g_(*body.graph), n_(g_.num_nodes()), control_outputs_(ControlOutputs(g_)),
        is_result_(n_, false), remove_(n_, false), rank_(n_) {
    for (const OutputRef& r : body.results) is_result_[r.node->id()] = true;
    std::iota(rank_.begin(), rank_.end(), 0);
  }

  StatusOr<bool> Run() {
    bool changed = false;
    for (int id = 0; id < n_; ++id) {
      const Node& node = *g_.node(id);
      if (node.num_outputs() != 1 || node.inputs().empty() || Pinned(node)) continue;
      ASSIGN_OR_RETURN(std::optional<OutputRef> to, Bypass(node));
      if (!to.has_value() || (is_result_[id] && to->node->id() < n_)) continue;  // a result keeps its node
      const TensorType& was = node.output(0);
      const TensorType& now = TypeOf(*to);
      if (now.dtype != was.dtype || !(now.shape == was.shape)) {  // e.g. a rank only the node knew
        if (to->node->id() >= n_) remove_[to->node->id()] = true;
        continue;
      }
      RETURN_IF_ERROR(body_.ReplaceAllUses({&node, 0}, *to).status());
      remove_[id] = true;
      changed = true;
    }
    if (!changed) return false;
    RemoveOrphans();
    RETURN_IF_ERROR(g_.Compact(remove_, &rank_));
    return true;
  }

 private:
  bool Pinned(const Node& node) const { return node.id() < n_ && IsPinned(node, control_outputs_); }

  // What `node`'s output may be replaced with, when it computes an existing tensor (or
  // one a new node computes more cheaply).
  StatusOr<std::optional<OutputRef>> Bypass(const Node& node) {
    const OpId op = node.op().id;
    const OutputRef x = node.inputs()[0];
    if (op == OpId::kIdentity) return std::optional<OutputRef>(x);
    if (op == OpId::kCast && TypeOf(x).dtype == node.output(0).dtype) return std::optional<OutputRef>(x);
    if (op == OpId::kReshape && TypeOf(x).shape.known_rank() && TypeOf(x).shape == node.output(0).shape) {
      return std::optional<OutputRef>(x);
    }
    if (op == OpId::kNeg && x.node->Is(OpId::kNeg) && !Pinned(*x.node)) {
      return std::optional<OutputRef>(x.node->inputs()[0]);
    }
    if (op == OpId::kTranspose) return Transpose(node);
    if (IsZeroPad(node) && TypeOf(x).shape.known_rank() && TypeOf(x).shape == node.output(0).shape &&
        TypeOf(x).dtype == node.output(0).dtype) {
      return std::optional<OutputRef>(x);
    }
    if (node.op_name() == "Pow" && node.inputs().size() == 2) return Square(node);
    if ((op == OpId::kAdd || op == OpId::kSub || op == OpId::kMul || op == OpId::kDiv) && node.inputs().size() == 2) {
      const double neutral = op == OpId::kAdd || op == OpId::kSub ? 0.0 : 1.0;
      const bool commutes = op == OpId::kAdd || op == OpId::kMul;
      for (int side = 1; side >= 0; --side) {
        if (side == 0 && !commutes) break;
        const Tensor* c = ConstValue(node.inputs()[side]);
        const OutputRef y = node.inputs()[1 - side];
        if (c != nullptr && TypeOf(y).dtype == c->dtype() && KeepsShape(TypeOf(y).shape, c->shape()) &&
            AllEqual(*c, neutral)) {
          return std::optional<OutputRef>(y);
        }
      }
    }
    return std::optional<OutputRef>();
  }

  StatusOr<std::optional<OutputRef>> Transpose(const Node& node) {
    std::optional<IntList> outer = Perm(node);
    if (!outer.has_value()) return std::optional<OutputRef>();
    const OutputRef x = node.inputs()[0];
    if (IsIdentity(*outer)) return std::optional<OutputRef>(x);
    if (!x.node->Is(OpId::kTranspose) || Pinned(*x.node)) return std::optional<OutputRef>();
    std::optional<IntList> inner = Perm(*x.node);
    if (!inner.has_value() || inner->size() != outer->size()) return std::optional<OutputRef>();
    IntList q(outer->size());
    for (size_t i = 0; i < q.size(); ++i) q[i] = (*inner)[(*outer)[i]];
    const OutputRef source = x.node->inputs()[0];
    if (IsIdentity(q)) return std::optional<OutputRef>(source);
    AttrMap attrs = node.attrs();
    attrs["perm"] = q;
    return Added(node, "composed", "Transpose", {source}, std::move(attrs));
  }

  // Pow(x, 2) of floating x as Square(x): the same value (x * x, rounded once), with
  // no pow per element, and an op elementwise fusion takes (LayerNorm's variance).
  StatusOr<std::optional<OutputRef>> Square(const Node& node) {
    const OutputRef x = node.inputs()[0];
    const Tensor* c = ConstValue(node.inputs()[1]);
    const DType dtype = TypeOf(x).dtype;
    if (c == nullptr || c->dtype() != dtype || (dtype != DType::kFloat32 && dtype != DType::kFloat64) ||
        !KeepsShape(TypeOf(x).shape, c->shape()) || !AllEqual(*c, 2.0)) {
      return std::optional<OutputRef>();
    }
    return Added(node, "square", "Square", {x}, {});
  }

  // A new node ("<node>/<suffix>") computing what `node` does, from `inputs`.
  StatusOr<std::optional<OutputRef>> Added(const Node& node, const std::string& suffix, const std::string& op,
                                           std::vector<OutputRef> inputs, AttrMap attrs) {
    ASSIGN_OR_RETURN(const Node* t, g_.AddNode({.name = FreshName(g_, node.name() + "/" + suffix), .op = op,
                                                .inputs = std::move(inputs), .attrs = std::move(attrs),
                                                .device = node.device(), .range = node.range()}));
    rank_.push_back(node.id());
    remove_.push_back(false);
    is_result_.push_back(false);
    return std::optional<OutputRef>(OutputRef{t, 0});
  }

  // Removes the nodes that the bypassed ones alone read, transitively.
  void RemoveOrphans() {
    std::vector<int> uses(g_.num_nodes(), 0);
    for (int id = 0; id < g_.num_nodes(); ++id) {
      if (remove_[id]) continue;
      for (const OutputRef& in : g_.node(id)->inputs()) ++uses[in.node->id()];
    }
    for (const OutputRef& r : body_.results) ++uses[r.node->id()];
    std::vector<const Node*> stack;
    for (int id = 0; id < g_.num_nodes(); ++id) {
      if (remove_[id]) {
        for (const OutputRef& in : g_.node(id)->inputs()) stack.push_back(in.node);
      }
    }
    while (!stack.empty()) {
      const Node* node = stack.back();
      stack.pop_back();
      if (remove_[node->id()] || uses[node->id()] > 0 || Pinned(*node)) continue;
      remove_[node->id()] = true;
      for (const OutputRef& in : node->inputs()) {
        --uses[in.node->id()];
        stack.push_back(in.node);
      }
    }
  }

  FunctionBody& body_;
  Graph& g_;
  const int n_;
  const std::vector<bool> control_outputs_;
  std::vector<bool> is_result_;
  std::vector<bool> remove_;
  std::vector<int> rank_;
};

}  // namespace

StatusOr<bool> AlgebraicSimplification::Run(FunctionBody& body) const { return Simplifier(body).Run(); }

}  // namespace graphd::compiler::passes
