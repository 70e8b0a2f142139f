// Attribute defaults of the parameterised activations defined in activation_ops.cc,
// shared by their inference functions and kernels.
#ifndef GRAPHD_CORE_OPS_ACTIVATION_OPS_H_
#define GRAPHD_CORE_OPS_ACTIVATION_OPS_H_

namespace graphd::ops {

inline constexpr double kEluAlpha = 1.0;
inline constexpr double kSeluAlpha = 1.6732632423543772;  // ONNX's and TensorFlow's
inline constexpr double kSeluGamma = 1.0507009873554805;
inline constexpr double kCeluAlpha = 1.0;
inline constexpr double kLeakyReluAlpha = 0.2;  // TensorFlow's (ONNX's is 0.01)
inline constexpr double kHardSigmoidAlpha = 0.2;
inline constexpr double kHardSigmoidBeta = 0.5;
inline constexpr double kThresholdedReluAlpha = 1.0;
inline constexpr double kShrinkBias = 0.0;
inline constexpr double kShrinkLambd = 0.5;

}  // namespace graphd::ops

#endif  // GRAPHD_CORE_OPS_ACTIVATION_OPS_H_
