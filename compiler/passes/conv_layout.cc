#include "compiler/passes/conv_layout.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/passes/pass_util.h"
#include "core/ops/window_nd.h"

namespace graphd::compiler::passes {
namespace {

constexpr int kRank = 4;
const IntList kToLast = {0, 2, 3, 1};   // [N, C, H, W] -> [N, H, W, C]
const IntList kToFirst = {0, 3, 1, 2};  // and back
// Axis a of [N, C, H, W] is axis kAxisToLast[a] of [N, H, W, C].
constexpr int64_t kAxisToLast[kRank] = {0, 3, 1, 2};

bool IsFloat4d(const TensorType& t) {
  return t.dtype == DType::kFloat32 && t.shape.known_rank() && t.shape.rank() == kRank;
}

const TensorType& TypeOf(OutputRef ref) { return ref.node->output(ref.index); }

template <typename T>
std::optional<T> AttrAs(const Node& node, const std::string& name) {
  auto it = node.attrs().find(name);
  if (it == node.attrs().end() || !std::holds_alternative<T>(it->second)) return std::nullopt;
  return std::get<T>(it->second);
}

// A reduction's axes (an int or a list), canonical (non-negative); none when absent
// or out of range.
std::optional<IntList> ReductionAxes(const Node& node) {
  IntList axes;
  if (auto one = AttrAs<int64_t>(node, "axis")) {
    axes = {*one};
  } else if (auto list = AttrAs<IntList>(node, "axis")) {
    axes = *list;
  } else {
    return std::nullopt;
  }
  for (int64_t& a : axes) {
    if (a < 0) a += kRank;
    if (a < 0 || a >= kRank) return std::nullopt;
  }
  return axes;
}

// ConcatV2's axis, canonical; none when absent or out of range.
std::optional<int64_t> ConcatAxis(const Node& node) {
  std::optional<int64_t> axis = AttrAs<int64_t>(node, "axis");
  if (!axis.has_value()) return std::nullopt;
  if (*axis < 0) *axis += kRank;
  if (*axis < 0 || *axis >= kRank) return std::nullopt;
  return axis;
}

// For a Mean over exactly the spatial axes of [N, C, H, W] with known H and W: the
// window [H, W] of the equivalent global average pool.
std::optional<IntList> GlobalPoolWindow(const Node& node) {
  if (!node.Is(OpId::kMean)) return std::nullopt;
  std::optional<IntList> axes = ReductionAxes(node);
  if (!axes.has_value()) return std::nullopt;
  std::sort(axes->begin(), axes->end());
  const PartialShape& x = TypeOf(node.inputs()[0]).shape;
  if (*axes != IntList{2, 3} || x.dim(2) == kUnknownDim || x.dim(3) == kUnknownDim) return std::nullopt;
  return IntList{x.dim(2), x.dim(3)};
}

// How a converted node reads one of its data inputs.
enum class Read {
  kConverted,  // the converted producer's channels-last output
  kAsIs,       // one element: the same in every layout
  kConst,      // a Const of rank <= 4, permuted into a new Const
  kTranspose,  // another rank-4 value, through a Transpose into channels-last
  kNever,      // none of these: the node stays channels-first
};

Read HowToRead(OutputRef in, const std::vector<bool>& converted) {
  if (converted[in.node->id()]) return Read::kConverted;
  const TensorType& t = TypeOf(in);
  if (!t.shape.known_rank() || t.shape.rank() > kRank) return Read::kNever;
  if (t.shape.num_elements() == 1) return Read::kAsIs;
  if (in.node->Is(OpId::kConst) && t.dtype == DType::kFloat32 && t.shape.fully_defined()) return Read::kConst;
  return t.shape.rank() == kRank ? Read::kTranspose : Read::kNever;
}

// For a value that a Transpose [0, 3, 1, 2] made from an unconverted x (a model's own
// permute back to channels-first, as ConvNeXt's blocks end): x, which is that value's
// channels-last form. Converted readers read x instead, at no cost.
std::optional<OutputRef> PermutedBackFrom(OutputRef in, const std::vector<bool>& converted) {
  const Node& t = *in.node;
  if (in.index != 0 || !t.Is(OpId::kTranspose) || AttrAs<IntList>(t, "perm") != kToFirst) return std::nullopt;
  const OutputRef x = t.inputs()[0];
  if (x.node->id() >= static_cast<int>(converted.size()) || converted[x.node->id()]) return std::nullopt;
  return x;
}

// Whether `node` runs channels-last, given the decisions for the nodes before it.
bool Convertible(const Node& node, const std::vector<bool>& converted, const std::vector<bool>& control_outputs) {
  if (IsPinned(node, control_outputs) || node.num_outputs() != 1 || !IsFloat4d(node.output(0)) ||
      node.inputs().empty()) {
    return false;
  }
  const OpId op = node.op().id;
  const OutputRef x = node.inputs()[0];
  if (op == OpId::kConvND) {
    // A residual (conv_add_fusion.h) is read like an elementwise op's input.
    const bool residual = AttrAs<bool>(node, "residual").value_or(false);
    return node.inputs().size() >= 2 && IsFloat4d(TypeOf(x)) && node.inputs()[1].node->Is(OpId::kConst) &&
           !node.attrs().contains("channels_last") && !node.attrs().contains("constant_filter") &&
           (!residual || HowToRead(node.inputs().back(), converted) != Read::kNever);
  }
  if (op == OpId::kMaxPoolND || op == OpId::kAvgPoolND) {
    return converted[x.node->id()] && !node.attrs().contains("channels_last");
  }
  if (node.op().Has(kAxisReduction)) {
    return converted[x.node->id()] && AttrAs<bool>(node, "keep_dims").value_or(false) &&
           ReductionAxes(node).has_value();
  }
  if (op == OpId::kPad) {
    std::optional<IntList> pads = AttrAs<IntList>(node, "paddings");
    return converted[x.node->id()] && node.inputs().size() == 1 && pads.has_value() && pads->size() == 2 * kRank;
  }
  if (op == OpId::kConcatV2 && !ConcatAxis(node).has_value()) return false;
  if (!node.op().Has(kElementwise) && op != OpId::kConcatV2) return false;
  bool reads_converted = false;
  for (const OutputRef& in : node.inputs()) {
    Read r = HowToRead(in, converted);
    if (r == Read::kNever) return false;
    reads_converted = reads_converted || r == Read::kConverted || PermutedBackFrom(in, converted).has_value();
  }
  return reads_converted;
}

// `t` (float32, rank <= 4) broadcast-aligned to rank 4 (leading 1s) and permuted to
// channels-last.
StatusOr<Tensor> PermutedConst(const Tensor& t) {
  std::vector<int64_t> d(kRank - t.shape().rank(), 1);
  d.insert(d.end(), t.shape().dims().begin(), t.shape().dims().end());
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(DType::kFloat32, Shape({d[0], d[2], d[3], d[1]})));
  const float* src = t.data<float>();
  float* dst = out.data<float>();
  for (int64_t n = 0; n < d[0]; ++n) {
    for (int64_t c = 0; c < d[1]; ++c) {
      for (int64_t h = 0; h < d[2]; ++h) {
        for (int64_t w = 0; w < d[3]; ++w) {
          dst[((n * d[2] + h) * d[3] + w) * d[1] + c] = src[((n * d[1] + c) * d[2] + h) * d[3] + w];
        }
      }
    }
  }
  return out;
}

// Whether the converted ConvND `conv` reads its data input `in` (an unconverted
// rank-4 value that would enter through a Transpose) as it is, channels-first, with
// input_channels_first: a stem convolution the CPU kernel runs directly. (A value
// permuted back from a channels-last x is read as x instead, at no cost.)
bool ReadsChannelsFirst(const Node& conv, OutputRef in, const std::vector<bool>& converted) {
  const PartialShape& x = TypeOf(in).shape;
  const PartialShape& f = TypeOf(conv.inputs()[1]).shape;
  if (HowToRead(in, converted) != Read::kTranspose || PermutedBackFrom(in, converted).has_value() ||
      !f.fully_defined() || f.rank() != kRank || x.dim(1) == kUnknownDim) {
    return false;
  }
  return ops::StemConvFits(x.dim(1), AttrAs<int64_t>(conv, "group").value_or(1), f.dim(1) * f.dim(2) * f.dim(3),
                           f.dim(0));
}

class Rewriter {
 public:
  Rewriter(FunctionBody& body, std::vector<bool> converted, const std::vector<bool>& control_outputs,
           bool channels_first_stems)
      : body_(body),
        g_(*body.graph),
        n_(g_.num_nodes()),
        converted_(std::move(converted)),
        control_outputs_(control_outputs),
        channels_first_stems_(channels_first_stems),
        new_of_(n_, nullptr),
        bypassed_(n_, false) {
    rank_.resize(n_);
    std::iota(rank_.begin(), rank_.end(), 0);
  }

