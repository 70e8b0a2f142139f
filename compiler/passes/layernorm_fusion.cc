#include "compiler/passes/layernorm_fusion.h"

#include <cmath>
#include <optional>
#include <vector>

#include "compiler/passes/fusion_scope.h"

namespace graphd::compiler::passes {
namespace {

const TensorType& TypeOf(OutputRef ref) { return ref.node->output(ref.index); }

const Tensor* ConstTensor(OutputRef ref) {
  if (!ref.node->Is(OpId::kConst)) return nullptr;
  auto it = ref.node->attrs().find("value");
  return it == ref.node->attrs().end() ? nullptr : std::get_if<Tensor>(&it->second);
}

// Whether `mean` is Mean(input, last axis, keep_dims = true) of a rank-known input.
bool MeanOverLastAxis(const Node& mean) {
  if (!mean.Is(OpId::kMean) || mean.inputs().size() != 1) return false;
  const PartialShape& in = TypeOf(mean.inputs()[0]).shape;
  if (!in.known_rank() || in.rank() < 1) return false;
  auto keep = mean.attrs().find("keep_dims");
  if (keep == mean.attrs().end() || std::get_if<bool>(&keep->second) == nullptr || !std::get<bool>(keep->second)) {
    return false;
  }
  auto axis = mean.attrs().find("axis");
  if (axis == mean.attrs().end()) return false;
  int64_t a;
  if (const int64_t* one = std::get_if<int64_t>(&axis->second)) {
    a = *one;
  } else if (const IntList* list = std::get_if<IntList>(&axis->second); list != nullptr && list->size() == 1) {
    a = (*list)[0];
  } else {
    return false;
  }
  return a == -1 || a == in.rank() - 1;
}

// The other input of binary `node` when one of its inputs is `self`.
std::optional<OutputRef> Other(const Node& node, const Node& self) {
  if (node.inputs().size() != 2) return std::nullopt;
  const OutputRef me{&self, 0};
  if (node.inputs()[0] == me && node.inputs()[1] != me) return node.inputs()[1];
  if (node.inputs()[1] == me && node.inputs()[0] != me) return node.inputs()[0];
  return std::nullopt;
}

// A float32 Const of shape [c], if `ref` is one.
bool IsChannelVector(OutputRef ref, int64_t c) {
  const Tensor* t = ConstTensor(ref);
  return t != nullptr && t->dtype() == DType::kFloat32 && t->shape().rank() == 1 && t->shape().dim(0) == c;
}

struct Match {
  OutputRef x, gamma, beta;   // gamma / beta: node null when absent
  float epsilon = 0;
  const Node* last = nullptr;  // the node whose output the fused node replaces
  std::vector<const Node*> absorbed;
};

class Matcher {
 public:
  explicit Matcher(const FusionScope& scope) : s_(scope) {}

  // The layer norm ending at Div `div`, or nullopt.
  std::optional<Match> At(const Node& div) const {
    if (!div.Is(OpId::kDiv) || div.inputs().size() != 2 || !Free(div)) return std::nullopt;
    const Node& d = *div.inputs()[0].node;
    const Node& s = *div.inputs()[1].node;
    if (div.inputs()[0].index != 0 || div.inputs()[1].index != 0) return std::nullopt;
    // d = Sub(x, Mean(x)), read by the Square and the Div only.
    if (!d.Is(OpId::kSub) || d.inputs().size() != 2 || !Free(d) || s_.uses().count(d) != 2) return std::nullopt;
    const OutputRef x = d.inputs()[0];
    const Node& m1 = *d.inputs()[1].node;
    if (d.inputs()[1].index != 0 || !MeanOverLastAxis(m1) || m1.inputs()[0] != x || !Only(m1, d)) {
      return std::nullopt;
    }
    const TensorType& xt = TypeOf(x);
    if (xt.dtype != DType::kFloat32 || !xt.shape.known_rank() || !(div.output(0).shape == xt.shape) ||
        !(d.output(0).shape == xt.shape)) {
      return std::nullopt;
    }
    // s = Sqrt(Add(Mean(Square(d)), eps)).
    if (s.op_name() != "Sqrt" || s.inputs().size() != 1 || !Only(s, div)) return std::nullopt;
    const Node& add = *s.inputs()[0].node;
    if (!add.Is(OpId::kAdd) || !Only(add, s)) return std::nullopt;
    std::optional<OutputRef> m2_ref, eps_ref;
    for (int side = 0; side < 2 && add.inputs().size() == 2; ++side) {
      if (add.inputs()[side].node->Is(OpId::kMean)) {
        m2_ref = add.inputs()[side];
        eps_ref = add.inputs()[1 - side];
      }
    }
    if (!m2_ref.has_value() || m2_ref->index != 0) return std::nullopt;
    const Node& m2 = *m2_ref->node;
    const Tensor* eps = ConstTensor(*eps_ref);
    if (!MeanOverLastAxis(m2) || !Only(m2, add) || eps == nullptr || eps->dtype() != DType::kFloat32 ||
        eps->num_elements() != 1 || !(eps->data<float>()[0] >= 0) || !std::isfinite(eps->data<float>()[0])) {
      return std::nullopt;
    }
    const Node& sq = *m2.inputs()[0].node;
    if (sq.op_name() != "Square" || sq.inputs().size() != 1 || sq.inputs()[0] != OutputRef{&d, 0} || !Only(sq, m2)) {
      return std::nullopt;
    }
    Match m{.x = x, .gamma = {}, .beta = {}, .epsilon = eps->data<float>()[0], .last = &div,
            .absorbed = {&m1, &d, &sq, &m2, &add, &s, &div}};
    if (s_.uses().count(*eps_ref->node) == 1) m.absorbed.push_back(eps_ref->node);
    Affine(xt.shape.dim(xt.shape.rank() - 1), m);
    return m;
  }

