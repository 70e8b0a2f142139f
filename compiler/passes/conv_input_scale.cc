#include "compiler/passes/conv_input_scale.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/passes/node_rewrite.h"
#include "compiler/passes/output_uses.h"
#include "compiler/passes/pass_util.h"

namespace graphd::compiler::passes {
namespace {

const TensorType& TypeOf(OutputRef ref) { return ref.node->output(ref.index); }

bool BoolAttr(const Node& node, const char* name) {
  auto it = node.attrs().find(name);
  return it != node.attrs().end() && std::holds_alternative<bool>(it->second) && std::get<bool>(it->second);
}

int64_t IntAttr(const Node& node, const char* name, int64_t fallback) {
  auto it = node.attrs().find(name);
  return it != node.attrs().end() && std::holds_alternative<int64_t>(it->second) ? std::get<int64_t>(it->second)
                                                                                  : fallback;
}

// Whether `t` is float32 with a fully known shape of rank 4.
bool Float4d(const TensorType& t) {
  return t.dtype == DType::kFloat32 && t.shape.known_rank() && t.shape.rank() == 4 && t.shape.fully_defined();
}

// Whether `s` holds one value per channel of [N, H, W, C] data, the same for every
// image: [1, 1, 1, C].
bool ChannelScale(const TensorType& s, int64_t c) {
  return Float4d(s) && s.shape.dim(0) == 1 && s.shape.dim(1) == 1 && s.shape.dim(2) == 1 && s.shape.dim(3) == c;
}

// The scale operand of `mul` (x * s or s * x, x of mul's own shape [N, H, W, C]) and x.
struct ScaledInput {
  OutputRef x, s;
};
std::optional<ScaledInput> Scaled(const Node& mul) {
  if (!mul.Is(OpId::kMul) || mul.inputs().size() != 2 || !Float4d(mul.output(0))) return std::nullopt;
  const PartialShape& y = mul.output(0).shape;
  for (int i = 0; i < 2; ++i) {
    const OutputRef x = mul.inputs()[i], s = mul.inputs()[1 - i];
    // A constant scale stays: folded here the filter would be scaled on every call
    // (constant folding has run) and lose its packing.
    if (Float4d(TypeOf(x)) && TypeOf(x).shape == y && ChannelScale(TypeOf(s), y.dim(3)) &&
        !s.node->Is(OpId::kConst)) {
      return ScaledInput{x, s};
    }
  }
  return std::nullopt;
}

// Whether `conv` pads nothing: a padded tap reads 0, where 0 * (w * s) is NaN for an
// infinite s while (0 * s would not be read) the unfused conv reads 0 * w.
bool Unpadded(const Node& conv) {
  auto it = conv.attrs().find("pads");
  if (it == conv.attrs().end()) return true;
  const IntList* pads = std::get_if<IntList>(&it->second);
  return pads != nullptr && std::all_of(pads->begin(), pads->end(), [](int64_t p) { return p == 0; });
}

// Whether `conv` reads `mul` as its data and may take the scale into its filter.
bool Foldable(const Node& conv, const Node& mul, const std::vector<bool>& control_outputs) {
  if (!conv.Is(OpId::kConvND) || conv.inputs().size() < 2 || conv.inputs()[0] != OutputRef{&mul, 0} ||
      IsPinned(conv, control_outputs) || !BoolAttr(conv, "channels_last") || !BoolAttr(conv, "constant_filter") ||
      BoolAttr(conv, "input_channels_first") || IntAttr(conv, "group", 1) != 1 || !Unpadded(conv)) {
    return false;
  }
  const OutputRef f = conv.inputs()[1];
  const TensorType& ft = TypeOf(f);
  const PartialShape& x = mul.output(0).shape;
  if (!f.node->Is(OpId::kConst) || !Float4d(ft) || ft.shape.dim(1) != x.dim(3)) return false;
  return x.num_elements() >= ConvInputScale::kMinInputPerFilter * ft.shape.num_elements();
}

}  // namespace

StatusOr<bool> ConvInputScale::Run(FunctionBody& body) const {
  if (!enabled_) return false;
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const std::vector<bool> control_outputs = ControlOutputs(g);
  const OutputUses uses(body);
  NodeRewrite rewrite(g);
  std::vector<std::pair<OutputRef, const Node*>> shaped_scales;  // scale -> its Reshape
  bool changed = false;
  for (int id = 0; id < n; ++id) {
    const Node& mul = *g.node(id);
    if (IsPinned(mul, control_outputs)) continue;
    const std::optional<ScaledInput> scaled = Scaled(mul);
    const Node* conv = scaled.has_value() ? uses.OnlyUser(mul) : nullptr;
    if (conv == nullptr || !Foldable(*conv, mul, control_outputs)) continue;
    const OutputRef filter = conv->inputs()[1];
    const int64_t c = mul.output(0).shape.dim(3);
    // One Reshape per scale: a gate read by two convolutions is reshaped once.
    auto shaped_it = std::find_if(shaped_scales.begin(), shaped_scales.end(),
                                  [&](const auto& entry) { return entry.first == scaled->s; });
    const Node* shaped = shaped_it != shaped_scales.end() ? shaped_it->second : nullptr;
    if (shaped == nullptr) {
      ASSIGN_OR_RETURN(shaped, g.AddNode({.name = FreshName(g, mul.name() + "/" + std::string(kName) + "/scale"),
                                          .op = "Reshape", .inputs = {scaled->s},
                                          .attrs = {{"shape", IntList{c, 1, 1}}}, .device = mul.device(),
                                          .range = mul.range()}));
      rewrite.Added(mul);
      shaped_scales.emplace_back(scaled->s, shaped);
    }
    ASSIGN_OR_RETURN(const Node* scaled_filter,
                     g.AddNode({.name = FreshName(g, conv->name() + "/" + std::string(kName) + "/filter"),
                                .op = "Mul", .inputs = {filter, {shaped, 0}}, .device = conv->device(),
                                .range = conv->range()}));
    rewrite.Added(*conv);  // after the filter, which may sort after the Mul
    AttrMap attrs = conv->attrs();
    attrs.erase("constant_filter");
    std::vector<OutputRef> inputs = conv->inputs();
    inputs[0] = scaled->x;
    inputs[1] = {scaled_filter, 0};
    ASSIGN_OR_RETURN(const Node* fused, g.AddNode({.name = FreshName(g, conv->name() + "_" + std::string(kName)),
                                                   .op = "ConvND", .inputs = std::move(inputs),
                                                   .attrs = std::move(attrs), .device = conv->device(),
                                                   .range = conv->range()}));
    rewrite.Added(*conv);
    RETURN_IF_ERROR(body.ReplaceAllUses({conv, 0}, {fused, 0}).status());
    rewrite.Remove(mul);
    rewrite.Remove(*conv);
    changed = true;
  }
  if (changed) RETURN_IF_ERROR(rewrite.Apply(g));
  return changed;
}

}  // namespace graphd::compiler::passes
