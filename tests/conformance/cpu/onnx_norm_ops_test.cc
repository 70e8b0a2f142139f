// LayerNormalization, InstanceNormalization and LRN: small cases worked with Python's
// math module (the InstanceNormalization one is the ONNX document's example), then
// random tensors against reference loops written from the ONNX / TensorFlow formulas,
// on both the loop and the oneDNN paths.
#include <cmath>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

TEST(LayerNormTest, WorkedExample) {
  Tensor x = Make<float>(Shape({2, 3}), {1, 2, 3, 4, 4, 4});
  Tensor scale = Make<float>(Shape({3}), {1, 1, 1});
  auto out = RunOpAll("LayerNormalization", {x, scale});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  ExpectClose((*out)[0], {-1.2247356859083902, 0, 1.2247356859083902, 0, 0, 0}, 1e-6, 1e-6);
  EXPECT_EQ((*out)[1].shape(), Shape({2, 1}));
  ExpectClose((*out)[1], {2, 4}, 1e-7);
  ExpectClose((*out)[2], {1.2247356859083902, 316.2277660168379}, 1e-6);
  // Scale and bias per element: y * scale + bias.
  auto sb = RunOpAll("LayerNormalization",
                     {x, Make<float>(Shape({3}), {2, 3, 4}), Make<float>(Shape({3}), {1, 1, 1})});
  ASSERT_TRUE(sb.ok()) << sb.status();
  ExpectClose((*sb)[0], {1 - 2 * 1.2247356859083902, 1, 1 + 4 * 1.2247356859083902, 1, 1, 1}, 1e-6,
              1e-6);
}

// ONNX's reference: normalise over dims [axis, rank), scale/bias broadcast.
template <typename T>
void CheckLayerNorm(const Shape& shape, int64_t axis, const Shape& scale_shape, bool bias,
                    double tol, double lo = -3, double hi = 5) {
  std::mt19937 rng(11);
  Tensor x = Random<T>(shape, rng, lo, hi);
  Tensor scale = Random<T>(scale_shape, rng, 0.5, 2);
  Tensor b = Random<T>(scale_shape, rng, -1, 1);
  std::vector<Tensor> in = {x, scale};
  if (bias) in.push_back(b);
  const double eps = 1e-3;
  auto out = RunOpAll("LayerNormalization", in, {{"axis", axis}, {"epsilon", float(eps)}});
  ASSERT_TRUE(out.ok()) << out.status();
  const int a = static_cast<int>(axis < 0 ? axis + shape.rank() : axis);
  int64_t inner = 1;
  for (int d = a; d < shape.rank(); ++d) inner *= shape.dim(d);
  const int64_t outer = shape.num_elements() / inner;
  std::vector<double> xs = ToDouble(x), ss = ToDouble(scale), bs = ToDouble(b);
  std::vector<double> y, mean, inv;
  for (int64_t o = 0; o < outer; ++o) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < inner; ++i) m += xs[o * inner + i] / inner;
    for (int64_t i = 0; i < inner; ++i) v += std::pow(xs[o * inner + i] - m, 2) / inner;
    mean.push_back(m);
    inv.push_back(1 / std::sqrt(v + static_cast<double>(float(eps))));
    for (int64_t i = 0; i < inner; ++i) {
      // scale_shape is the trailing part of the normalised shape (or [1]).
      const double s = ss[i % ss.size()], bb = bias ? bs[i % bs.size()] : 0;
      y.push_back((xs[o * inner + i] - m) * inv.back() * s + bb);
    }
  }
  SCOPED_TRACE(absl::StrCat(shape.ToString(), " axis ", axis));
  ExpectClose((*out)[0], y, tol, tol);
  ExpectClose((*out)[1], mean, tol, tol);
  ExpectClose((*out)[2], inv, tol, tol);
  std::vector<int64_t> stats(shape.dims().begin(), shape.dims().begin() + a);
  stats.resize(shape.rank(), 1);
  EXPECT_EQ((*out)[1].shape(), Shape(stats));
}