  Status Run() {
    for (int id = 0; id < n_; ++id) {
      if (converted_[id]) RETURN_IF_ERROR(Convert(*g_.node(id)));
    }
    RETURN_IF_ERROR(TransposeBack());
    std::vector<bool> remove(g_.num_nodes(), false);
    for (int id = 0; id < n_; ++id) remove[id] = converted_[id] || bypassed_[id];
    DropUnread(read_around_, remove);
    DropUnusedConsts(remove);
    return g_.Compact(remove, &rank_);
  }

 private:
  StatusOr<const Node*> Add(NodeSpec spec, int rank) {
    ASSIGN_OR_RETURN(const Node* node, g_.AddNode(std::move(spec)));
    rank_.push_back(rank);
    return node;
  }

  Status Convert(const Node& old) {
    NodeSpec spec{.name = FreshName(g_, old.name() + "_nhwc"), .op = old.op_name(), .attrs = old.attrs(),
                  .device = old.device(), .range = old.range()};
    const bool conv = old.Is(OpId::kConvND);
    const size_t residual = conv && AttrAs<bool>(old, "residual").value_or(false) ? old.inputs().size() - 1 : 0;
    for (size_t i = 0; i < old.inputs().size(); ++i) {
      const OutputRef in = old.inputs()[i];
      if (conv && i > 0 && i != residual) {  // filter and bias
        spec.inputs.push_back(in);
        continue;
      }
      if (conv && i == 0 && channels_first_stems_ && ReadsChannelsFirst(old, in, converted_)) {
        spec.inputs.push_back(in);
        spec.attrs["input_channels_first"] = true;
        continue;
      }
      ASSIGN_OR_RETURN(OutputRef read, Input(in, old.id(), old.device()));
      spec.inputs.push_back(read);
    }
    if (conv) {
      spec.attrs["channels_last"] = true;
      spec.attrs["constant_filter"] = true;
    } else if (old.Is(OpId::kMaxPoolND) || old.Is(OpId::kAvgPoolND)) {
      spec.attrs["channels_last"] = true;
    } else if (std::optional<IntList> window = GlobalPoolWindow(old)) {
      // oneDNN's reduction over the middle axes is its slow reference code; its
      // channels-last pooling is not.
      spec.op = "AvgPoolND";
      spec.attrs = {{"kernel_shape", *window}, {"channels_last", true}};
    } else if (old.op().Has(kAxisReduction)) {
      IntList axes = *ReductionAxes(old);
      for (int64_t& a : axes) a = kAxisToLast[a];
      spec.attrs["axis"] = axes;
    } else if (old.Is(OpId::kConcatV2)) {
      spec.attrs["axis"] = kAxisToLast[*ConcatAxis(old)];
    } else if (old.Is(OpId::kPad)) {
      const IntList pads = *AttrAs<IntList>(old, "paddings");  // (begin, end) per dim
      IntList moved(pads.size());
      for (int d = 0; d < kRank; ++d) {
        moved[2 * kAxisToLast[d]] = pads[2 * d];
        moved[2 * kAxisToLast[d] + 1] = pads[2 * d + 1];
      }
      spec.attrs["paddings"] = moved;
    }
    ASSIGN_OR_RETURN(new_of_[old.id()], Add(std::move(spec), old.id()));
    return absl::OkStatus();
  }

