#include "compiler/passes/matmul_fusion.h"

#include <cmath>
#include <limits>
#include <optional>

#include "compiler/passes/output_uses.h"
#include "compiler/passes/node_rewrite.h"
#include "compiler/passes/pass_util.h"
#include "core/graph/node_attr.h"

namespace graphd::compiler::passes {
namespace {


// What fusing into one MatMul changes.
struct Fusion {
  std::vector<OutputRef> inputs;
  AttrMap attrs;
  const Node* last;                   // the node whose output the fused MatMul replaces
  std::vector<const Node*> absorbed;  // nodes that go with the original MatMul
  const Node* reshape = nullptr;      // a Reshape the bias or activation was behind: redone after the fused MatMul
};

class Fuser {
 public:
  Fuser(const FunctionBody& body, const std::vector<bool>& control_outputs, const NodeRewrite& rewrite, bool gelu)
      : uses_(body), control_outputs_(control_outputs), rewrite_(rewrite), gelu_(gelu) {}

  // The fusion for `mm`, or nullopt when nothing changes.
  std::optional<Fusion> Plan(const Node& mm) const {
    if (!mm.Is(OpId::kMatMul) || mm.output(0).dtype != DType::kFloat32 || IsPinned(mm, control_outputs_)) {
      return std::nullopt;
    }
    Fusion f{.inputs = mm.inputs(), .attrs = mm.attrs(), .last = &mm, .absorbed = {}};
    bool changed = false;
    if (f.inputs.size() == 2 && !f.attrs.contains("activation")) changed |= AddBias(mm, f);
    if (!f.attrs.contains("activation")) changed |= AddActivation(f);
    if (!f.attrs.contains("constant_weights") && mm.inputs()[1].node->Is(OpId::kConst)) {
      f.attrs["constant_weights"] = true;
      changed = true;
    }
    if (!changed) return std::nullopt;
    return f;
  }

 private:
  // A node the fusion may take over: the only user of `producer`, not pinned, not
  // already taken by another fusion.
  const Node* Absorbable(const Node& producer) const {
    const Node* user = uses_.OnlyUser(producer);
    if (user == nullptr || rewrite_.removed(*user) || IsPinned(*user, control_outputs_)) return nullptr;
    return user;
  }

  bool AddBias(const Node& mm, Fusion& f) const {
    const PartialShape& out = mm.output(0).shape;
    if (!out.known_rank() || out.rank() != 2 || out.dim(1) == kUnknownDim) return false;
    const int64_t n = out.dim(1);
    const Node* add = Absorbable(mm);
    const Node* reshape = nullptr;
    if (add != nullptr && add->Is(OpId::kReshape) && add->inputs()[0] == OutputRef{&mm, 0}) {
      const PartialShape& rs = add->output(0).shape;
      if (!rs.known_rank() || rs.rank() < 1 || rs.dim(rs.rank() - 1) != n) return false;
      reshape = add;
      add = Absorbable(*reshape);
    }
    const Node& producer = reshape != nullptr ? *reshape : mm;
    if (add == nullptr || !add->Is(OpId::kAdd) || add->inputs().size() != 2) return false;
    const OutputRef self{&producer, 0};
    const OutputRef c = add->inputs()[0] == self ? add->inputs()[1] : add->inputs()[0];
    if (c == self || rewrite_.removed(*c.node)) return false;
    const TensorType& ct = c.node->output(c.index);
    const PartialShape& result = producer.output(0).shape;
    if (ct.dtype != DType::kFloat32 || !ct.shape.known_rank() || !(add->output(0).shape == result)) return false;
    // [n], or [1, ..., 1, n] of at most the result's rank ([1, n] for the MatMul itself).
    const PartialShape& cs = ct.shape;
    bool row = cs.rank() >= 1 && cs.rank() <= result.rank() && cs.dim(cs.rank() - 1) == n;
    for (int d = 0; row && d + 1 < cs.rank(); ++d) row = cs.dim(d) == 1;
    if (!row) return false;
    if (cs.rank() > 2) return false;  // the MatMul takes [n] or [1, n]
    f.inputs.push_back(c);
    f.last = add;
    f.absorbed.push_back(add);
    if (reshape != nullptr) {
      f.reshape = reshape;
      f.absorbed.push_back(reshape);
    }
    return true;
  }

