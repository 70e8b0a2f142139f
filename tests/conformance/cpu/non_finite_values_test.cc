// NaN, infinities and values far outside any index range, in tensor data and in
// attributes, reach kernels that turn floats into indices or integer elements. C++
// leaves those conversions undefined (UBSan's float-cast-overflow, found by the ONNX
// fuzzer in Cast); each kernel here either gives a defined value or a clear error.
// Under make test-asan, any undefined conversion left would stop the test.
#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.flat<T>().begin(), t.flat<T>().end());
}

TEST(NonFiniteValuesTest, GridSampleCoordinates) {
  Tensor x = Make<float>(Shape({1, 1, 2, 2}), {1, 2, 3, 4});
  // (x, y) pairs: NaN, +inf, huge finite, -huge.
  Tensor grid = Make<float>(Shape({1, 1, 4, 2}), {kNaN, 0, kInf, 0, 1e30f, 1e30f, -1e30f, 0});
  for (const char* mode : {"nearest", "bilinear", "bicubic"}) {
    auto zeros = RunOp("GridSample", {x, grid}, {{"mode", std::string(mode)}});
    ASSERT_TRUE(zeros.ok()) << mode << ": " << zeros.status();
    std::vector<float> z = Values<float>(*zeros);
    EXPECT_TRUE(std::isnan(z[0])) << mode;
    EXPECT_THAT(std::vector<float>(z.begin() + 1, z.end()), ElementsAre(0, 0, 0)) << mode;  // far outside
    auto border = RunOp("GridSample", {x, grid}, {{"mode", std::string(mode)}, {"padding_mode", std::string("border")}});
    ASSERT_TRUE(border.ok()) << mode << ": " << border.status();
    std::vector<float> b = Values<float>(*border);
    EXPECT_TRUE(std::isnan(b[0])) << mode;
    EXPECT_NEAR(b[2], 4, 1e-5) << mode;  // clamped to the bottom-right pixel
    auto reflect =
        RunOp("GridSample", {x, grid}, {{"mode", std::string(mode)}, {"padding_mode", std::string("reflection")}});
    ASSERT_TRUE(reflect.ok()) << mode << ": " << reflect.status();
    std::vector<float> r = Values<float>(*reflect);
    EXPECT_TRUE(std::isnan(r[0]) && std::isnan(r[1])) << mode;  // NaN, and infinity reflected
    for (float v : {r[2], r[3]}) {
      EXPECT_TRUE(std::isfinite(v)) << mode << ": " << v;
      // Nearest and bilinear stay within the pixels' range (bicubic may overshoot).
      if (std::string(mode) != "bicubic") EXPECT_TRUE(v >= 1 && v <= 4) << mode << ": " << v;
    }
  }
}

TEST(NonFiniteValuesTest, RoiAlignRegions) {
  Tensor img = Make<float>(Shape({1, 1, 3, 3}), {0, 1, 2, 3, 4, 5, 6, 7, 8});
  Tensor idx = Make<int64_t>(Shape({1}), {0});
  for (float bad : {kNaN, kInf}) {
    auto out = RunOp("RoiAlign", {img, Make<float>(Shape({1, 4}), {0, 0, bad, 2}), idx});
    EXPECT_THAT(out.status().message(), HasSubstr("rois[0]")) << bad;
    EXPECT_THAT(out.status().message(), HasSubstr("not finite")) << bad;
  }
  // A finite region so large that its adaptive grid would take 1e58 samples.
  auto huge = RunOp("RoiAlign", {img, Make<float>(Shape({1, 4}), {0, 0, 1e30f, 1e30f}), idx});
  EXPECT_THAT(huge.status().message(), HasSubstr("samples per output cell"));
  auto scale = RunOp("RoiAlign", {img, Make<float>(Shape({1, 4}), {0, 0, 2, 2}), idx}, {{"spatial_scale", kInf}});
  EXPECT_THAT(scale.status().message(), HasSubstr("not finite"));
  // Far outside the image with a fixed grid: every sample is zero.
  auto outside = RunOp("RoiAlign", {img, Make<float>(Shape({1, 4}), {1e30f, 1e30f, 1e30f, 1e30f}), idx},
                       {{"sampling_ratio", int64_t{2}}});
  ASSERT_TRUE(outside.ok()) << outside.status();
  EXPECT_THAT(Values<float>(*outside), ElementsAre(0));
}

