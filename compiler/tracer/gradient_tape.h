// tf.GradientTape and tf.gradients for traced code.
//
// A tape records the nodes its scope's graph gains while the tape is active (between
// __enter__ and __exit__, minus stop_recording() blocks): node ids only grow while a
// body is traced, so the record is a list of id intervals. tape.gradient(target,
// sources) differentiates through recorded nodes only (compiler/autodiff) and adds
// the gradient nodes to the same graph, so a tape that is still recording records
// them too (nested tapes give higher derivatives).
//
// Sources: a tensor the tape watched (tape.watch) or that a recorded node made; a
// tf.Variable whose reads (ReadVariableOp nodes) the tape recorded, when the tape
// watches accessed trainable variables (the default) or watched it explicitly. Other
// sources, unconnected ones and integer ones give None, as TensorFlow does.
#ifndef GRAPHD_COMPILER_TRACER_GRADIENT_TAPE_H_
#define GRAPHD_COMPILER_TRACER_GRADIENT_TAPE_H_

#include "compiler/tracer/objects.h"

namespace graphd::compiler::tracer {

// tf.GradientTape(persistent=False, watch_accessed_variables=True).
StatusOr<Value> MakeGradientTape(Interpreter& interp, CallArgs& call);
// tf.stop_gradient(input): a StopGradient node.
StatusOr<Value> StopGradient(Interpreter& interp, CallArgs& call);
// tf.gradients(ys, xs, grad_ys=None): every node of the current scope counts.
StatusOr<Value> Gradients(Interpreter& interp, CallArgs& call);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_GRADIENT_TAPE_H_
