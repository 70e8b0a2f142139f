// tf.gradients for graphd.v1 (TensorFlow 1) graphs: the client adds, per source x, a
// node of op "Gradients" with inputs [ys..., grad_ys..., x] and attributes num_ys,
// num_grad_ys (0 or num_ys). Importing it adds the gradient nodes of
// d(sum of ys . grad_ys)/dx (compiler/autodiff) under "<name>/" and an Identity named
// <name> holding the result: zeros of x's shape where no differentiable path joins
// them (TensorFlow returns None, which the client gives when no path exists at all).
#ifndef GRAPHD_COMPILER_IMPORT_GRADIENTS_IMPORT_H_
#define GRAPHD_COMPILER_IMPORT_GRADIENTS_IMPORT_H_

#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace graphd::compiler {

inline constexpr char kGradientsOp[] = "Gradients";
// The most nodes a graph may reach through gradient expansion: a client's request
// counts each Gradients node as one, and each may add a few times the graph's size.
inline constexpr int kMaxNodesWithGradients = 1 << 21;

// Expands a Gradients node `name` with resolved `inputs` and `attrs` into `graph`.
// ResourceExhausted (the graph unchanged) when `graph` would exceed `max_nodes`.
Status ImportGradients(const std::string& name, const std::vector<OutputRef>& inputs, const AttrMap& attrs,
                       Graph& graph, int max_nodes = kMaxNodesWithGradients);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_IMPORT_GRADIENTS_IMPORT_H_
