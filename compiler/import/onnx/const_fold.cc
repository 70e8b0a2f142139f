#include "compiler/import/onnx/const_fold.h"

#include <memory>

namespace graphd::compiler::onnx_import {

bool AllInputsConstant(const ImportContext& ctx, const onnx::NodeProto& node, int64_t max_elements) {
  int64_t total = 0;
  bool any = false;
  for (const std::string& in : node.input()) {
    if (in.empty()) continue;
    const Tensor* t = ctx.GetConst(in);
    if (t == nullptr || t->dtype() == DType::kString) return false;
    total += t->num_elements();
    any = true;
  }
  return any && total <= max_elements;
}

bool FoldNode(ImportContext& ctx, const onnx::NodeProto& node, OpBuilder build,
              const passes::ConstantEvaluator& evaluator) {
  auto graph = std::make_unique<Graph>(ctx.graph().ops());
  ImportContext scratch(*graph, ctx.opset());
  for (const std::string& in : node.input()) {
    if (in.empty() || scratch.IsDefined(in)) continue;
    if (!scratch.DefineConst(in, *ctx.GetConst(in)).ok()) return false;
  }
  NodeContext n(scratch, node);
  if (!build(n).ok()) return false;
  std::vector<std::string> names;
  std::vector<OutputRef> results;
  for (const std::string& out : node.output()) {
    if (out.empty()) continue;
    auto ref = scratch.Get(out);
    if (!ref.ok()) return false;
    names.push_back(out);
    results.push_back(*ref);
  }
  auto fn = MakeFunction("onnx_fold", std::move(graph), std::vector<const Node*>{}, std::move(results));
  if (!fn.ok()) return false;
  auto values = evaluator.Evaluate(**fn);
  if (!values.ok() || values->size() != names.size()) return false;
  for (size_t i = 0; i < names.size(); ++i) {
    if (ctx.IsDefined(names[i])) return false;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!ctx.DefineConst(names[i], std::move((*values)[i])).ok()) return false;
  }
  return true;
}

}  // namespace graphd::compiler::onnx_import
