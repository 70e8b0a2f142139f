// Conv2D (oneDNN for float32, a loop for float64), MaxPool, AvgPool and BiasAdd against
// direct reference loops with SAME / VALID / EXPLICIT padding, strides and dilations.
#include <limits>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

struct Pads {
  int64_t out_h, out_w, top, left;
};

// TensorFlow's output size and leading padding (reference, written independently).
int64_t OutSize(const std::string& padding, int64_t in, int64_t eff, int64_t stride,
                int64_t pad_total) {
  if (padding == "SAME") return (in + stride - 1) / stride;
  return (in + pad_total - eff) / stride + 1;
}

struct ConvCase {
  Shape input, filter;
  int64_t sh, sw, dh, dw;
  std::string padding;
  IntList explicit_pads;  // NHWC pairs, 8 entries, for EXPLICIT
};

template <typename T>
void CheckConv(const ConvCase& c, double tol) {
  std::mt19937 rng(1);
  Tensor x = Random<T>(c.input, rng), f = Random<T>(c.filter, rng);
  AttrMap attrs{{"strides", IntList{1, c.sh, c.sw, 1}},
                {"dilations", IntList{1, c.dh, c.dw, 1}},
                {"padding", c.padding}};
  if (c.padding == "EXPLICIT") attrs["explicit_paddings"] = c.explicit_pads;
  SCOPED_TRACE(absl::StrCat(x.DebugString(), " * ", f.DebugString(), " ", c.padding));
  auto out = RunOp("Conv2D", {x, f}, attrs);
  ASSERT_TRUE(out.ok()) << out.status();
  const int64_t n = c.input.dim(0), ih = c.input.dim(1), iw = c.input.dim(2), ci = c.input.dim(3);
  const int64_t kh = c.filter.dim(0), kw = c.filter.dim(1), co = c.filter.dim(3);
  const int64_t eh = (kh - 1) * c.dh + 1, ew = (kw - 1) * c.dw + 1;
  int64_t top = 0, left = 0, ptot_h = 0, ptot_w = 0;
  if (c.padding == "EXPLICIT") {
    top = c.explicit_pads[2];
    left = c.explicit_pads[4];
    ptot_h = top + c.explicit_pads[3];
    ptot_w = left + c.explicit_pads[5];
  }
  const int64_t oh = OutSize(c.padding, ih, eh, c.sh, ptot_h);
  const int64_t ow = OutSize(c.padding, iw, ew, c.sw, ptot_w);
  if (c.padding == "SAME") {
    top = std::max<int64_t>((oh - 1) * c.sh + eh - ih, 0) / 2;
    left = std::max<int64_t>((ow - 1) * c.sw + ew - iw, 0) / 2;
  }
  ASSERT_EQ(out->shape(), Shape({n, oh, ow, co}));
  std::vector<double> xv = ToDouble(x), fv = ToDouble(f), want;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z)
        for (int64_t o = 0; o < co; ++o) {
          double s = 0;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              int64_t yy = y * c.sh + i * c.dh - top, zz = z * c.sw + j * c.dw - left;
              if (yy < 0 || yy >= ih || zz < 0 || zz >= iw) continue;
              for (int64_t k = 0; k < ci; ++k)
                s += xv[((b * ih + yy) * iw + zz) * ci + k] * fv[((i * kw + j) * ci + k) * co + o];
            }
          want.push_back(s);
        }
  ExpectClose(*out, want, tol, tol);
}

const std::vector<ConvCase> kConvCases = {
    {Shape({2, 7, 8, 3}), Shape({3, 3, 3, 4}), 1, 1, 1, 1, "SAME", {}},
    {Shape({2, 7, 8, 3}), Shape({3, 3, 3, 4}), 1, 1, 1, 1, "VALID", {}},
    {Shape({1, 9, 10, 2}), Shape({3, 2, 2, 5}), 2, 3, 1, 1, "SAME", {}},
    {Shape({1, 9, 10, 2}), Shape({3, 3, 2, 2}), 1, 1, 2, 2, "VALID", {}},
    {Shape({1, 6, 6, 3}), Shape({2, 3, 3, 2}), 1, 2, 1, 1, "EXPLICIT", {0, 0, 1, 2, 0, 1, 0, 0}},
    {Shape({3, 5, 5, 4}), Shape({1, 1, 4, 6}), 1, 1, 1, 1, "SAME", {}},
    {Shape({1, 16, 16, 16}), Shape({3, 3, 16, 32}), 1, 1, 1, 1, "SAME", {}},
    {Shape({0, 5, 5, 2}), Shape({3, 3, 2, 2}), 1, 1, 1, 1, "SAME", {}},
    {Shape({1, 2, 2, 1}), Shape({3, 3, 1, 1}), 1, 1, 1, 1, "VALID", {}},  // empty output
};