  // What the converted `reader` (id) reads for its input `in`.
  StatusOr<OutputRef> Input(OutputRef in, int reader, const std::string& device) {
    switch (HowToRead(in, converted_)) {
      case Read::kConverted:
        return OutputRef{new_of_[in.node->id()], 0};
      case Read::kAsIs:
        return in;
      case Read::kConst: {
        auto it = permuted_.find(in.node);
        if (it != permuted_.end()) return it->second;
        ASSIGN_OR_RETURN(Tensor value, PermutedConst(std::get<Tensor>(in.node->attrs().at("value"))));
        ASSIGN_OR_RETURN(const Node* c, Add({.name = FreshName(g_, in.node->name() + "_nhwc"), .op = "Const",
                                             .attrs = {{"value", std::move(value)}}, .device = in.node->device()},
                                            reader));
        return permuted_[in.node] = OutputRef{c, 0};
      }
      case Read::kTranspose: {
        if (std::optional<OutputRef> x = PermutedBackFrom(in, converted_)) {
          read_around_.insert(in.node);
          return *x;
        }
        auto key = std::make_pair(in.node, in.index);
        auto it = transposed_.find(key);
        if (it != transposed_.end()) return it->second;
        ASSIGN_OR_RETURN(const Node* t, Add({.name = FreshName(g_, in.node->name() + "_to_nhwc"), .op = "Transpose",
                                             .inputs = {in}, .attrs = {{"perm", kToLast}}, .device = device},
                                            reader));
        return transposed_[key] = OutputRef{t, 0};
      }
      case Read::kNever:
        break;
    }
    return errors::Internal(absl::StrCat("conv_layout: node ", g_.node(reader)->name(), " cannot read ",
                                         in.node->name(), " channels-last"));
  }