TEST(NonFiniteValuesTest, ResizeScalesRoiAndExtrapolation) {
  Tensor x = Make<float>(Shape({1, 1, 2, 2}), {1, 2, 3, 4});
  for (float bad : {kNaN, kInf}) {
    EXPECT_THAT(InferError("Resize", {TT(DType::kFloat32, {1, 1, 2, 2})},
                           {{"sizes", IntList{1, 1, 4, 4}}, {"scales", FloatList{1, 1, bad, 2}}}),
                HasSubstr("scales must be finite"));
    EXPECT_THAT(InferError("Resize", {TT(DType::kFloat32, {1, 1, 2, 2})},
                           {{"sizes", IntList{1, 1, 4, 4}},
                            {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                            {"roi", FloatList{0, 0, 0, 0, 1, 1, bad, 1}}}),
                HasSubstr("roi must be finite"));
  }
  // A tiny scale maps output pixels ~1e30 pixels into the input: they read the edge.
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    auto tiny = RunOp("Resize", {x}, {{"mode", std::string(mode)}, {"sizes", IntList{1, 1, 2, 2}},
                                      {"scales", FloatList{1, 1, 1e-30f, 1e-30f}},
                                      {"coordinate_transformation_mode", std::string("asymmetric")}});
    ASSERT_TRUE(tiny.ok()) << mode << ": " << tiny.status();
    std::vector<float> v = Values<float>(*tiny);
    EXPECT_EQ(v[0], 1) << mode;    // output pixel 0 maps to input 0
    EXPECT_NEAR(v[3], 4, 1e-5) << mode;  // pixel 1 maps to 1e30: the last pixel
  }
  // An int32 image cropped outside its bounds fills with the extrapolation value
  // converted as Cast converts it (NaN -> int32 min).
  auto crop = RunOp("Resize", {Make<int32_t>(Shape({1, 1, 2, 2}), {1, 2, 3, 4})},
                    {{"sizes", IntList{1, 1, 1, 1}},
                     {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                     {"roi", FloatList{0, 0, 2, 2, 1, 1, 3, 3}},
                     {"extrapolation_value", kNaN}});
  ASSERT_TRUE(crop.ok()) << crop.status();
  EXPECT_THAT(Values<int32_t>(*crop), ElementsAre(std::numeric_limits<int32_t>::min()));
}

TEST(NonFiniteValuesTest, OneHotAndPadValuesAsTheirOwnType) {
  Tensor idx = Make<int64_t>(Shape({2}), {1, 0});
  // An int64 attribute reaches an int64 tensor exactly (no detour through double).
  const int64_t big = std::numeric_limits<int64_t>::max();
  auto exact = RunOp("OneHot", {idx}, {{"depth", int64_t{2}}, {"dtype", DType::kInt64}, {"on_value", big},
                                       {"off_value", int64_t{-9007199254740993}}});
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_THAT(Values<int64_t>(*exact), ElementsAre(-9007199254740993, big, big, -9007199254740993));
  // A float attribute to an integer dtype converts as Cast does.
  auto nan = RunOp("OneHot", {idx}, {{"depth", int64_t{2}}, {"dtype", DType::kInt32}, {"on_value", kNaN},
                                     {"off_value", -1.0f}});
  ASSERT_TRUE(nan.ok()) << nan.status();
  const int32_t m = std::numeric_limits<int32_t>::min();
  EXPECT_THAT(Values<int32_t>(*nan), ElementsAre(-1, m, m, -1));
  auto u8 = RunOp("OneHot", {idx}, {{"depth", int64_t{2}}, {"dtype", DType::kUInt8}, {"on_value", 300.0f}});
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_THAT(Values<uint8_t>(*u8), ElementsAre(0, 44, 44, 0));

  auto pad64 = RunOp("Pad", {Make<int64_t>(Shape({1}), {5})},
                     {{"paddings", IntList{1, 0}}, {"mode", std::string("CONSTANT")}, {"constant_values", big}});
  ASSERT_TRUE(pad64.ok()) << pad64.status();
  EXPECT_THAT(Values<int64_t>(*pad64), ElementsAre(big, 5));
  auto pad32 = RunOp("Pad", {Make<int32_t>(Shape({1}), {5})},
                     {{"paddings", IntList{0, 1}}, {"mode", std::string("CONSTANT")}, {"constant_values", kInf}});
  ASSERT_TRUE(pad32.ok()) << pad32.status();
  EXPECT_THAT(Values<int32_t>(*pad32), ElementsAre(5, m));
}

TEST(NonFiniteValuesTest, MelWeightMatrixAndDynamicQuantize) {
  for (float upper : {kInf, 1e30f}) {
    auto mel = RunOp("MelWeightMatrix", {Tensor::Scalar<int32_t>(8), Tensor::Scalar<int32_t>(16),
                                         Tensor::Scalar<int32_t>(8192), Tensor::Scalar<float>(0),
                                         Tensor::Scalar<float>(upper)});
    EXPECT_THAT(mel.status().message(), HasSubstr("maps past the last")) << upper;
  }
  for (float bad : {kInf, -kInf, kNaN}) {
    auto q = RunOpAll("DynamicQuantizeLinear", {Make<float>(Shape({3}), {0, bad, 1})});
    EXPECT_THAT(q.status().message(), HasSubstr("no quantisation range")) << bad;
  }
}

}  // namespace
}  // namespace graphd::executor::test