TEST(LayerNormTest, RandomAgainstReference) {
  for (bool bias : {false, true}) {
    CheckLayerNorm<double>(Shape({2, 3, 4}), -1, Shape({4}), bias, 1e-12);
    CheckLayerNorm<double>(Shape({2, 3, 4}), 1, Shape({3, 4}), bias, 1e-12);
    CheckLayerNorm<double>(Shape({2, 3, 4}), 1, Shape({4}), bias, 1e-12);
    CheckLayerNorm<float>(Shape({5, 7}), 0, Shape({5, 7}), bias, 1e-5);
    CheckLayerNorm<float>(Shape({64, 128}), -1, Shape({128}), bias, 1e-4);  // oneDNN
    CheckLayerNorm<float>(Shape({4, 16, 96}), 1, Shape({96}), bias, 1e-4);
    // Rows split over the team (>= 32768 values): a ViT's tokens, ConvNeXt's pixels.
    CheckLayerNorm<float>(Shape({1, 197, 768}), -1, Shape({768}), bias, 1e-4);
    CheckLayerNorm<float>(Shape({1, 56, 56, 96}), -1, Shape({96}), bias, 1e-4);
    CheckLayerNorm<float>(Shape({3, 50, 33}), 1, Shape({1}), bias, 1e-4);  // scale broadcast
    CheckLayerNorm<float>(Shape({9, 1}), -1, Shape({1}), bias, 1e-5);      // rows of one: y = bias
    // Rows far from zero with a small spread: a float mean alone is off by ~1e-4 of
    // the sum's magnitude, which the normalised values (spread 1) amplify.
    CheckLayerNorm<float>(Shape({64, 256}), -1, Shape({256}), bias, 1e-4, 1000, 1001);
  }
}

TEST(LayerNormTest, EmptyAndErrors) {
  auto e = RunOpAll("LayerNormalization",
                    {Make<float>(Shape({0, 4}), {}), Make<float>(Shape({4}), {1, 1, 1, 1})});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)[0].shape(), Shape({0, 4}));
  EXPECT_EQ((*e)[1].shape(), Shape({0, 1}));
  // Empty rows: no values, NaN statistics (0 / 0), never uninitialised memory.
  auto rows = RunOpAll("LayerNormalization", {Make<float>(Shape({3, 0}), {}), Make<float>(Shape({0}), {})});
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ((*rows)[1].shape(), Shape({3, 1}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(std::isnan((*rows)[1].data<float>()[i]));
    EXPECT_TRUE(std::isnan((*rows)[2].data<float>()[i]));
  }
  EXPECT_THAT(
      InferError("LayerNormalization", {TT(DType::kFloat32, {2, 3}), TT(DType::kFloat32, {2})}),
      HasSubstr("scale [2] does not broadcast to the normalized shape [3]"));
  EXPECT_THAT(
      InferError("LayerNormalization",
                 {TT(DType::kFloat32, {2, 3}), TT(DType::kFloat32, {3}), TT(DType::kFloat64, {3})}),
      HasSubstr("input 2 is float64"));
  EXPECT_THAT(InferError("LayerNormalization", {TT(DType::kInt32, {2, 3}), TT(DType::kInt32, {3})}),
              HasSubstr("input dtype is int32"));
  EXPECT_THAT(
      InferError("LayerNormalization", {TT(DType::kFloat32, {2, 3}), TT(DType::kFloat32, {3})},
                 {{"axis", int64_t{2}}}),
      HasSubstr("axis 2 is out of range"));
  EXPECT_THAT(
      InferError("LayerNormalization", {TT(DType::kFloat32, {2, 3}), TT(DType::kFloat32, {3})},
                 {{"epsilon", -1.0f}}),
      HasSubstr("epsilon must be finite and >= 0"));
  auto t =
      Infer("LayerNormalization", {TT(DType::kFloat32, {2, 3, 4}), TT(DType::kFloat32, {3, 4})},
            {{"axis", int64_t{1}}});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)[2].shape, PartialShape(std::vector<int64_t>{2, 1, 1}));
}

