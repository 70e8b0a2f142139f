// Algebraic simplification: nodes that compute one of their inputs are bypassed (their
// uses read that input instead):
//   Add(x, 0), Add(0, x), Sub(x, 0), Mul(x, 1), Mul(1, x), Div(x, 1), where the 0 or 1
//     is a Const with every element equal to it whose broadcast leaves x's shape as
//     it is (a scalar, or dims that are 1 or x's known dims);
//   Identity(x); Cast(x) to x's own dtype; Reshape(x) to x's own (known-rank) shape;
//   Transpose(x) with the identity permutation; Pad(x) with all paddings 0; Neg(Neg(x)).
// Transpose(Transpose(x, p1), p2) becomes one Transpose(x, q) with q[i] = p1[p2[i]]
// (or x when q is the identity). Nodes a pass must leave alone (pass_util.h IsPinned)
// and nodes whose output is a body result are not bypassed (a result is not made an
// alias of another tensor; it may become a composed Transpose); the nodes the
// rewrites leave without uses go. Values,
// dtypes and shapes are exactly those of the original graph, except that x + 0 turns
// a -0.0 in x into +0.0.
#ifndef GRAPHD_COMPILER_PASSES_ALGEBRAIC_SIMPLIFICATION_H_
#define GRAPHD_COMPILER_PASSES_ALGEBRAIC_SIMPLIFICATION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class AlgebraicSimplification : public Pass {
 public:
  static constexpr absl::string_view kName = "algebraic_simplification";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_ALGEBRAIC_SIMPLIFICATION_H_
