// Explicit registration of every op family (DESIGN.md convention 6).
#ifndef GRAPHD_CORE_OPS_ALL_OPS_H_
#define GRAPHD_CORE_OPS_ALL_OPS_H_

namespace graphd {

class OpRegistry;

void RegisterArrayOps(OpRegistry& registry);  // Placeholder, Const, Identity, NoOp, Reshape, Cast
void RegisterMathOps(OpRegistry& registry);   // binary elementwise, MatMul, reductions
void RegisterNnOps(OpRegistry& registry);     // Relu, Sigmoid, Tanh, Softmax
void RegisterStateOps(OpRegistry& registry);  // VariableV2, Assign, AssignAdd, AssignSub
void RegisterControlFlowOps(OpRegistry& registry);  // Arg, If, While
void RegisterLogicOps(OpRegistry& registry);  // comparisons, LogicalAnd/Or/Not

inline void RegisterAllOps(OpRegistry& registry) {
  RegisterArrayOps(registry);
  RegisterMathOps(registry);
  RegisterNnOps(registry);
  RegisterStateOps(registry);
  RegisterControlFlowOps(registry);
  RegisterLogicOps(registry);
}

}  // namespace graphd

#endif  // GRAPHD_CORE_OPS_ALL_OPS_H_