TEST(InstanceNormTest, OnnxExampleAndRandom) {
  Tensor x = Make<float>(Shape({1, 2, 1, 3}), {-1, 0, 1, 2, 3, 4});
  auto out = RunOp("InstanceNormalization",
                   {x, Make<float>(Shape({2}), {1, 1.5f}), Make<float>(Shape({2}), {0, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({1, 2, 1, 3}));
  ExpectClose(
      *out,
      {-1.2247356859083902, 0, 1.2247356859083902, -0.8371035288625854, 1, 2.8371035288625857},
      1e-6, 1e-6);
  std::mt19937 rng(5);
  Tensor r = Random<double>(Shape({2, 3, 4, 5}), rng, -2, 2);
  Tensor s = Random<double>(Shape({3}), rng, 0.5, 2), b = Random<double>(Shape({3}), rng, -1, 1);
  auto got = RunOp("InstanceNormalization", {r, s, b}, {{"epsilon", 0.01f}});
  ASSERT_TRUE(got.ok()) << got.status();
  std::vector<double> xs = ToDouble(r), want(xs.size());
  for (int64_t p = 0; p < 6; ++p) {
    double m = 0, v = 0;
    for (int i = 0; i < 20; ++i) m += xs[p * 20 + i] / 20;
    for (int i = 0; i < 20; ++i) v += (xs[p * 20 + i] - m) * (xs[p * 20 + i] - m) / 20;
    for (int i = 0; i < 20; ++i) {
      want[p * 20 + i] = s.data<double>()[p % 3] * (xs[p * 20 + i] - m) /
                             std::sqrt(v + static_cast<double>(0.01f)) +
                         b.data<double>()[p % 3];
    }
  }
  ExpectClose(*got, want, 1e-12, 1e-12);
  EXPECT_THAT(
      InferError("InstanceNormalization", {TT(DType::kFloat32, {1, 2, 3}), TT(DType::kFloat32, {3}),
                                           TT(DType::kFloat32, {2})}),
      HasSubstr("scale [3] must be a vector of the 2 channels"));
  EXPECT_THAT(
      InferError("InstanceNormalization",
                 {TT(DType::kFloat32, {1, 2}), TT(DType::kFloat32, {2}), TT(DType::kFloat32, {2})}),
      HasSubstr("rank >= 3"));
}

TEST(LrnTest, WorkedExampleAndRandom) {
  AttrMap unit = {{"depth_radius", int64_t{1}}, {"bias", 1.0f}, {"alpha", 1.0f}, {"beta", 1.0f}};
  auto out = RunOp("LRN", {Make<float>(Shape({1, 1, 1, 3}), {1, 2, 3})}, unit);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(*out, {1.0 / 6, 2.0 / 15, 3.0 / 14}, 1e-6);
  // ONNX test_lrn's attributes (size 5, alpha 0.0002, beta 0.75, bias 2) as TensorFlow's.
  std::mt19937 rng(9);
  for (const char* format : {"NCHW", "NHWC"}) {
    const bool nchw = std::string(format) == "NCHW";
    const Shape shape = nchw ? Shape({2, 7, 3, 4}) : Shape({2, 3, 4, 7});
    AttrMap attrs = {{"depth_radius", int64_t{2}},
                     {"alpha", 0.0002f / 5},
                     {"beta", 0.75f},
                     {"bias", 2.0f},
                     {"data_format", std::string(format)}};
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      Tensor x = dtype == DType::kFloat32 ? Random<float>(shape, rng, -20, 20)
                                          : Random<double>(shape, rng, -20, 20);
      auto got = RunOp("LRN", {x}, attrs);
      ASSERT_TRUE(got.ok()) << got.status();
      std::vector<double> xs = ToDouble(x), want(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        std::vector<int64_t> idx = Unflatten(static_cast<int64_t>(i), shape.dims());
        const int cd = nchw ? 1 : 3;
        double sum = 0;
        for (int64_t c = idx[cd] - 2; c <= idx[cd] + 2; ++c) {
          if (c < 0 || c >= 7) continue;
          std::vector<int64_t> j = idx;
          j[cd] = c;
          sum += std::pow(xs[Flatten(j, shape.dims())], 2);
        }
        want[i] = xs[i] / std::pow(2.0 + static_cast<double>(0.0002f / 5) * sum, 0.75);
      }
      SCOPED_TRACE(absl::StrCat(format, " ", DTypeName(dtype)));
      ExpectClose(*got, want, dtype == DType::kFloat32 ? 1e-5 : 1e-12, 1e-6);
    }
  }
  EXPECT_THAT(InferError("LRN", {TT(DType::kFloat32, {2, 3, 4})}), HasSubstr("rank 4"));
  EXPECT_THAT(
      InferError("LRN", {TT(DType::kFloat32, {1, 1, 1, 3})}, {{"depth_radius", int64_t{-1}}}),
      HasSubstr("depth_radius must be >= 0"));
}

}  // namespace
}  // namespace graphd::executor::test
