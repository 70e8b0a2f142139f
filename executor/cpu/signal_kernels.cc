// Signal kernels (core/ops/signal_ops.cc): DFT, STFT, SignalWindow, MelWeightMatrix.
// Transforms accumulate in double: a radix-2 FFT when the length is a power of two,
// else the direct sum over a table of the length's twiddle factors.
#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

#include "core/float_to_int.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

// One transform length: its twiddle factors exp(-2 pi i m / length).
class Transform {
 public:
  Transform(int64_t length, bool inverse) : length_(length), inverse_(inverse) {
    cos_.resize(length);
    sin_.resize(length);
    for (int64_t m = 0; m < length; ++m) {
      const double a = 2 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(length);
      cos_[m] = std::cos(a);
      sin_[m] = (inverse ? 1 : -1) * std::sin(a);
    }
    pow2_ = length > 0 && (length & (length - 1)) == 0;
  }

  // re/im hold `length` values (the signal, zero-padded); the first `bins` bins of the
  // transform are written to out_re/out_im.
  void Run(std::vector<double>& re, std::vector<double>& im, int64_t bins, double* out_re,
           double* out_im) const {
    const double scale = inverse_ ? 1.0 / static_cast<double>(length_) : 1.0;
    if (pow2_) {
      Fft(re, im);
      for (int64_t k = 0; k < bins; ++k) {
        out_re[k] = re[k] * scale;
        out_im[k] = im[k] * scale;
      }
      return;
    }
    for (int64_t k = 0; k < bins; ++k) {
      double sr = 0, si = 0;
      int64_t m = 0;  // (j * k) mod length
      for (int64_t j = 0; j < length_; ++j) {
        sr += re[j] * cos_[m] - im[j] * sin_[m];
        si += re[j] * sin_[m] + im[j] * cos_[m];
        m += k;
        if (m >= length_) m %= length_;
      }
      out_re[k] = sr * scale;
      out_im[k] = si * scale;
    }
  }

 private:
  // In-place iterative radix-2 FFT (bit-reversal permutation, then butterflies).
  void Fft(std::vector<double>& re, std::vector<double>& im) const {
    const int64_t n = length_;
    for (int64_t i = 1, j = 0; i < n; ++i) {
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) {
        std::swap(re[i], re[j]);
        std::swap(im[i], im[j]);
      }
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t step = n / len;
      for (int64_t start = 0; start < n; start += len) {
        for (int64_t k = 0; k < len / 2; ++k) {
          const double wr = cos_[k * step], wi = sin_[k * step];
          const int64_t a = start + k, b = a + len / 2;
          const double tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr;
          re[b] = re[a] - tr;
          im[b] = im[a] - ti;
          re[a] += tr;
          im[a] += ti;
        }
      }
    }
  }

  int64_t length_;
  bool inverse_, pow2_ = false;
  std::vector<double> cos_, sin_;
};

template <typename T>
Status DftTyped(KernelContext& ctx, int axis, bool inverse, bool onesided, int64_t length) {
  const Tensor& x = ctx.input(0);
  const Shape& s = x.shape();
  const int rank = s.rank();
  if (rank < 2 || axis >= rank - 1) return ctx.Error("axis must precede the complex dim");
  const int64_t c = s.dim(rank - 1), n = s.dim(axis);
  if (c != 1 && c != 2) return ctx.Error("the last dim must be 1 (real) or 2 (complex)");
  const int64_t len = length == -1 ? n : length;
  if (len < 1) return ctx.Error("the transform length must be positive");
  const int64_t bins = onesided ? len / 2 + 1 : len;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s.dim(d);
  for (int d = axis + 1; d < rank - 1; ++d) inner *= s.dim(d);
  std::vector<int64_t> dims = s.dims();
  dims[axis] = bins;
  dims[rank - 1] = 2;
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, Shape(dims)));
  const Transform t(len, inverse);
  const T* px = x.data<T>();
  T* py = y->data<T>();
  std::vector<double> re(len), im(len), out_re(bins), out_im(bins);
  for (int64_t o = 0; o < outer; ++o) {
    RETURN_IF_ERROR(ctx.cancellation().Check());
    for (int64_t i = 0; i < inner; ++i) {
      std::fill(re.begin(), re.end(), 0.0);
      std::fill(im.begin(), im.end(), 0.0);
      for (int64_t j = 0; j < std::min(n, len); ++j) {
        const T* e = px + ((o * n + j) * inner + i) * c;
        re[j] = e[0];
        if (c == 2) im[j] = e[1];
      }
      t.Run(re, im, bins, out_re.data(), out_im.data());
      for (int64_t k = 0; k < bins; ++k) {
        T* e = py + ((o * bins + k) * inner + i) * 2;
        e[0] = static_cast<T>(out_re[k]);
        e[1] = static_cast<T>(out_im[k]);
      }
    }
  }
  return absl::OkStatus();
}