TEST(Conv2DTest, Float32OneDnn) {
  for (const ConvCase& c : kConvCases) CheckConv<float>(c, 1e-4);
}

TEST(Conv2DTest, Float64Loop) {
  for (const ConvCase& c : kConvCases) CheckConv<double>(c, 1e-12);
}

TEST(Conv2DTest, InferenceErrors) {
  const std::vector<TensorType> in = {TT(DType::kFloat32, {1, 5, 5, 3}), TT(DType::kFloat32, {3, 3, 3, 2})};
  AttrMap ok{{"strides", IntList{1, 1, 1, 1}}, {"padding", std::string("SAME")}};
  auto shape = Infer("Conv2D", in, ok);
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ((*shape)[0].shape, PartialShape(std::vector<int64_t>{1, 5, 5, 2}));
  EXPECT_THAT(InferError("Conv2D", {TT(DType::kFloat32, {1, 5, 5, 4}), TT(DType::kFloat32, {3, 3, 3, 2})}, ok),
              HasSubstr("node 'out' (Conv2D): input [1,5,5,4] has 4 channels but filter [3,3,3,2] expects 3"));
  AttrMap bad_pad = ok;
  bad_pad["padding"] = std::string("FULL");
  EXPECT_THAT(InferError("Conv2D", in, bad_pad), HasSubstr("padding 'FULL' must be SAME, VALID or EXPLICIT"));
  AttrMap bad_strides = ok;
  bad_strides["strides"] = IntList{2, 1, 1, 1};
  EXPECT_THAT(InferError("Conv2D", in, bad_strides), HasSubstr("must be 1 in the batch and channel dimensions"));
  AttrMap nchw = ok;
  nchw["data_format"] = std::string("NCHW");
  EXPECT_THAT(InferError("Conv2D", in, nchw), HasSubstr("data_format 'NCHW' is not supported"));
  AttrMap valid = ok;
  valid["padding"] = std::string("VALID");
  EXPECT_THAT(InferError("Conv2D", {TT(DType::kFloat32, {1, 1, 5, 3}), TT(DType::kFloat32, {3, 3, 3, 2})}, valid),
              HasSubstr("is larger than the padded input"));
  EXPECT_THAT(InferError("Conv2D", {TT(DType::kInt32, {1, 5, 5, 3}), TT(DType::kInt32, {3, 3, 3, 2})}, ok),
              HasSubstr("dtype is int32"));
  AttrMap explicit_missing = ok;
  explicit_missing["padding"] = std::string("EXPLICIT");
  EXPECT_THAT(InferError("Conv2D", in, explicit_missing), HasSubstr("explicit_paddings with 8 entries"));
}

template <typename T>
void CheckPool(bool max, const Shape& shape, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
               const std::string& padding) {
  std::mt19937 rng(2);
  Tensor x = Random<T>(shape, rng, -5, 5);
  const char* op = max ? "MaxPool" : "AvgPool";
  SCOPED_TRACE(absl::StrCat(op, " ", x.DebugString(), " ", kh, "x", kw, " /", sh, ",", sw, " ", padding));
  auto out = RunOp(op, {x}, {{"ksize", IntList{1, kh, kw, 1}}, {"strides", IntList{1, sh, sw, 1}},
                             {"padding", padding}});
  ASSERT_TRUE(out.ok()) << out.status();
  const int64_t n = shape.dim(0), ih = shape.dim(1), iw = shape.dim(2), c = shape.dim(3);
  const int64_t oh = OutSize(padding, ih, kh, sh, 0), ow = OutSize(padding, iw, kw, sw, 0);
  const int64_t top = padding == "SAME" ? std::max<int64_t>((oh - 1) * sh + kh - ih, 0) / 2 : 0;
  const int64_t left = padding == "SAME" ? std::max<int64_t>((ow - 1) * sw + kw - iw, 0) / 2 : 0;
  ASSERT_EQ(out->shape(), Shape({n, oh, ow, c}));
  std::vector<double> v = ToDouble(x), want;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z)
        for (int64_t k = 0; k < c; ++k) {
          double acc = max ? -std::numeric_limits<double>::infinity() : 0;
          int count = 0;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              int64_t yy = y * sh + i - top, zz = z * sw + j - left;
              if (yy < 0 || yy >= ih || zz < 0 || zz >= iw) continue;
              double e = v[((b * ih + yy) * iw + zz) * c + k];
              acc = max ? std::max(acc, e) : acc + e;
              ++count;
            }
          want.push_back(max ? acc : acc / count);
        }
  ExpectClose(*out, want, 1e-5, 1e-5);
}

