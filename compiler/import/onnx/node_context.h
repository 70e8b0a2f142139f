// The state of one ONNX graph's import (ImportContext) and the view an op builder has
// of the node it translates (NodeContext).
//
// ImportContext maps ONNX value names to graph outputs. Constant values (initializers,
// Constant nodes) are kept as tensors and become Const nodes only when a node reads
// them as data, so inputs that graphd takes as attributes (axes, shapes, pads) do not
// leave unused nodes behind.
#ifndef GRAPHD_COMPILER_IMPORT_ONNX_NODE_CONTEXT_H_
#define GRAPHD_COMPILER_IMPORT_ONNX_NODE_CONTEXT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/graph/graph.h"
#include "onnx/onnx_pb.h"

namespace graphd::compiler::passes {
class ConstantEvaluator;
}  // namespace graphd::compiler::passes

namespace graphd::compiler::onnx_import {

// How an ONNX value is held in the graph: a tensor is one graph output; a sequence is
// two (values, shapes: see core/ops/tensor_array_ops.cc); an optional puts a bool
// scalar (whether it holds a value) before the parts of its element.
struct ValueKind {
  bool optional = false;
  bool sequence = false;
  int num_parts() const { return (optional ? 1 : 0) + (sequence ? 2 : 1); }
  bool is_tensor() const { return !optional && !sequence; }
  bool operator==(const ValueKind&) const = default;
};

class ImportContext {
 public:
  ImportContext(Graph& graph, int64_t opset) : graph_(graph), opset_(opset) {}

  int64_t opset() const { return opset_; }
  Graph& graph() { return graph_; }
  // Folds nodes with constant inputs at import time when set (not owned; may be null).
  // Subgraphs (If/Loop/Scan bodies) are imported with their parent's evaluator.
  const passes::ConstantEvaluator* evaluator() const { return evaluator_; }
  void set_evaluator(const passes::ConstantEvaluator* e) { evaluator_ = e; }

  // Names a value. InvalidArgument when `name` is already defined (ONNX graphs are SSA).
  Status Define(const std::string& name, OutputRef ref);
  Status DefineConst(const std::string& name, Tensor value);
  // A defined tensor value as a graph output (a constant gets its Const node on first
  // use). InvalidArgument for sequences and optionals.
  StatusOr<OutputRef> Get(const std::string& name);
  // Names a value of any kind by its parts (ValueKind::num_parts of them).
  Status DefineValue(const std::string& name, ValueKind kind, std::vector<OutputRef> parts);
  // The kind of a defined value (a tensor when not defined by DefineValue).
  ValueKind KindOf(const std::string& name) const;
  // The parts of a defined value of any kind.
  StatusOr<std::vector<OutputRef>> GetParts(const std::string& name);
  // The constant value of `name`, or nullptr when it is not a constant.
  const Tensor* GetConst(const std::string& name) const;
  bool IsDefined(const std::string& name) const;
  // Whether `name` is an argument of the graph (see DefineArg).
  bool IsArg(const std::string& name) const { return arg_index_.contains(name); }

  // Graph inputs (arguments) whose values are known for this build: inputs that feed
  // shapes, axes and the like are specialised on their values, as constants.
  void DefineArg(const std::string& name, int index, Tensor value);
  // Records that a builder needed the value of argument `name` (no-op for others).
  void WantValue(const std::string& name);
  const std::vector<int>& wanted_values() const { return wanted_; }

  // Adds a node with a fresh name derived from `base`.
  StatusOr<OutputRef> AddNode(const std::string& base, const std::string& op,
                              std::vector<OutputRef> inputs, AttrMap attrs = {}, int output = 0);
  StatusOr<const Node*> AddNodeMulti(const std::string& base, const std::string& op,
                                     std::vector<OutputRef> inputs, AttrMap attrs = {});
  StatusOr<OutputRef> AddConst(const std::string& base, Tensor value);

 private:
  std::string FreshName(const std::string& base);

  Graph& graph_;
  const int64_t opset_;
  const passes::ConstantEvaluator* evaluator_ = nullptr;
  absl::flat_hash_map<std::string, OutputRef> values_;
  absl::flat_hash_map<std::string, ValueKind> kinds_;            // non-tensor values
  absl::flat_hash_map<std::string, std::vector<OutputRef>> parts_;  // their parts
  absl::flat_hash_map<std::string, Tensor> consts_;
  absl::flat_hash_map<std::string, int> name_counts_;
  absl::flat_hash_map<std::string, int> arg_index_;
  absl::flat_hash_map<std::string, Tensor> arg_values_;
  std::vector<int> wanted_;
};

// One node being translated. Builders read inputs and attributes through it and bind
// the node's outputs with SetOutput.
class NodeContext {
 public:
  NodeContext(ImportContext& ctx, const onnx::NodeProto& node) : ctx_(ctx), node_(node) {}

  const onnx::NodeProto& proto() const { return node_; }
  const std::string& op_type() const { return node_.op_type(); }
  int64_t opset() const { return ctx_.opset(); }
  // The node's name, or its first output's when unnamed (ONNX names are optional).
  std::string name() const;

  int num_inputs() const { return node_.input_size(); }
  // Whether optional input `i` is given (present and not "").
  bool has_input(int i) const { return i < node_.input_size() && !node_.input(i).empty(); }
  StatusOr<OutputRef> input(int i);
  StatusOr<TensorType> input_type(int i);
  // Input `i` as a constant (InvalidArgument if absent; Unimplemented naming `what`
  // when it is computed at run time).
  StatusOr<Tensor> ConstInput(int i, absl::string_view what);
  StatusOr<std::vector<int64_t>> ConstInts(int i, absl::string_view what);

  const onnx::AttributeProto* attr(absl::string_view name) const;
  int64_t Int(absl::string_view name, int64_t fallback) const;
  float Float(absl::string_view name, float fallback) const;
  std::string Str(absl::string_view name, const std::string& fallback) const;
  std::optional<std::vector<int64_t>> Ints(absl::string_view name) const;

  int num_outputs() const { return node_.output_size(); }
  // Binds output `i` (skipped when the model leaves it unnamed).
  Status SetOutput(int i, OutputRef ref);

  // Adds a graph node named after this ONNX node.
  StatusOr<OutputRef> Add(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs = {},
                          int output = 0);
  StatusOr<const Node*> AddMulti(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs = {});
  StatusOr<OutputRef> Const(Tensor value);
  // A scalar constant of `dtype` (a numeric type) holding `value` (to an integer dtype
  // converted as Cast converts a double: NaN and out-of-range values are defined).
  StatusOr<OutputRef> Scalar(DType dtype, double value);

  // Unimplemented: "ONNX op 'X' (opset N) is not supported: <why> (node 'n')".
  Status Unsupported(absl::string_view why) const;
  // InvalidArgument naming the op and node.
  Status Invalid(absl::string_view why) const;

  ImportContext& ctx() { return ctx_; }

 private:
  ImportContext& ctx_;
  const onnx::NodeProto& node_;
};

// Builds graphd nodes for one ONNX node.
using OpBuilder = Status (*)(NodeContext& n);

}  // namespace graphd::compiler::onnx_import

#endif  // GRAPHD_COMPILER_IMPORT_ONNX_NODE_CONTEXT_H_
