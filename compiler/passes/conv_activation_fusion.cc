#include "compiler/passes/conv_activation_fusion.h"

#include <cmath>
#include <limits>
#include <optional>

#include "compiler/passes/node_rewrite.h"
#include "compiler/passes/output_uses.h"
#include "compiler/passes/pass_util.h"

namespace graphd::compiler::passes {
namespace {

// The single user of `node`'s output 0, when that is its only use and the user reads
// it as input 0 (uses of other outputs are not counted: ConvND has one output).
const Node* OnlyUser(const OutputUses& u, const Node& node) {
  const Node* user = u.OnlyUser(node);
  if (user == nullptr || user->inputs().empty() || user->inputs()[0] != OutputRef{&node, 0}) return nullptr;
  return user;
}

// The gate of x * gate(x): "HardSwish" for HardSigmoid with alpha 1/6 and beta 0.5,
// "Swish" for Sigmoid; "" otherwise.
std::string GatedActivation(const Node& gate) {
  if (gate.op_name() == "Sigmoid") return "Swish";
  if (gate.op_name() != "HardSigmoid") return "";
  auto attr = [&](const char* name) -> std::optional<double> {
    auto it = gate.attrs().find(name);
    if (it == gate.attrs().end() || !std::holds_alternative<float>(it->second)) return std::nullopt;
    return std::get<float>(it->second);
  };
  const std::optional<double> alpha = attr("alpha"), beta = attr("beta");
  if (!alpha || !beta || std::abs(*alpha - 1.0 / 6) > 1e-6 || *beta != 0.5) return "";
  return "HardSwish";
}

// The Mul of `conv` * gate(conv) (GatedActivation, named in `*activation`) when those
// two are conv's only users and the gate's only use is the Mul; `*hs` gets the gate.
const Node* GatedOf(const Graph& g, const OutputUses& u, const Node& conv, const std::vector<bool>& control_outputs,
                    const Node** hs, std::string* activation) {
  if (u.count(conv) != 2) return nullptr;
  const OutputRef c{&conv, 0};
  const Node* sig = nullptr;
  const Node* mul = nullptr;
  for (int id = 0; id < g.num_nodes() && (sig == nullptr || mul == nullptr); ++id) {
    const Node* user = g.node(id);
    if (user == nullptr) continue;
    if (user->inputs().size() == 1 && user->inputs()[0] == c && !GatedActivation(*user).empty()) sig = user;
    if (user->Is(OpId::kMul) && user->inputs().size() == 2) {
      for (const OutputRef& in : user->inputs()) {
        if (in == c) mul = user;
      }
    }
  }
  if (sig == nullptr || mul == nullptr || IsPinned(*sig, control_outputs) ||
      IsPinned(*mul, control_outputs) || u.OnlyUser(*sig) != mul) {
    return nullptr;
  }
  const OutputRef s{sig, 0};
  const auto& in = mul->inputs();
  if (!((in[0] == c && in[1] == s) || (in[0] == s && in[1] == c))) return nullptr;
  *hs = sig;
  *activation = GatedActivation(*sig);
  return mul;
}

}  // namespace

StatusOr<bool> ConvActivationFusion::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const std::vector<bool> control_outputs = ControlOutputs(g);
  const OutputUses uses(body);
  NodeRewrite rewrite(g);
  bool changed = false;
  for (int id = 0; id < n; ++id) {
    const Node& conv = *g.node(id);
    if (!conv.Is(OpId::kConvND) || conv.output(0).dtype != DType::kFloat32 || conv.attrs().contains("activation") ||
        IsPinned(conv, control_outputs)) {
      continue;
    }
    AttrMap fused = conv.attrs();
    const Node* hs = nullptr;
    std::string gated;
    if (const Node* mul = gated_ ? GatedOf(g, uses, conv, control_outputs, &hs, &gated) : nullptr; mul != nullptr) {
      fused["activation"] = gated;
      if (!(mul->output(0).shape == conv.output(0).shape) || mul->output(0).dtype != conv.output(0).dtype) continue;
      ASSIGN_OR_RETURN(const Node* replacement,
                       g.AddNode({.name = FreshName(g, conv.name() + "_" + std::string(kName)), .op = "ConvND",
                                  .inputs = conv.inputs(), .attrs = std::move(fused), .device = conv.device()}));
      RETURN_IF_ERROR(body.ReplaceAllUses({mul, 0}, {replacement, 0}).status());
      rewrite.Added(*mul);
      for (const Node* gone : {&conv, hs, mul}) rewrite.Remove(*gone);
      changed = true;
      continue;
    }
    const Node* act = OnlyUser(uses, conv);
    if (act == nullptr || IsPinned(*act, control_outputs)) continue;
    const Node* last = act;  // the node whose output the fused conv replaces
    std::vector<const Node*> absorbed{act};
    if (act->Is(OpId::kRelu) && act->inputs().size() == 1) {
      fused["activation"] = std::string("Relu");
    } else if (act->Is(OpId::kMaximum) && act->inputs().size() == 2) {
      std::optional<double> lo = ScalarConst(act->inputs()[1]);
      if (!lo.has_value()) continue;
      float hi = std::numeric_limits<float>::infinity();
      const Node* min = OnlyUser(uses, *act);
      if (min != nullptr && min->Is(OpId::kMinimum) && min->inputs().size() == 2 && !IsPinned(*min, control_outputs)) {
        std::optional<double> h = ScalarConst(min->inputs()[1]);
        if (h.has_value() && *h >= *lo) {
          hi = static_cast<float>(*h);
          last = min;
          absorbed.push_back(min);
        }
      }
      fused["activation"] = std::string("Clip");
      fused["clip_min"] = static_cast<float>(*lo);
      fused["clip_max"] = hi;
    } else {
      continue;
    }
    // Only same-shaped results (no broadcasting by the activation's other input).
    if (last->output(0).dtype != conv.output(0).dtype || !(last->output(0).shape == conv.output(0).shape)) continue;
    ASSIGN_OR_RETURN(const Node* replacement,
                     g.AddNode({.name = FreshName(g, conv.name() + "_" + std::string(kName)), .op = "ConvND",
                                .inputs = conv.inputs(), .attrs = std::move(fused), .device = conv.device()}));
    RETURN_IF_ERROR(body.ReplaceAllUses({last, 0}, {replacement, 0}).status());
    rewrite.Added(*last);
    rewrite.Remove(conv);
    for (const Node* a : absorbed) rewrite.Remove(*a);
    changed = true;
  }
  if (changed) RETURN_IF_ERROR(rewrite.Apply(g));
  return changed;
}

}  // namespace graphd::compiler::passes
