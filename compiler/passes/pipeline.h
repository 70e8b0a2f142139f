// The pass pipeline: named passes run in order over a finished function body, each
// once. Optionally verifies the body after every pass (VerifyBody; on by default in
// builds without NDEBUG, and in tests) and hands the IR to a dump hook before the
// first pass and after each one. Immutable once made; Run is thread-safe when the
// dump hook is.
//
// The default pipeline (what traced, ONNX and GraphDef functions and TF1 run signatures
// get; passes/spec_body.h adapts the last two) is:
//   constant_folding  (only with an evaluator)  ->  algebraic_simplification  ->  cse
//   ->  dce  ->  batchnorm_folding  ->  conv_add_fusion  ->  conv_activation_fusion
//   ->  matmul_fusion  ->  conv_layout  ->  elementwise_fusion
#ifndef GRAPHD_COMPILER_PASSES_PIPELINE_H_
#define GRAPHD_COMPILER_PASSES_PIPELINE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "compiler/passes/constant_evaluator.h"
#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

#ifdef NDEBUG
inline constexpr bool kVerifyPassesByDefault = false;
#else
inline constexpr bool kVerifyPassesByDefault = true;
#endif

struct PipelineOptions {
  // Names of passes not to run (the server's --disable-passes).
  absl::flat_hash_set<std::string> disabled;
  bool verify = kVerifyPassesByDefault;
  // Fusions only the CPU's kernels take (the GPU's would refuse the fused nodes):
  // elementwise_fusion's operands broadcast per channel, conv_activation_fusion's
  // gated activations (hard-swish, swish), matmul_fusion's GELU, conv_layout's stem
  // convolutions reading channels-first data.
  bool cpu_fusions = true;
  // Called with "input" and the body before the first pass, then with each pass's
  // name after it ran. May be empty.
  std::function<void(absl::string_view stage, const FunctionBody& body)> dump;
};

class Pipeline {
 public:
  // InvalidArgument when `options.disabled` names a pass not in `passes`, or two
  // passes share a name.
  static StatusOr<std::unique_ptr<const Pipeline>> Make(std::vector<std::unique_ptr<const Pass>> passes,
                                                        PipelineOptions options);

  // Runs the enabled passes in order; true when one changed the body. A failing
  // pass or verification (Internal, naming the pass) stops the pipeline, and so does
  // the current call's cancellation (core/current_cancellation.h), checked before
  // each pass: Cancelled or DeadlineExceeded, naming the pass not run.
  StatusOr<bool> Run(FunctionBody& body) const;

  // All passes, enabled or not, in order.
  std::vector<std::string> PassNames() const;

 private:
  Pipeline(std::vector<std::unique_ptr<const Pass>> passes, PipelineOptions options)
      : passes_(std::move(passes)), options_(std::move(options)) {}

  const std::vector<std::unique_ptr<const Pass>> passes_;
  const PipelineOptions options_;
};

// The names of the default pipeline's passes, in order (as listed above).
std::vector<std::string> DefaultPassNames();

// The default pipeline. Without an `evaluator` constant folding is left out (and
// may still be named in `options.disabled`). `evaluator` must outlive the pipeline.
StatusOr<std::unique_ptr<const Pipeline>> MakeDefaultPipeline(const ConstantEvaluator* evaluator,
                                                              PipelineOptions options = {});

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_PIPELINE_H_
