// The activation functions of the recurrent layers (RNN, GRU, LSTM), by ONNX name, with
// their alpha/beta parameters.
#ifndef GRAPHD_EXECUTOR_CPU_RNN_ACTIVATION_H_
#define GRAPHD_EXECUTOR_CPU_RNN_ACTIVATION_H_

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace graphd::executor::cpu {

class RnnActivation {
 public:
  enum class Kind { kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh,
                    kHardSigmoid, kElu, kSoftsign, kSoftplus };

  // Activations named in `names` (names the op's inference has checked), taking their
  // alpha and beta from `alphas`/`betas` in order (each from the next unused entry,
  // only for the functions that have the parameter), else the defaults.
  static std::vector<RnnActivation> FromNames(const std::vector<std::string>& names,
                                              const std::vector<float>& alphas,
                                              const std::vector<float>& betas) {
    std::vector<RnnActivation> out;
    size_t ai = 0, bi = 0;
    for (const std::string& n : names) {
      RnnActivation a;
      double alpha = 0, beta = 0;
      bool uses_alpha = true, uses_beta = false;
      if (n == "Relu") { a.kind_ = Kind::kRelu; uses_alpha = false; }
      else if (n == "Tanh") { a.kind_ = Kind::kTanh; uses_alpha = false; }
      else if (n == "Sigmoid") { a.kind_ = Kind::kSigmoid; uses_alpha = false; }
      else if (n == "Affine") { a.kind_ = Kind::kAffine; alpha = 1; uses_beta = true; }
      else if (n == "LeakyRelu") { a.kind_ = Kind::kLeakyRelu; alpha = 0.01; }
      else if (n == "ThresholdedRelu") { a.kind_ = Kind::kThresholdedRelu; alpha = 1; }
      else if (n == "ScaledTanh") { a.kind_ = Kind::kScaledTanh; alpha = 1; beta = 1; uses_beta = true; }
      else if (n == "HardSigmoid") { a.kind_ = Kind::kHardSigmoid; alpha = 0.2; beta = 0.5; uses_beta = true; }
      else if (n == "Elu") { a.kind_ = Kind::kElu; alpha = 1; }
      else if (n == "Softsign") { a.kind_ = Kind::kSoftsign; uses_alpha = false; }
      else { a.kind_ = Kind::kSoftplus; uses_alpha = false; }
      if (uses_alpha && ai < alphas.size()) alpha = alphas[ai++];
      if (uses_beta && bi < betas.size()) beta = betas[bi++];
      a.alpha_ = alpha;
      a.beta_ = beta;
      out.push_back(a);
    }
    return out;
  }

  Kind kind() const { return kind_; }

  double operator()(double x) const {
    switch (kind_) {
      case Kind::kRelu: return std::max(x, 0.0);
      case Kind::kTanh: return std::tanh(x);
      case Kind::kSigmoid: return 1 / (1 + std::exp(-x));
      case Kind::kAffine: return alpha_ * x + beta_;
      case Kind::kLeakyRelu: return x >= 0 ? x : alpha_ * x;
      case Kind::kThresholdedRelu: return x >= alpha_ ? x : 0;  // ">=" as the RNN ops define it
      case Kind::kScaledTanh: return alpha_ * std::tanh(beta_ * x);
      case Kind::kHardSigmoid: return std::clamp(alpha_ * x + beta_, 0.0, 1.0);
      case Kind::kElu: return x >= 0 ? x : alpha_ * (std::exp(x) - 1);
      case Kind::kSoftsign: return x / (1 + std::abs(x));
      case Kind::kSoftplus: return std::log1p(std::exp(x));
    }
    return x;
  }

 private:
  Kind kind_ = Kind::kTanh;
  double alpha_ = 0, beta_ = 0;
};

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_RNN_ACTIVATION_H_