  bool AddActivation(Fusion& f) const {
    const Node* act = Absorbable(*f.last);
    // With no bias, the importer's Reshape back to [b, s, n] may sit between the
    // MatMul and its activation (a bias of zeros went as Add(x, 0)): elementwise, the
    // activation goes into the MatMul all the same and the Reshape is redone after.
    const Node* reshape = nullptr;
    if (f.reshape == nullptr && act != nullptr && act->Is(OpId::kReshape) && act->inputs()[0] == OutputRef{f.last, 0}) {
      reshape = act;
      act = Absorbable(*reshape);
    }
    const Node* producer = reshape != nullptr ? reshape : f.last;
    if (act == nullptr || act->inputs().empty() || act->inputs()[0] != OutputRef{producer, 0}) return false;
    const Node* last = act;
    std::vector<const Node*> taken{act};
    if (act->Is(OpId::kRelu) && act->inputs().size() == 1) {
      f.attrs["activation"] = std::string("Relu");
    } else if (gelu_ && act->op_name() == "Gelu" && act->inputs().size() == 1 &&
               !AttrOr<bool>(*act, "approximate", false)) {
      f.attrs["activation"] = std::string("Gelu");
    } else if (act->Is(OpId::kMaximum) && act->inputs().size() == 2) {
      std::optional<float> lo = ScalarConst(act->inputs()[1]);
      if (!lo.has_value() || std::isnan(*lo)) return false;
      float hi = std::numeric_limits<float>::infinity();
      const Node* min = Absorbable(*act);
      if (min != nullptr && min->Is(OpId::kMinimum) && min->inputs().size() == 2 &&
          min->inputs()[0] == OutputRef{act, 0}) {
        std::optional<float> h = ScalarConst(min->inputs()[1]);
        if (h.has_value() && *h >= *lo) {
          hi = *h;
          last = min;
          taken.push_back(min);
        }
      }
      f.attrs["activation"] = std::string("Clip");
      f.attrs["clip_min"] = *lo;
      f.attrs["clip_max"] = hi;
    } else {
      return false;
    }
    // Only same-typed results (no broadcasting by the activation's other input).
    if (last->output(0).dtype != producer->output(0).dtype ||
        !(last->output(0).shape == producer->output(0).shape)) {
      f.attrs.erase("activation");
      f.attrs.erase("clip_min");
      f.attrs.erase("clip_max");
      return false;
    }
    f.last = last;
    f.absorbed.insert(f.absorbed.end(), taken.begin(), taken.end());
    if (reshape != nullptr) {
      f.reshape = reshape;
      f.absorbed.push_back(reshape);
    }
    return true;
  }

  OutputUses uses_;
  const std::vector<bool>& control_outputs_;
  const NodeRewrite& rewrite_;
  const bool gelu_;
};

}  // namespace

StatusOr<bool> MatMulFusion::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const std::vector<bool> control_outputs = ControlOutputs(g);
  NodeRewrite rewrite(g);
  const Fuser fuser(body, control_outputs, rewrite, gelu_);
  bool changed = false;
  for (int id = 0; id < n; ++id) {
    const Node& mm = *g.node(id);
    if (rewrite.removed(mm)) continue;
    std::optional<Fusion> f = fuser.Plan(mm);
    if (!f.has_value()) continue;
    ASSIGN_OR_RETURN(const Node* replacement,
                     g.AddNode({.name = FreshName(g, mm.name() + "_" + std::string(kName)), .op = "MatMul",
                                .inputs = std::move(f->inputs), .attrs = std::move(f->attrs), .device = mm.device()}));
    rewrite.Added(*f->last);
    if (f->reshape != nullptr) {  // the bias or activation was behind a Reshape: redone after the fused MatMul
      std::vector<OutputRef> inputs = f->reshape->inputs();
      inputs[0] = {replacement, 0};
      ASSIGN_OR_RETURN(replacement, g.AddNode({.name = FreshName(g, f->reshape->name() + "_" + std::string(kName)),
                                               .op = f->reshape->op_name(), .inputs = std::move(inputs),
                                               .attrs = f->reshape->attrs(), .device = f->reshape->device()}));
      rewrite.Added(*f->last);
    }
    RETURN_IF_ERROR(body.ReplaceAllUses({f->last, 0}, {replacement, 0}).status());
    rewrite.Remove(mm);
    for (const Node* a : f->absorbed) rewrite.Remove(*a);
    changed = true;
  }
  if (changed) RETURN_IF_ERROR(rewrite.Apply(g));
  return changed;
}

}  // namespace graphd::compiler::passes