TEST(PoolTest, MaxAndAvg) {
  for (bool max : {true, false}) {
    CheckPool<float>(max, Shape({2, 6, 7, 3}), 2, 2, 2, 2, "VALID");
    CheckPool<float>(max, Shape({2, 6, 7, 3}), 3, 3, 2, 2, "SAME");
    CheckPool<float>(max, Shape({1, 5, 5, 8}), 3, 2, 1, 1, "SAME");
    CheckPool<float>(max, Shape({1, 32, 32, 16}), 2, 2, 2, 2, "SAME");
    CheckPool<float>(max, Shape({0, 4, 4, 2}), 2, 2, 2, 2, "VALID");
    CheckPool<double>(max, Shape({2, 6, 7, 3}), 3, 3, 2, 2, "SAME");
    CheckPool<double>(max, Shape({1, 5, 4, 2}), 2, 3, 1, 2, "VALID");
  }
  EXPECT_THAT(InferError("MaxPool", {TT(DType::kFloat32, {1, 4, 4, 1})},
                         {{"ksize", IntList{1, 2, 2}}, {"strides", IntList{1, 1, 1, 1}},
                          {"padding", std::string("VALID")}}),
              HasSubstr("node 'out' (MaxPool): attribute 'ksize' must be a list of 4 ints"));
  EXPECT_THAT(InferError("AvgPool", {TT(DType::kFloat32, {4, 4, 1})},
                         {{"ksize", IntList{1, 2, 2, 1}}, {"strides", IntList{1, 1, 1, 1}},
                          {"padding", std::string("VALID")}}),
              HasSubstr("input (NHWC) must have rank 4"));
  EXPECT_THAT(InferError("AvgPool", {TT(DType::kFloat32, {1, 4, 4, 1})},
                         {{"ksize", IntList{1, 2, 2, 1}}, {"strides", IntList{1, 1, 1, 1}},
                          {"padding", std::string("EXPLICIT")}}),
              HasSubstr("padding 'EXPLICIT' must be SAME, VALID"));
}

// MaxPoolGrad against a reference loop; small integers make ties, which go to the
// window's first maximum (row-major), as TensorFlow's.
template <typename T>
void CheckMaxPoolGrad(const Shape& in, int64_t kh, int64_t kw, int64_t sh, int64_t sw, const std::string& padding) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-2, 2);
  Tensor x = *Tensor::Allocate(DTypeOf<T>::value, in);
  for (T& v : x.flat<T>()) v = static_cast<T>(small(rng));
  AttrMap attrs{{"ksize", IntList{1, kh, kw, 1}}, {"strides", IntList{1, sh, sw, 1}}, {"padding", padding}};
  auto y = RunOp("MaxPool", {x}, attrs);
  ASSERT_TRUE(y.ok()) << y.status();
  Tensor dy = Random<T>(y->shape(), rng);
  SCOPED_TRACE(absl::StrCat(x.DebugString(), " ", kh, "x", kw, " /", sh, ",", sw, " ", padding));
  auto dx = RunOp("MaxPoolGrad", {x, *y, dy}, attrs);
  ASSERT_TRUE(dx.ok()) << dx.status();
  ASSERT_EQ(dx->shape(), in);
  const int64_t n = in.dim(0), ih = in.dim(1), iw = in.dim(2), c = in.dim(3);
  const int64_t oh = y->shape().dim(1), ow = y->shape().dim(2);
  const int64_t top = padding == "SAME" ? std::max<int64_t>((oh - 1) * sh + kh - ih, 0) / 2 : 0;
  const int64_t left = padding == "SAME" ? std::max<int64_t>((ow - 1) * sw + kw - iw, 0) / 2 : 0;
  std::vector<double> xv = ToDouble(x), gv = ToDouble(dy), want(xv.size(), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t p = 0; p < oh; ++p)
      for (int64_t q = 0; q < ow; ++q)
        for (int64_t k = 0; k < c; ++k) {
          int64_t arg = -1;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t yy = p * sh + i - top, zz = q * sw + j - left;
              if (yy < 0 || yy >= ih || zz < 0 || zz >= iw) continue;
              const int64_t at = ((b * ih + yy) * iw + zz) * c + k;
              if (arg < 0 || xv[at] > xv[arg]) arg = at;
            }
          want[arg] += gv[((b * oh + p) * ow + q) * c + k];
        }
  ExpectClose(*dx, want, 1e-6, 1e-6);
}

