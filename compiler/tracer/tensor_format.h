// Printing a tensor's values as numpy does (and so as TensorFlow's eager tensors
// print): `2.0`, `[1 2 3]`, `[0.5  1.   2.25]`, `[[1 2]\n [3 4]]`, `b'hi'`, with
// large tensors summarised by `...`.
#ifndef GRAPHD_COMPILER_TRACER_TENSOR_FORMAT_H_
#define GRAPHD_COMPILER_TRACER_TENSOR_FORMAT_H_

#include <string>

#include "core/tensor.h"

namespace graphd::compiler::tracer {

// numpy's str() of the tensor's values.
std::string FormatTensorValues(const Tensor& t);

// TensorFlow's repr of an eager tensor: `tf.Tensor(2.0, shape=(), dtype=float32)`,
// the values on their own line when they take several.
std::string EagerTensorRepr(const Tensor& t);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_TENSOR_FORMAT_H_
