#include "compiler/passes/batchnorm_folding.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/passes/output_uses.h"
#include "compiler/passes/node_rewrite.h"
#include "compiler/passes/pass_util.h"

namespace graphd::compiler::passes {
namespace {

// The value of `node` when it is a Const.
const Tensor* ConstValue(const Node& node) {
  if (!node.Is(OpId::kConst)) return nullptr;
  auto it = node.attrs().find("value");
  return it == node.attrs().end() ? nullptr : std::get_if<Tensor>(&it->second);
}

bool BoolAttr(const Node& node, const std::string& name) {
  auto it = node.attrs().find(name);
  return it != node.attrs().end() && std::holds_alternative<bool>(it->second) && std::get<bool>(it->second);
}

// A float32 Const's value, when `ref` reads one.
const Tensor* FloatConst(OutputRef ref) {
  const Tensor* t = ConstValue(*ref.node);
  return t != nullptr && t->dtype() == DType::kFloat32 ? t : nullptr;
}


// A ConvND or MatMul whose weights may absorb a per-channel affine map.
struct Producer {
  int64_t channels;
  const Tensor* weights;
  const Tensor* bias;  // nullptr when it has none
  bool by_column;      // MatMul's b [k, n]: a channel is a column, not a row block
};

std::optional<Producer> AsProducer(const Node& node, const std::vector<bool>& control_outputs) {
  const bool conv = node.Is(OpId::kConvND);
  if ((!conv && !node.Is(OpId::kMatMul)) || IsPinned(node, control_outputs) || node.num_outputs() != 1) {
    return std::nullopt;
  }
  const TensorType& y = node.output(0);
  if (y.dtype != DType::kFloat32 || !y.shape.known_rank() || y.shape.rank() < 2 || node.attrs().contains("activation") ||
      node.inputs().size() < 2 || node.inputs().size() > 3) {
    return std::nullopt;
  }
  const Tensor* w = FloatConst(node.inputs()[1]);
  if (w == nullptr) return std::nullopt;
  Producer p{.channels = 0, .weights = w, .bias = nullptr, .by_column = false};
  if (conv) {
    if (BoolAttr(node, "residual") || BoolAttr(node, "channels_last") || w->shape().rank() < 3) return std::nullopt;
    p.channels = w->shape().dim(0);
  } else {
    if (w->shape().rank() != 2) return std::nullopt;
    const bool tb = BoolAttr(node, "transpose_b");
    p.channels = w->shape().dim(tb ? 0 : 1);
    p.by_column = !tb;
  }
  if (p.channels <= 0 || y.shape.dim(1) != p.channels) return std::nullopt;
  if (node.inputs().size() == 3) {
    p.bias = FloatConst(node.inputs()[2]);
    if (p.bias == nullptr || p.bias->num_elements() != p.channels) return std::nullopt;
  }
  return p;
}

// The per-channel values of `c` broadcast against a result of rank `rank` whose
// channel is dim 1, when c varies along no other dim and is finite.
std::optional<std::vector<double>> PerChannel(const Tensor& c, int rank, int64_t channels) {
  const int r = c.shape().rank();
  if (r > rank) return std::nullopt;
  int64_t along = 1;
  for (int i = 0; i < r; ++i) {
    const int64_t d = c.shape().dim(i);
    if (rank - r + i == 1) {
      if (d != 1 && d != channels) return std::nullopt;
      along = d;
    } else if (d != 1) {
      return std::nullopt;
    }
  }
  // Every other dim is 1, so the flat index is the channel.
  std::vector<double> v(channels);
  for (int64_t o = 0; o < channels; ++o) {
    v[o] = c.data<float>()[along == 1 ? 0 : o];
    if (!std::isfinite(v[o])) return std::nullopt;
  }
  return v;
}

// y' = scale * y + shift, per channel.
struct Affine {
  std::vector<double> scale, shift;
  bool scaled = false;

  // Composes one more step `op` (y op k when y_first, else k op y); false when the
  // step is not an affine map of y of this form.
  bool Then(OpId op, bool y_first, const std::vector<double>& k) {
    const size_t n = k.size();
    if (op == OpId::kAdd) {
      for (size_t o = 0; o < n; ++o) shift[o] += k[o];
    } else if (op == OpId::kSub && y_first) {
      for (size_t o = 0; o < n; ++o) shift[o] -= k[o];
    } else if (op == OpId::kMul) {
      for (size_t o = 0; o < n; ++o) scale[o] *= k[o], shift[o] *= k[o];
      scaled = true;
    } else if (op == OpId::kDiv && y_first) {
      for (double v : k) {
        if (v == 0) return false;
      }
      for (size_t o = 0; o < n; ++o) scale[o] /= k[o], shift[o] /= k[o];
      scaled = true;
    } else {
      return false;
    }
    return true;
  }
};

// The weights with each output channel multiplied by its scale.
StatusOr<Tensor> ScaledWeights(const Producer& p, const Affine& f) {
  const Tensor& w = *p.weights;
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(DType::kFloat32, w.shape()));
  const float* src = w.data<float>();
  float* dst = out.data<float>();
  const int64_t n = w.num_elements();
  const int64_t block = n / p.channels;  // rows of a conv filter or of a transposed b
  for (int64_t i = 0; i < n; ++i) {
    const int64_t channel = p.by_column ? i % p.channels : i / block;
    dst[i] = static_cast<float>(src[i] * f.scale[channel]);
  }
  return out;
}

StatusOr<Tensor> FoldedBias(const Producer& p, const Affine& f) {
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(DType::kFloat32, Shape({p.channels})));
  for (int64_t o = 0; o < p.channels; ++o) {
    const double b = p.bias == nullptr ? 0.0 : p.bias->data<float>()[o];
    out.data<float>()[o] = static_cast<float>(b * f.scale[o] + f.shift[o]);
  }
  return out;
}

}  // namespace

