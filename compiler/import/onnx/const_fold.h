// Import-time constant folding: an ONNX node whose inputs are all constants (or
// value inputs) is built into a scratch function, evaluated, and its outputs become
// constants. This is what turns exported shape arithmetic (Shape -> Gather -> Concat
// -> Reshape, ConstantOfShape of a computed shape) into the attributes graphd needs.
#ifndef GRAPHD_COMPILER_IMPORT_ONNX_CONST_FOLD_H_
#define GRAPHD_COMPILER_IMPORT_ONNX_CONST_FOLD_H_

#include "compiler/import/onnx/node_context.h"
#include "compiler/passes/constant_evaluator.h"

namespace graphd::compiler::onnx_import {

// Whether every given input of `node` is a constant of `ctx`, with at most
// `max_elements` elements in all.
bool AllInputsConstant(const ImportContext& ctx, const onnx::NodeProto& node, int64_t max_elements);

// Builds `node` with `build` over its constant inputs in a scratch graph, evaluates it
// and defines its outputs as constants of `ctx`. False (with `ctx` unchanged) when
// anything fails: the caller then builds the node as usual.
bool FoldNode(ImportContext& ctx, const onnx::NodeProto& node, OpBuilder build,
              const passes::ConstantEvaluator& evaluator);

}  // namespace graphd::compiler::onnx_import

#endif  // GRAPHD_COMPILER_IMPORT_ONNX_CONST_FOLD_H_
