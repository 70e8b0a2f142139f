// A traced graph loaded once: an ONNX model or a GraphDef function, parsed and checked,
// immutable, shared by every session (and served model) that loads the same bytes.
// It is the front end for graphs: a call's inputs give its build key (the input shapes
// and the values of inputs that give shapes or axes), and each key builds one function
// (Compile: built, optimised, planned), which the FunctionCache keeps under the
// caller's content fingerprint and that key. Callers key by Content() plus what they
// add (the name they call it by, the compile target).
//
// ONNX models are shared through the FunctionCache too (LoadOnnx): identical bytes parse
// once, even when many loads arrive together, and the parsed model (its initializers)
// counts against the cache's byte bound while the cache holds it.
//
// Thread safety: immutable after construction; every method is const and thread-safe.
#ifndef GRAPHD_COMPILER_CACHE_GRAPH_PROGRAM_H_
#define GRAPHD_COMPILER_CACHE_GRAPH_PROGRAM_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/cache/compile.h"
#include "compiler/cache/function_cache.h"
#include "compiler/cache/signature_key.h"
#include "compiler/import/graphdef_function.h"
#include "compiler/import/onnx/onnx_import.h"
#include "core/block_fingerprint.h"
#include "core/fingerprint.h"
#include "core/graph_value.h"

namespace graphd::compiler {

using onnx_import::ValueInfo;

// A serialized ONNX model as LoadOnnx takes it.
struct OnnxBytes {
  absl::string_view bytes;
  // BlockFingerprint(bytes) when the caller has it already (hashed as the bytes
  // arrived); computed here otherwise.
  std::optional<Fingerprint> fingerprint;
  // Runs once the bytes are no longer read, when LoadOnnx parses them
  // (onnx_import::ParseOnnxModel): an owner of the bytes frees them there.
  std::function<void()> parsed;
};

class GraphProgram : public FrontEndData {
 public:
  // Parses and checks the ONNX model (see onnx_import::ParseOnnxModel), or takes the
  // model another caller parsed from the same bytes from `cache`. `evaluator` (may be
  // null) folds constant nodes while importing; `token` (may be null) bounds a wait
  // for another caller's parse. `owner` (FunctionCache::AddOwner; 0: none) keeps the
  // parsed model to that owner, erased with its other entries.
  static StatusOr<std::shared_ptr<const GraphProgram>> LoadOnnx(FunctionCache& cache, const OnnxBytes& model,
                                                                const passes::ConstantEvaluator* evaluator,
                                                                const CancellationToken* token = nullptr,
                                                                uint64_t owner = 0);
  // GraphDef `def` as a function (see MakeGraphDefFunction): Placeholders `inputs`
  // (empty: all) are its arguments, tensors `outputs` its results; `name` names it.
  static StatusOr<std::shared_ptr<const GraphProgram>> FromGraphDef(const GraphDef& def, const std::string& name,
                                                                    const std::vector<std::string>& inputs,
                                                                    const std::vector<std::string>& outputs);

  // What was loaded: the ONNX bytes, or the GraphDef with its inputs and outputs.
  const Fingerprint& content() const { return content_; }
  // The declared inputs (the function's arguments) and outputs.
  const std::vector<ValueInfo>& inputs() const { return inputs_; }
  const std::vector<ValueInfo>& outputs() const { return outputs_; }
  // The ONNX graph's name and opset ("" and 0 for a GraphDef).
  const std::string& graph_name() const;
  int64_t opset() const;
  // True when some input's values (not only its shape) select the build.
  bool specializes_on_values() const;

  // The build key of a call with `inputs` (one per declared input): checks them
  // (InvalidArgument naming the input for a wrong count, kind, dtype or shape; `name`
  // names the graph in messages), appends the input shapes and the specialising
  // values to `key`, and sets `values` (one per input: the specialising values, empty
  // tensors elsewhere) for Compile.
  Status CallKey(const std::string& name, const std::vector<GraphValue>& inputs, SignatureKey& key,
                 std::vector<Tensor>& values) const;

  // The function for the input shapes in `key` (made by CallKey, or generalised from
  // such a key) and `values`, through `target`'s passes and planned. `name` names it;
  // `evaluator` (may be null) folds constants while building.
  StatusOr<std::shared_ptr<CompiledFunction>> Compile(const std::string& name, const SignatureKey& key,
                                                      const std::vector<Tensor>& values,
                                                      const passes::ConstantEvaluator* evaluator,
                                                      const CompileTarget& target) const;
  // The function for the declared input shapes, optimised by `passes` (may be null) but
  // not planned: what DescribeFunction shows before any call. Unimplemented when a
  // build needs input values.
  StatusOr<FunctionRef> Declared(const std::string& name, const passes::ConstantEvaluator* evaluator,
                                 const passes::Pipeline* passes) const;
  // "(x: float32[2,3], axes: int64[1]=[1])": the declared input shapes.
  std::string DeclaredSignature() const;

  // The function's arguments for `inputs` (checked by CallKey), and the graph's
  // outputs from its results.
  StatusOr<std::vector<Tensor>> FlattenInputs(std::vector<GraphValue> inputs) const;
  StatusOr<std::vector<GraphValue>> UnflattenOutputs(std::vector<Tensor> results) const;

 private:
  GraphProgram() = default;
  StatusOr<FunctionRef> Build(const std::string& name, const std::vector<PartialShape>& shapes,
                              const std::vector<Tensor>& values, const passes::ConstantEvaluator* evaluator,
                              const passes::Pipeline* passes) const;
  std::string ReadableSignature(const std::vector<PartialShape>& shapes, const std::vector<Tensor>& values) const;

  // Exactly one is set.
  std::shared_ptr<const onnx_import::OnnxModel> model_;
  std::shared_ptr<const GraphDefFunction> graph_def_;
  Fingerprint content_;
  std::vector<ValueInfo> inputs_;
  std::vector<ValueInfo> outputs_;
};

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_CACHE_GRAPH_PROGRAM_H_