StatusOr<bool> BatchNormFolding::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const std::vector<bool> control_outputs = ControlOutputs(g);
  const OutputUses uses(body);
  NodeRewrite rewrite(g);
  std::vector<const Node*> maybe_unused;  // Consts the folded nodes read
  bool changed = false;
  for (int id = 0; id < n; ++id) {
    const Node& node = *g.node(id);
    std::optional<Producer> p = AsProducer(node, control_outputs);
    if (!p.has_value()) continue;
    const int out_rank = node.output(0).shape.rank();
    Affine f{.scale = std::vector<double>(p->channels, 1.0), .shift = std::vector<double>(p->channels, 0.0)};
    const Node* last = &node;
    std::vector<const Node*> chain;
    for (;;) {
      const Node* step = uses.OnlyUser(*last);
      if (step == nullptr || IsPinned(*step, control_outputs) || step->inputs().size() != 2 ||
          step->output(0).dtype != DType::kFloat32 || !(step->output(0).shape == node.output(0).shape)) {
        break;
      }
      const bool y_first = step->inputs()[0] == OutputRef{last, 0};
      const Tensor* k = FloatConst(step->inputs()[y_first ? 1 : 0]);
      if (k == nullptr) break;
      std::optional<std::vector<double>> kv = PerChannel(*k, out_rank, p->channels);
      if (!kv.has_value() || !f.Then(step->op().id, y_first, *kv)) break;
      chain.push_back(step);
      last = step;
    }
    // A MatMul's bias Add alone is matmul_fusion's (which also takes non-constant biases).
    const bool only_adds = std::all_of(chain.begin(), chain.end(), [](const Node* s) { return s->Is(OpId::kAdd); });
    if (chain.empty() || (node.Is(OpId::kMatMul) && only_adds)) continue;

    const std::string base = FreshName(g, node.name() + "_" + std::string(kName));
    std::vector<OutputRef> inputs{node.inputs()[0], node.inputs()[1]};
    if (f.scaled) {
      ASSIGN_OR_RETURN(Tensor w, ScaledWeights(*p, f));
      ASSIGN_OR_RETURN(const Node* wn, g.AddNode({.name = FreshName(g, base + "/weights"), .op = "Const",
                                                  .attrs = {{"value", std::move(w)}}, .device = node.device()}));
      inputs[1] = {wn, 0};
      rewrite.Added(*last);
    }
    ASSIGN_OR_RETURN(Tensor b, FoldedBias(*p, f));
    ASSIGN_OR_RETURN(const Node* bn, g.AddNode({.name = FreshName(g, base + "/bias"), .op = "Const",
                                                .attrs = {{"value", std::move(b)}}, .device = node.device()}));
    inputs.push_back({bn, 0});
    rewrite.Added(*last);
    ASSIGN_OR_RETURN(const Node* folded, g.AddNode({.name = base, .op = node.op_name(), .inputs = std::move(inputs),
                                                    .attrs = node.attrs(), .device = node.device(),
                                                    .range = node.range()}));
    rewrite.Added(*last);
    RETURN_IF_ERROR(body.ReplaceAllUses({last, 0}, {folded, 0}).status());
    rewrite.Remove(node);
    for (size_t i = 1; i < node.inputs().size(); ++i) maybe_unused.push_back(node.inputs()[i].node);
    for (const Node* step : chain) {
      rewrite.Remove(*step);
      for (const OutputRef& in : step->inputs()) maybe_unused.push_back(in.node);
    }
    changed = true;
  }
  if (!changed) return false;
  // Drop the Consts nothing reads any more.
  std::vector<int> left(g.num_nodes(), 0);
  for (int id = 0; id < g.num_nodes(); ++id) {
    if (rewrite.removed(*g.node(id))) continue;
    for (const OutputRef& in : g.node(id)->inputs()) ++left[in.node->id()];
  }
  for (const OutputRef& r : body.results) ++left[r.node->id()];
  for (const Node* c : maybe_unused) {
    if (c->Is(OpId::kConst) && left[c->id()] == 0 && !IsPinned(*c, control_outputs)) rewrite.Remove(*c);
  }
  RETURN_IF_ERROR(rewrite.Apply(g));
  return true;
}

}  // namespace graphd::compiler::passes
