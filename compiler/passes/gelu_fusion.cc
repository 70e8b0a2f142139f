#include "compiler/passes/gelu_fusion.h"

#include <cmath>
#include <optional>
#include <vector>

#include "compiler/passes/fusion_scope.h"

namespace graphd::compiler::passes {
namespace {

const TensorType& TypeOf(OutputRef ref) { return ref.node->output(ref.index); }

bool Near(std::optional<float> v, double want) {
  return v.has_value() && std::abs(static_cast<double>(*v) - want) <= 1e-6 * want;
}

struct Match {
  OutputRef x;
  const Node* last = nullptr;  // the node whose output Gelu(x) replaces
  std::vector<const Node*> absorbed;
};

class Matcher {
 public:
  explicit Matcher(const FusionScope& scope) : s_(scope) {}

  // The GELU around Erf node `erf`, or nullopt.
  std::optional<Match> At(const Node& erf) const {
    if (erf.op_name() != "Erf" || erf.inputs().size() != 1 || erf.inputs()[0].index != 0 || !s_.Free(erf)) {
      return std::nullopt;
    }
    // The scaled input: Div(x, sqrt 2) or Mul(x, 1 / sqrt 2) (either side), read by the Erf alone.
    const Node& scaled = *erf.inputs()[0].node;
    if (!s_.Only(scaled, erf) || scaled.inputs().size() != 2) return std::nullopt;
    std::optional<OutputRef> x;
    if (scaled.Is(OpId::kDiv) && Near(ScalarConst(scaled.inputs()[1]), std::sqrt(2.0))) {
      x = scaled.inputs()[0];
    } else if (scaled.Is(OpId::kMul)) {
      for (int side = 0; side < 2 && !x.has_value(); ++side) {
        if (Near(ScalarConst(scaled.inputs()[side]), std::sqrt(0.5))) x = scaled.inputs()[1 - side];
      }
    }
    if (!x.has_value() || TypeOf(*x).dtype != DType::kFloat32 || !TypeOf(*x).shape.known_rank()) return std::nullopt;
    // 1 + Erf(...), read by one Mul.
    const Node* plus = User(erf, OpId::kAdd);
    if (plus == nullptr || !Near(ScalarConst(OtherInput(*plus, erf)), 1.0)) return std::nullopt;
    const Node* mul = User(*plus, OpId::kMul);
    if (mul == nullptr) return std::nullopt;
    const OutputRef factor = OtherInput(*mul, *plus);
    Match m{.x = *x, .last = nullptr, .absorbed = {&scaled, &erf, plus, mul}};
    if (factor == *x) {  // x * (1 + erf): then * 0.5
      const Node* half = User(*mul, OpId::kMul);
      if (half == nullptr || !Near(ScalarConst(OtherInput(*half, *mul)), 0.5)) return std::nullopt;
      m.last = half;
      m.absorbed.push_back(half);
    } else {  // (0.5 * x) * (1 + erf), the half read by this Mul alone
      const Node& h = *factor.node;
      if (factor.index != 0 || !h.Is(OpId::kMul) || h.inputs().size() != 2 || !s_.Only(h, *mul)) return std::nullopt;
      const bool x_first = h.inputs()[0] == *x && Near(ScalarConst(h.inputs()[1]), 0.5);
      const bool x_second = h.inputs()[1] == *x && Near(ScalarConst(h.inputs()[0]), 0.5);
      if (!x_first && !x_second) return std::nullopt;
      m.last = mul;
      m.absorbed.push_back(&h);
    }
    // Scalars of a higher rank would broadcast x: the result must be x's type.
    if (m.last->output(0).dtype != DType::kFloat32 || !(m.last->output(0).shape == TypeOf(*x).shape)) {
      return std::nullopt;
    }
    // The pattern's constants go with it when nothing else reads them.
    const size_t nodes = m.absorbed.size();
    for (size_t i = 0; i < nodes; ++i) {
      for (const OutputRef& in : m.absorbed[i]->inputs()) {
        if (in.node->Is(OpId::kConst) && s_.uses().count(*in.node) == 1 && s_.Free(*in.node)) m.absorbed.push_back(in.node);
      }
    }
    return m;
  }

 private:
  // The only user of `n`'s output 0 when it is a free binary `op` reading it once.
  const Node* User(const Node& n, OpId op) const {
    const Node* user = s_.uses().OnlyUser(n);
    if (user == nullptr || !user->Is(op) || user->inputs().size() != 2 || !s_.Free(*user)) return nullptr;
    const OutputRef me{&n, 0};
    if ((user->inputs()[0] == me) == (user->inputs()[1] == me)) return nullptr;
    return user;
  }

  // The input of binary `node` that is not `self`'s output 0 (User checked there is one).
  static OutputRef OtherInput(const Node& node, const Node& self) {
    return node.inputs()[0] == OutputRef{&self, 0} ? node.inputs()[1] : node.inputs()[0];
  }

  const FusionScope& s_;
};

}  // namespace

StatusOr<bool> GeluFusion::Run(FunctionBody& body) const {
  FusionScope scope(body);
  const Matcher matcher(scope);
  return scope.ForEachNode([&](const Node& erf) -> StatusOr<bool> {
    std::optional<Match> m = matcher.At(erf);
    if (!m.has_value()) return false;
    ASSIGN_OR_RETURN(const Node* gelu,
                     scope.Add({.name = FreshName(*body.graph, m->last->name() + "_" + std::string(kName)),
                                .op = "Gelu", .inputs = {m->x}, .attrs = {{"approximate", false}},
                                .device = m->last->device(), .range = m->last->range()},
                               *m->last));
    RETURN_IF_ERROR(scope.Replace(*m->last, {gelu, 0}, m->absorbed));
    return true;
  });
}

}  // namespace graphd::compiler::passes