  // Readers of converted values that stay channels-first, and results, read one
  // Transpose back per value.
  Status TransposeBack() {
    // A Transpose [0, 2, 3, 1] of a converted value (a model's own permute to
    // channels-last, as after ConvNeXt's depthwise convolutions) is that value's
    // converted form: its readers read that instead, and it goes.
    absl::flat_hash_set<const Node*> results;
    for (const OutputRef& r : body_.results) results.insert(r.node);
    std::vector<const Node*> to_last;
    for (int id = 0; id < n_; ++id) {
      const Node& t = *g_.node(id);
      if (converted_[id] || !t.Is(OpId::kTranspose) || AttrAs<IntList>(t, "perm") != kToLast ||
          IsPinned(t, control_outputs_) || results.contains(&t)) {
        continue;
      }
      const OutputRef x = t.inputs()[0];
      if (x.index == 0 && x.node->id() < n_ && converted_[x.node->id()]) to_last.push_back(&t);
    }
    for (const Node* t : to_last) {
      RETURN_IF_ERROR(body_.ReplaceAllUses({t, 0}, {new_of_[t->inputs()[0].node->id()], 0}).status());
      bypassed_[t->id()] = true;
    }
    std::vector<bool> needed(n_, false);
    for (int id = 0; id < n_; ++id) {
      if (converted_[id] || bypassed_[id]) continue;
      for (const OutputRef& in : g_.node(id)->inputs()) {
        if (in.node->id() < n_ && converted_[in.node->id()]) needed[in.node->id()] = true;
      }
    }
    for (const OutputRef& r : body_.results) {
      if (r.node->id() < n_ && converted_[r.node->id()]) needed[r.node->id()] = true;
    }
    for (int id = 0; id < n_; ++id) {
      if (!needed[id]) continue;
      const Node& old = *g_.node(id);
      ASSIGN_OR_RETURN(const Node* back, Add({.name = FreshName(g_, old.name() + "_to_nchw"), .op = "Transpose",
                                              .inputs = {{new_of_[id], 0}}, .attrs = {{"perm", kToFirst}},
                                              .device = old.device()},
                                             id));
      RETURN_IF_ERROR(body_.ReplaceAllUses({&old, 0}, {back, 0}).status());
    }
    return absl::OkStatus();
  }

  // Of `candidates`, those nothing kept reads (nor a result, nor as a control input)
  // and that wait on nothing, marked in `remove`.
  void DropUnread(const absl::flat_hash_set<const Node*>& candidates, std::vector<bool>& remove) const {
    absl::flat_hash_set<const Node*> used;
    for (int id = 0; id < g_.num_nodes(); ++id) {
      if (remove[id]) continue;
      for (const OutputRef& in : g_.node(id)->inputs()) used.insert(in.node);
      for (const Node* c : g_.node(id)->control_inputs()) used.insert(c);
    }
    for (const OutputRef& r : body_.results) used.insert(r.node);
    for (const Node* c : candidates) {
      if (!used.contains(c) && c->control_inputs().empty()) remove[c->id()] = true;
    }
  }

  // Consts replaced by permuted copies that nothing else reads any more.
  void DropUnusedConsts(std::vector<bool>& remove) const {
    absl::flat_hash_set<const Node*> consts;
    for (const auto& [c, unused] : permuted_) consts.insert(c);
    DropUnread(consts, remove);
  }

  FunctionBody& body_;
  Graph& g_;
  const int n_;  // nodes before the rewrite
  std::vector<bool> converted_;
  const std::vector<bool>& control_outputs_;  // ControlOutputs of the graph before the rewrite
  const bool channels_first_stems_;
  std::vector<const Node*> new_of_;  // converted node id -> its channels-last replacement
  std::vector<int> rank_;
  absl::flat_hash_map<const Node*, OutputRef> permuted_;                      // Const -> permuted Const
  absl::flat_hash_map<std::pair<const Node*, int>, OutputRef> transposed_;  // value -> Transpose in
  std::vector<bool> bypassed_;  // by old id: Transposes to channels-last of converted values, read around
  absl::flat_hash_set<const Node*> read_around_;  // Transposes back to channels-first, read around
};

}  // namespace

StatusOr<bool> ConvLayout::Run(FunctionBody& body) const {
  const Graph& g = *body.graph;
  const std::vector<bool> control_outputs = ControlOutputs(g);
  std::vector<bool> converted(g.num_nodes(), false);
  bool any = false;
  for (int id = 0; id < g.num_nodes(); ++id) {
    converted[id] = Convertible(*g.node(id), converted, control_outputs);
    any = any || converted[id];
  }
  if (!any) return false;
  RETURN_IF_ERROR(Rewriter(body, std::move(converted), control_outputs, channels_first_stems_).Run());
  return true;
}

}  // namespace graphd::compiler::passes