template <typename T>
Status StftTyped(KernelContext& ctx, int64_t step, bool onesided) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Shape& s = x.shape();
  if (s.rank() != 3 || (s.dim(2) != 1 && s.dim(2) != 2) || w.shape().rank() != 1) {
    return ctx.Error("expected a signal [batch, length, 1|2] and a window vector");
  }
  const int64_t batch = s.dim(0), len = s.dim(1), c = s.dim(2), frame = w.shape().dim(0);
  if (frame < 1 || frame > len) {
    return ctx.Error(absl::StrCat("frame length ", frame, " must be in [1, ", len, "]"));
  }
  const int64_t frames = (len - frame) / step + 1, bins = onesided ? frame / 2 + 1 : frame;
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, Shape({batch, frames, bins, 2})));
  const Transform t(frame, /*inverse=*/false);
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  T* py = y->data<T>();
  std::vector<double> re(frame), im(frame), out_re(bins), out_im(bins);
  for (int64_t b = 0; b < batch; ++b) {
    RETURN_IF_ERROR(ctx.cancellation().Check());
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t j = 0; j < frame; ++j) {
        const T* e = px + (b * len + f * step + j) * c;
        re[j] = static_cast<double>(e[0]) * pw[j];
        im[j] = c == 2 ? static_cast<double>(e[1]) * pw[j] : 0.0;
      }
      t.Run(re, im, bins, out_re.data(), out_im.data());
      T* e = py + (b * frames + f) * bins * 2;
      for (int64_t k = 0; k < bins; ++k) {
        e[2 * k] = static_cast<T>(out_re[k]);
        e[2 * k + 1] = static_cast<T>(out_im[k]);
      }
    }
  }
  return absl::OkStatus();
}

int64_t ScalarInt(const Tensor& t) {
  return t.dtype() == DType::kInt32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
}
double ScalarDouble(const Tensor& t) {
  return t.dtype() == DType::kFloat32 ? t.data<float>()[0] : t.data<double>()[0];
}

// ONNX's windows: cosine sums over N = size (periodic) or size - 1 (symmetric).
Status WindowFn(KernelContext& ctx) {
  if (ctx.input(0).num_elements() != 1) return ctx.Error("size must hold one value");
  const int64_t size = ScalarInt(ctx.input(0));
  if (size < 0) return ctx.Error(absl::StrCat("size must be >= 0, got ", size));
  const std::string kind = AttrOr<std::string>(ctx.node(), "window", "hann");
  const bool periodic = AttrOr<bool>(ctx.node(), "periodic", true);
  double a0 = 0.5, a1 = 0.5, a2 = 0;  // hann
  if (kind == "hamming") {
    a0 = 25.0 / 46.0;
    a1 = 21.0 / 46.0;
  } else if (kind == "blackman") {
    a0 = 0.42;
    a2 = 0.08;
  }
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, Shape({size})));
  const double n = static_cast<double>(periodic ? size : size - 1);
  for (int64_t i = 0; i < size; ++i) {
    const double a = n > 0 ? 2 * std::numbers::pi * static_cast<double>(i) / n : 0;
    const double v = a0 - a1 * std::cos(a) + a2 * std::cos(2 * a);
    if (y->dtype() == DType::kFloat64) {
      y->data<double>()[i] = v;
    } else {
      y->data<float>()[i] = static_cast<float>(v);
    }
  }
  return absl::OkStatus();
}

