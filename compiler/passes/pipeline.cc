#include "compiler/passes/pipeline.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/passes/algebraic_simplification.h"
#include "compiler/passes/batchnorm_folding.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/conv_activation_fusion.h"
#include "compiler/passes/conv_add_fusion.h"
#include "compiler/passes/conv_input_scale.h"
#include "compiler/passes/conv_layout.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/elementwise_fusion.h"
#include "compiler/passes/gelu_fusion.h"
#include "compiler/passes/layernorm_fusion.h"
#include "compiler/passes/matmul_fusion.h"
#include "compiler/passes/verifier.h"
#include "core/current_cancellation.h"

namespace graphd::compiler::passes {

StatusOr<std::unique_ptr<const Pipeline>> Pipeline::Make(std::vector<std::unique_ptr<const Pass>> passes,
                                                         PipelineOptions options) {
  absl::flat_hash_set<std::string> names;
  for (const auto& p : passes) {
    if (!names.insert(std::string(p->name())).second) {
      return errors::InvalidArgument(absl::StrCat("two passes are named '", p->name(), "'"));
    }
  }
  for (const std::string& d : options.disabled) {
    if (!names.contains(d)) {
      std::vector<std::string> known(names.begin(), names.end());
      std::sort(known.begin(), known.end());
      return errors::InvalidArgument(
          absl::StrCat("unknown pass '", d, "' (passes: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  return std::unique_ptr<const Pipeline>(new Pipeline(std::move(passes), std::move(options)));
}

StatusOr<bool> Pipeline::Run(FunctionBody& body) const {
  if (options_.dump) options_.dump("input", body);
  bool changed = false;
  for (const auto& pass : passes_) {
    if (options_.disabled.contains(pass->name())) continue;
    // A pass is linear or near it in the body's size, so between passes is often enough.
    if (Status cancelled = CheckCurrentCancellation(); !cancelled.ok()) {
      return errors::Make(cancelled.code(), absl::StrCat(cancelled.message(), " (while compiling ", body.name,
                                                   ", before pass ", pass->name(), ")"));
    }
    auto result = pass->Run(body);
    if (!result.ok()) {
      return errors::Internal(absl::StrCat("pass ", pass->name(), " failed on ", body.name, ": ",
                                           result.status().message()));
    }
    changed |= *result;
    if (options_.verify) {
      Status s = VerifyBody(body);
      if (!s.ok()) {
        return errors::Internal(absl::StrCat("after pass ", pass->name(), ", ", body.name,
                                             " is not valid: ", s.message()));
      }
    }
    if (options_.dump) options_.dump(pass->name(), body);
  }
  return changed;
}

std::vector<std::string> Pipeline::PassNames() const {
  std::vector<std::string> out;
  for (const auto& p : passes_) out.emplace_back(p->name());
  return out;
}

std::vector<std::string> DefaultPassNames() {
  return {std::string(ConstantFolding::kName), std::string(AlgebraicSimplification::kName),
          std::string(CommonSubexpressionElimination::kName), std::string(DeadCodeElimination::kName),
          std::string(LayerNormFusion::kName), std::string(GeluFusion::kName), std::string(BatchNormFolding::kName), std::string(ConvAddFusion::kName),
          std::string(ConvActivationFusion::kName), std::string(MatMulFusion::kName),
          std::string(ConvLayout::kName), std::string(ConvInputScale::kName), std::string(ElementwiseFusion::kName)};
}

StatusOr<std::unique_ptr<const Pipeline>> MakeDefaultPipeline(const ConstantEvaluator* evaluator,
                                                              PipelineOptions options) {
  for (const std::string& d : options.disabled) {
    std::vector<std::string> known = DefaultPassNames();
    if (std::find(known.begin(), known.end(), d) == known.end()) {
      return errors::InvalidArgument(
          absl::StrCat("unknown pass '", d, "' (passes: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  std::vector<std::unique_ptr<const Pass>> passes;
  if (evaluator != nullptr) {
    passes.push_back(std::make_unique<ConstantFolding>(*evaluator));
  } else {
    options.disabled.erase(std::string(ConstantFolding::kName));
  }
  passes.push_back(std::make_unique<AlgebraicSimplification>());
  passes.push_back(std::make_unique<CommonSubexpressionElimination>());
  passes.push_back(std::make_unique<DeadCodeElimination>());
  passes.push_back(std::make_unique<LayerNormFusion>());
  passes.push_back(std::make_unique<GeluFusion>());
  passes.push_back(std::make_unique<BatchNormFolding>());
  passes.push_back(std::make_unique<ConvAddFusion>());
  passes.push_back(std::make_unique<ConvActivationFusion>(/*gated=*/options.cpu_fusions));
  passes.push_back(std::make_unique<MatMulFusion>(/*gelu=*/options.cpu_fusions));
  passes.push_back(std::make_unique<ConvLayout>(/*channels_first_stems=*/options.cpu_fusions));
  passes.push_back(std::make_unique<ConvInputScale>(/*enabled=*/options.cpu_fusions));
  passes.push_back(std::make_unique<ElementwiseFusion>(/*channel_operands=*/options.cpu_fusions));
  return Pipeline::Make(std::move(passes), std::move(options));
}

}  // namespace graphd::compiler::passes