 private:
  bool Free(const Node& n) const { return s_.Free(n); }
  bool Only(const Node& n, const Node& user) const { return s_.Only(n, user); }

  // Takes `* gamma` and then `+ beta` after the normalisation, when they are there.
  void Affine(int64_t c, Match& m) const {
    if (c == kUnknownDim) return;
    const Node* mul = s_.uses().OnlyUser(*m.last);
    if (mul == nullptr || !mul->Is(OpId::kMul) || !Free(*mul)) return;
    std::optional<OutputRef> gamma = Other(*mul, *m.last);
    if (!gamma.has_value() || !IsChannelVector(*gamma, c) || !(mul->output(0).shape == m.last->output(0).shape)) {
      return;
    }
    m.gamma = *gamma;
    m.last = mul;
    m.absorbed.push_back(mul);
    const Node* add = s_.uses().OnlyUser(*mul);
    if (add == nullptr || !add->Is(OpId::kAdd) || !Free(*add)) return;
    std::optional<OutputRef> beta = Other(*add, *mul);
    if (!beta.has_value() || !IsChannelVector(*beta, c) || !(add->output(0).shape == mul->output(0).shape)) return;
    m.beta = *beta;
    m.last = add;
    m.absorbed.push_back(add);
  }

  const FusionScope& s_;
};

}  // namespace

StatusOr<bool> LayerNormFusion::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  FusionScope scope(body);
  const Matcher matcher(scope);
  return scope.ForEachNode([&](const Node& div) -> StatusOr<bool> {
    std::optional<Match> m = matcher.At(div);
    if (!m.has_value()) return false;
    std::vector<OutputRef> inputs{m->x};
    if (m->gamma.node == nullptr) {  // no affine: a scale of ones
      const PartialShape& xs = TypeOf(m->x).shape;
      const int64_t c = xs.dim(xs.rank() - 1);
      if (c == kUnknownDim) return false;
      const std::vector<float> values(c, 1.f);
      ASSIGN_OR_RETURN(Tensor ones, Tensor::FromVector<float>(Shape({c}), values));
      ASSIGN_OR_RETURN(const Node* one, scope.Add({.name = FreshName(g, div.name() + "/ones"), .op = "Const",
                                                   .attrs = {{"value", std::move(ones)}}, .device = div.device()},
                                                  div));
      inputs.push_back({one, 0});
    } else {
      inputs.push_back(m->gamma);
      if (m->beta.node != nullptr) inputs.push_back(m->beta);
    }
    ASSIGN_OR_RETURN(const Node* ln,
                     scope.Add({.name = FreshName(g, m->last->name() + "_" + std::string(kName)),
                                .op = "LayerNormalization", .inputs = std::move(inputs),
                                .attrs = {{"axis", int64_t{-1}}, {"epsilon", m->epsilon}},
                                .device = div.device(), .range = m->last->range()},
                               *m->last));
    RETURN_IF_ERROR(scope.Replace(*m->last, {ln, 0}, m->absorbed));
    return true;
  });
}

}  // namespace graphd::compiler::passes