// Triangles between mel-spaced points mapped onto DFT bins (ONNX's definition: the
// num_mel_bins + 2 points split [mel(lower), mel(upper)] into num_mel_bins + 2 steps,
// bin = floor((dft_length + 1) * hertz / sample_rate)).
Status MelFn(KernelContext& ctx) {
  for (int i = 0; i < 5; ++i) {
    if (ctx.input(i).num_elements() != 1) return ctx.Error("every input must hold one value");
  }
  const int64_t mels = ScalarInt(ctx.input(0)), dft = ScalarInt(ctx.input(1)),
                rate = ScalarInt(ctx.input(2));
  const double lower = ScalarDouble(ctx.input(3)), upper = ScalarDouble(ctx.input(4));
  if (mels < 1 || dft < 1 || rate < 1) {
    return ctx.Error("num_mel_bins, dft_length and sample_rate must be positive");
  }
  if (!(lower >= 0 && lower <= upper)) {
    return ctx.Error(absl::StrCat("need 0 <= lower_edge_hertz <= upper_edge_hertz, got ", lower,
                                  " and ", upper));
  }
  const int64_t bins = dft / 2 + 1;
  auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double lo = mel(lower), step = (mel(upper) - lo) / static_cast<double>(mels + 2);
  std::vector<int64_t> point(mels + 2);
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lo) / 2595.0) - 1.0);
    const std::optional<int64_t> bin =
        TruncateInRange<int64_t>(std::floor(static_cast<double>(dft + 1) * hz / static_cast<double>(rate)));
    point[i] = bin.value_or(-1);  // NaN (an infinite upper edge) or past int64: refused below
    if (point[i] < 0 || point[i] >= bins) {
      return ctx.Error(absl::StrCat("upper_edge_hertz ", upper, " maps past the last of the ", bins,
                                    " DFT bins (sample_rate ", rate, ")"));
    }
  }
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, Shape({bins, mels})));
  std::vector<double> out(bins * mels, 0.0);
  for (int64_t m = 0; m < mels; ++m) {
    const int64_t left = point[m], center = point[m + 1], right = point[m + 2];
    if (center == left) {
      out[center * mels + m] = 1;
    } else {
      for (int64_t j = left; j <= center; ++j) {
        out[j * mels + m] = static_cast<double>(j - left) / static_cast<double>(center - left);
      }
    }
    for (int64_t j = center; j < right; ++j) {
      out[j * mels + m] = static_cast<double>(right - j) / static_cast<double>(right - center);
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (y->dtype() == DType::kFloat64) {
      y->data<double>()[i] = out[i];
    } else {
      y->data<float>()[i] = static_cast<float>(out[i]);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterSignalKernels(KernelRegistry& r) {
  const auto dtypes = {DType::kFloat32, DType::kFloat64};
  r.Register("DFT", kCpu, dtypes, [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const int axis = static_cast<int>(AttrOr<int64_t>(node, "axis", 1));
    const bool inverse = AttrOr<bool>(node, "inverse", false);
    const bool onesided = AttrOr<bool>(node, "onesided", false);
    const int64_t length = AttrOr<int64_t>(node, "length", -1);
    return std::make_unique<FnKernel>([=](KernelContext& ctx) {
      return ctx.input(0).dtype() == DType::kFloat64
                 ? DftTyped<double>(ctx, axis, inverse, onesided, length)
                 : DftTyped<float>(ctx, axis, inverse, onesided, length);
    });
  });
  r.Register("STFT", kCpu, dtypes, [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const int64_t step = AttrOr<int64_t>(node, "frame_step", 1);
    const bool onesided = AttrOr<bool>(node, "onesided", true);
    return std::make_unique<FnKernel>([=](KernelContext& ctx) {
      return ctx.input(0).dtype() == DType::kFloat64 ? StftTyped<double>(ctx, step, onesided)
                                                     : StftTyped<float>(ctx, step, onesided);
    });
  });
  r.Register("SignalWindow", kCpu, dtypes, FnKernel::Factory(WindowFn));
  r.Register("MelWeightMatrix", kCpu, dtypes, FnKernel::Factory(MelFn));
}

}  // namespace graphd::executor::cpu
