// Imports an ONNX model (ModelProto bytes) into a graphd Function.
//
// Import is two steps so that a server can parse and validate a model once and build
// one Function per concrete input signature:
//   ParseOnnxModel: parse, run onnx::checker, refuse external data, check opsets.
//   BuildOnnxFunction: map the graph's nodes to graphd ops for given input shapes.
// ImportOnnx does both with the declared input shapes.
//
// This header does not expose ONNX or protobuf types: OnnxModel is opaque, so callers
// (the server) do not depend on libonnx headers. Only graphd_import_onnx links onnx.
#ifndef GRAPHD_COMPILER_IMPORT_ONNX_ONNX_IMPORT_H_
#define GRAPHD_COMPILER_IMPORT_ONNX_ONNX_IMPORT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/attr_value.h"
#include "core/graph/function.h"
#include "core/graph_value.h"
#include "core/status.h"

namespace graphd::compiler::passes {
class ConstantEvaluator;
class Pipeline;
}  // namespace graphd::compiler::passes

namespace graphd::compiler::onnx_import {

// The default-domain opsets this importer accepts. Opsets before 7 are accepted too
// (the pytorch-converted/pytorch-operator suites are opset 6): their legacy attributes
// (Add/Mul/... `broadcast` and `axis`) are translated.
inline constexpr int64_t kMinOpset = 1;
inline constexpr int64_t kMaxOpset = 17;

// A graph input or output as the model declares it (symbolic or absent dims are
// unknown; an absent shape is unknown rank). For a sequence, and an optional, dtype
// and shape are those of the tensors it holds.
struct ValueInfo {
  std::string name;
  DType dtype = DType::kInvalid;
  PartialShape shape;
  bool sequence = false;  // sequence<tensor>
  bool optional = false;  // optional<tensor> or optional<sequence<tensor>>
  bool is_tensor() const { return !sequence && !optional; }
};

// A parsed and validated model. Immutable; safe to share between threads (and
// sessions): its initializers are parsed once and every function built from it
// shares their buffers.
class OnnxModel {
 public:
  ~OnnxModel();
  OnnxModel(const OnnxModel&) = delete;
  OnnxModel& operator=(const OnnxModel&) = delete;

  // Graph inputs that are not initializers, in graph order: the function's arguments.
  const std::vector<ValueInfo>& inputs() const { return inputs_; }
  const std::vector<ValueInfo>& outputs() const { return outputs_; }
  int64_t opset() const { return opset_; }
  const std::string& graph_name() const { return graph_name_; }
  // Indices of inputs whose values the graph needs when it is built (ints that feed
  // shapes, axes, pads...: attributes in graphd), found by a trial build at parse
  // time. Each distinct value is its own specialisation.
  const std::vector<int>& value_inputs() const { return value_inputs_; }

  struct Impl;  // holds the onnx::ModelProto
  const Impl& impl() const { return *impl_; }

 private:
  friend StatusOr<std::shared_ptr<const OnnxModel>> ParseOnnxModel(absl::string_view,
                                                                    const passes::ConstantEvaluator*,
                                                                    const std::function<void()>&);
  OnnxModel();
  std::unique_ptr<Impl> impl_;
  std::vector<ValueInfo> inputs_;
  std::vector<ValueInfo> outputs_;
  int64_t opset_ = 0;
  std::string graph_name_;
  std::vector<int> value_inputs_;
};

// Parses and validates `model_bytes`, then builds it once with the declared shapes so
// that unsupported ops fail here. InvalidArgument: not a ModelProto, the checker's
// message, external data (the importer never opens a path), unsupported input dtypes;
// Unimplemented: default-domain opset outside kMinOpset..kMaxOpset, unknown op types,
// and other import errors when the inputs' shapes are fully known (with unknown dims
// a build may need a call's concrete shapes, so those errors come per call).
// `evaluator` (may be null: no folding) folds nodes whose inputs are all constants
// (see const_fold.h); it must outlive the call. `parsed` (may be empty) runs once the
// bytes are parsed and no longer read, before the initializers become tensors: a
// caller that owns the bytes frees them there, so that a large model is held twice
// at most (bytes and parsed proto), never three times. The parsed proto keeps no
// tensor data once its initializers are tensors.
StatusOr<std::shared_ptr<const OnnxModel>> ParseOnnxModel(absl::string_view model_bytes,
                                                          const passes::ConstantEvaluator* evaluator = nullptr,
                                                          const std::function<void()>& parsed = nullptr);

// Builds the function for `input_shapes` (one per model input; each must be an
// instance of the declared shape, InvalidArgument otherwise; empty: the declared
// shapes; for a sequence or an optional, the shape its tensors share, see
// InputShapes) and `input_values` (empty, or one per input: the values of value_inputs(),
// invalid Tensors elsewhere). Unimplemented "ONNX op 'X' (opset N) is not supported (node 'n')" for
// unknown ops; attributes that graphd needs constant (axes, shapes, pads...) must come
// from initializers or Constant nodes (Unimplemented otherwise). `pipeline` (may be
// null) runs over the built body: the server's graph passes, fusions included.
StatusOr<FunctionRef> BuildOnnxFunction(const OnnxModel& model, const std::string& function_name,
                                        const std::vector<PartialShape>& input_shapes = {},
                                        const std::vector<Tensor>& input_values = {},
                                        const passes::ConstantEvaluator* evaluator = nullptr,
                                        const passes::Pipeline* pipeline = nullptr);

// The function's calling convention. Its arguments and results are tensors: a tensor
// input is one, a sequence two (its tensors flattened and concatenated, and an int64
// [n, rank] matrix of their shapes: core/ops/tensor_array_ops.cc), an optional a
// bool scalar (holds a value) followed by its value's (placeholders when empty).
//
// Checks `inputs` (one per model input) against the declared inputs (kind, dtype,
// shape; InvalidArgument naming the input) and returns the shapes to build for.
StatusOr<std::vector<PartialShape>> InputShapes(const OnnxModel& model, const std::vector<GraphValue>& inputs);
// The function's arguments for `inputs` (checked by InputShapes).
StatusOr<std::vector<Tensor>> FlattenInputs(const OnnxModel& model, const std::vector<GraphValue>& inputs);
// The model's outputs from the function's results.
StatusOr<std::vector<GraphValue>> UnflattenOutputs(const OnnxModel& model, std::vector<Tensor> results);

struct ImportedModel {
  FunctionRef function;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  int64_t opset = 0;
};

// ParseOnnxModel then BuildOnnxFunction with the declared shapes.
StatusOr<ImportedModel> ImportOnnx(absl::string_view model_bytes,
                                   const std::string& function_name = "onnx_model");

}  // namespace graphd::compiler::onnx_import

#endif  // GRAPHD_COMPILER_IMPORT_ONNX_ONNX_IMPORT_H_
