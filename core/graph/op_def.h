// Op definitions: one per op, in core/ops/<family>.cc. A definition names the op, its
// inputs, and a pure inference function that computes output dtypes and shapes from
// input types and attributes. Inference runs when a node is added to a Graph, so a
// node whose types do not check can never exist.
#ifndef GRAPHD_CORE_GRAPH_OP_DEF_H_
#define GRAPHD_CORE_GRAPH_OP_DEF_H_

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/attr_value.h"
#include "core/status.h"

namespace graphd {

struct TensorType {
  DType dtype = DType::kInvalid;
  PartialShape shape;
};

class InferenceContext;
using InferFn = std::function<Status(InferenceContext&)>;

// What passes may assume of an op beyond its inference function: set for every op
// family in one table, core/ops/op_traits.cc, so that passes ask the op instead of
// keeping their own lists of names.
enum OpTrait : uint32_t {
  // Each output element is a function of the input elements at the same index (inputs
  // broadcast, numpy style) and of attributes only: the op commutes with permuting the
  // dims of all its inputs and its output alike (layout passes move it across layouts).
  kElementwise = 1u << 0,
  // Reduces its one input over the dims its `axis` attribute names (`keep_dims` keeps
  // them as 1s), with nothing else depending on the layout.
  kAxisReduction = 1u << 1,
};

// The ops the graph passes rewrite or look through, by id (set in one table,
// core/ops/op_traits.cc): a pass asks `node.Is(OpId::kConvND)` instead of comparing
// names, and a renamed op fails OpCoverageTest instead of silently not matching.
enum class OpId : uint16_t {
  kOther = 0,
  kArg,
  kPlaceholder,
  kConst,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kNeg,
  kIdentity,
  kCast,
  kReshape,
  kRelu,
  kMaximum,
  kMinimum,
  kMatMul,
  kConvND,
  kMaxPoolND,
  kAvgPoolND,
  kConcatV2,
  kPad,
  kTranspose,
  kMean,
  kCount,  // not an op: the number of ids
};

struct OpDef {
  static constexpr int kVariadic = -1;

  std::string name;
  // Number of data inputs, or kVariadic (at least `min_inputs`; inference checks the rest).
  int num_inputs = 0;
  int min_inputs = 0;
  // Inputs that name a variable rather than consume a value (Assign's first input):
  // they must come straight from a VariableV2 node and add no data dependency.
  std::vector<int> ref_inputs;
  // Stateful ops are never folded or merged by passes.
  bool stateful = false;
  // OpTrait bits.
  uint32_t traits = 0;
  OpId id = OpId::kOther;
  InferFn infer;

  bool Has(OpTrait trait) const { return (traits & trait) != 0; }

  bool IsRefInput(int i) const {
    for (int r : ref_inputs) {
      if (r == i) return true;
    }
    return false;
  }
};

// What an inference function sees of the node being added.
class InferenceContext {
 public:
  // `input_values[i]`, when given and not null, is the value of input i known while
  // building the graph (its producer is a Const); it must outlive the context.
  InferenceContext(absl::string_view node_name, const OpDef& op, std::span<const TensorType> inputs,
                   const AttrMap& attrs, std::span<const Tensor* const> input_values = {})
      : node_name_(node_name), op_(op), inputs_(inputs), attrs_(attrs),
        input_values_(input_values) {}

  absl::string_view node_name() const { return node_name_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const TensorType& input(int i) const { return inputs_[i]; }
  // The value of input i when its producer is a Const node, else nullptr. Lets
  // inference compute exact shapes from constant operands (Range's bounds).
  const Tensor* input_value(int i) const {
    return i < static_cast<int>(input_values_.size()) ? input_values_[i] : nullptr;
  }
  const AttrMap& attrs() const { return attrs_; }

  // The attribute `name` as T; InvalidArgument naming the node when missing or of
  // another type.
  template <typename T>
  StatusOr<T> Attr(absl::string_view name) const;
  // The attribute, or `fallback` when absent (still an error when of another type).
  template <typename T>
  StatusOr<T> AttrOr(absl::string_view name, T fallback) const;

  void AddOutput(DType dtype, PartialShape shape) {
    outputs_.push_back({dtype, std::move(shape)});
  }
  std::vector<TensorType>& outputs() { return outputs_; }

  // InvalidArgument "node 'n' (Op): message".
  Status Error(absl::string_view message) const;

 private:
  Status AttrTypeError(absl::string_view name, const AttrValue& v, absl::string_view want) const;
  template <typename T>
  static absl::string_view WantName();

  absl::string_view node_name_;
  const OpDef& op_;
  std::span<const TensorType> inputs_;
  const AttrMap& attrs_;
  std::span<const Tensor* const> input_values_;
  std::vector<TensorType> outputs_;
};

template <typename T>
absl::string_view InferenceContext::WantName() {
  return AttrTypeName(AttrValue(T{}));
}

template <typename T>
StatusOr<T> InferenceContext::AttrOr(absl::string_view name, T fallback) const {
  auto it = attrs_.find(name);
  if (it == attrs_.end()) return fallback;
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  // An empty list arrives as IntList; accept it for any list type.
  if constexpr (!std::is_same_v<T, IntList>) {
    if (const IntList* l = std::get_if<IntList>(&it->second); l && l->empty()) {
      if constexpr (std::is_same_v<T, FloatList> || std::is_same_v<T, StringList> ||
                    std::is_same_v<T, TypeList> || std::is_same_v<T, ShapeList>) {
        return T{};
      }
    }
  }
  return AttrTypeError(name, it->second, WantName<T>());
}

template <typename T>
StatusOr<T> InferenceContext::Attr(absl::string_view name) const {
  if (attrs_.find(name) == attrs_.end()) {
    return Error(absl::StrCat("missing attribute '", name, "'"));
  }
  return AttrOr<T>(name, T{});
}

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_OP_DEF_H_