TEST(PoolTest, MaxPoolGrad) {
  CheckMaxPoolGrad<float>(Shape({2, 6, 7, 3}), 2, 2, 2, 2, "VALID");
  CheckMaxPoolGrad<float>(Shape({2, 6, 7, 3}), 3, 3, 2, 2, "SAME");  // overlapping windows
  CheckMaxPoolGrad<float>(Shape({1, 5, 5, 8}), 3, 2, 1, 1, "SAME");
  CheckMaxPoolGrad<double>(Shape({2, 5, 4, 2}), 2, 3, 1, 2, "VALID");
  CheckMaxPoolGrad<float>(Shape({0, 4, 4, 2}), 2, 2, 2, 2, "VALID");
  AttrMap attrs{{"ksize", IntList{1, 2, 2, 1}}, {"strides", IntList{1, 2, 2, 1}}, {"padding", std::string("VALID")}};
  EXPECT_THAT(InferError("MaxPoolGrad",
                         {TT(DType::kFloat32, {1, 4, 4, 1}), TT(DType::kFloat32, {1, 2, 2, 1}),
                          TT(DType::kFloat32, {1, 3, 2, 1})},
                         attrs),
              HasSubstr("grad has shape [1,3,2,1] but the pool of orig_input gives [1,2,2,1]"));
  EXPECT_THAT(InferError("MaxPoolGrad",
                         {TT(DType::kFloat32, {1, 4, 4, 1}), TT(DType::kFloat64, {1, 2, 2, 1}),
                          TT(DType::kFloat32, {1, 2, 2, 1})},
                         attrs),
              HasSubstr("input 1 is float64 but orig_input is float32"));
}

template <typename T>
void CheckBiasAdd(const Shape& shape, bool nchw) {
  std::mt19937 rng(3);
  const int channel = nchw ? 1 : shape.rank() - 1;
  Tensor x = Random<T>(shape, rng, -9, 9), b = Random<T>(Shape({shape.dim(channel)}), rng, -9, 9);
  auto out = RunOp("BiasAdd", {x, b}, {{"data_format", std::string(nchw ? "NCHW" : "NHWC")}});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> xv = ToDouble(x), bv = ToDouble(b), want;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    want.push_back(xv[i] + bv[Unflatten(i, shape.dims())[channel]]);
  }
  ExpectClose(*out, want, 1e-6);
}

TEST(BiasAddTest, Formats) {
  CheckBiasAdd<float>(Shape({2, 3}), false);
  CheckBiasAdd<float>(Shape({4, 16, 16, 64}), false);  // oneDNN binary
  CheckBiasAdd<float>(Shape({2, 3, 4, 5}), true);
  CheckBiasAdd<double>(Shape({2, 5, 3}), true);
  CheckBiasAdd<int32_t>(Shape({3, 4}), false);
  CheckBiasAdd<int64_t>(Shape({0, 4}), false);
  EXPECT_THAT(InferError("BiasAdd", {TT(DType::kFloat32, {2, 3}), TT(DType::kFloat32, {2})}),
              HasSubstr("node 'out' (BiasAdd): bias has 2 entries but value [2,3] has 3 channels (NHWC)"));
  EXPECT_THAT(InferError("BiasAdd", {TT(DType::kFloat32, {3}), TT(DType::kFloat32, {3})}),
              HasSubstr("value must have rank >= 2"));
  EXPECT_THAT(InferError("BiasAdd", {TT(DType::kFloat32, {2, 3}), TT(DType::kFloat64, {3})}),
              HasSubstr("value is float32 but bias is float64"));
}

}  // namespace
}  // namespace graphd::executor::test
