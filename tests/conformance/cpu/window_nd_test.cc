// The channels-first window ops (ConvND, ConvTransposeND on oneDNN for float32 and
// loops for float64; MaxPoolND, AvgPoolND; Resize; Pad EDGE) against reference loops
// written here over N-D index arithmetic, independently of the kernels' 3-D nests.
#include <limits>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

// Window attributes of one case; lists have one entry per spatial dim.
struct Win {
  IntList strides, dilations, pads, output_padding;
  int64_t group = 1;
};

AttrMap Attrs(const Win& w) {
  AttrMap a{{"strides", w.strides}, {"dilations", w.dilations}, {"pads", w.pads}, {"group", w.group}};
  if (!w.output_padding.empty()) a["output_padding"] = w.output_padding;
  return a;
}

int64_t Prod(const std::vector<int64_t>& v, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p *= v[i];
  return p;
}

int64_t Flatten(const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  int64_t f = 0;
  for (size_t i = 0; i < dims.size(); ++i) f = f * dims[i] + index[i];
  return f;
}

// Reference convolution (or, `transposed`, its transpose) over any spatial rank.
std::vector<double> RefConv(const Tensor& x, const Tensor& f, const Tensor* bias, const Win& w, bool transposed,
                            const std::vector<int64_t>& out_dims) {
  std::vector<double> xv = ToDouble(x), fv = ToDouble(f), out(Prod(out_dims), 0.0);
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& fd = f.shape().dims();
  const size_t sp = xd.size() - 2;
  const int64_t c = xd[1], o = out_dims[1], cg = c / w.group, og = o / w.group;
  std::vector<int64_t> kd(fd.begin() + 2, fd.end());
  // Every (input cell, kernel tap) pair links to one output cell.
  for (int64_t xi = 0; xi < Prod(xd); ++xi) {
    std::vector<int64_t> xidx = Unflatten(xi, xd);
    for (int64_t t = 0; t < Prod(kd); ++t) {
      std::vector<int64_t> tap = Unflatten(t, kd);
      // conv: out cell q with q * s - pb + tap * d == in; transposed: q = in * s - pb + tap * d.
      std::vector<int64_t> q(sp);
      bool ok = true;
      for (size_t i = 0; i < sp && ok; ++i) {
        int64_t in = xidx[2 + i];
        if (transposed) {
          q[i] = in * w.strides[i] - w.pads[i] + tap[i] * w.dilations[i];
        } else {
          int64_t num = in + w.pads[i] - tap[i] * w.dilations[i];
          ok = num >= 0 && num % w.strides[i] == 0;
          q[i] = num / w.strides[i];
        }
        ok = ok && q[i] >= 0 && q[i] < out_dims[2 + i];
      }
      if (!ok) continue;
      const int64_t ic = xidx[1], g = ic / cg;
      for (int64_t ol = 0; ol < og; ++ol) {
        const int64_t oc = g * og + ol;
        std::vector<int64_t> fidx = transposed ? std::vector<int64_t>{ic, ol} : std::vector<int64_t>{oc, ic % cg};
        fidx.insert(fidx.end(), tap.begin(), tap.end());
        std::vector<int64_t> oidx{xidx[0], oc};
        oidx.insert(oidx.end(), q.begin(), q.end());
        out[Flatten(oidx, out_dims)] += xv[xi] * fv[Flatten(fidx, fd)];
      }
    }
  }
  if (bias != nullptr) {
    std::vector<double> bv = ToDouble(*bias);
    const int64_t plane = Prod(out_dims, 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] += bv[(i / plane) % o];
  }
  return out;
}

struct ConvCase {
  Shape x, f;
  Win w;
  bool bias;
  std::vector<int64_t> out;  // expected output dims
};

template <typename T>
void CheckConv(const ConvCase& c, bool transposed, double tol) {
  std::mt19937 rng(3);
  Tensor x = Random<T>(c.x, rng), f = Random<T>(c.f, rng);
  int64_t o = c.out[1];
  Tensor b = Random<T>(Shape({o}), rng);
  std::vector<Tensor> in{x, f};
  if (c.bias) in.push_back(b);
  SCOPED_TRACE(absl::StrCat(transposed ? "transposed " : "", x.DebugString(), " * ", f.DebugString()));
  auto out = RunOp(transposed ? "ConvTransposeND" : "ConvND", in, Attrs(c.w));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->shape(), Shape(c.out));
  ExpectClose(*out, RefConv(x, f, c.bias ? &b : nullptr, c.w, transposed, c.out), tol, tol);
}

const std::vector<ConvCase> kConvCases = {
    {Shape({2, 3, 9}), Shape({4, 3, 3}), {{2}, {1}, {1, 0}}, true, {2, 4, 4}},
    {Shape({1, 4, 7, 6}), Shape({6, 2, 3, 2}), {{1, 2}, {2, 1}, {1, 0, 2, 1}, {}, 2}, true, {1, 6, 6, 3}},
    {Shape({2, 2, 5, 6, 4}), Shape({3, 2, 2, 3, 2}), {{1, 2, 1}, {1, 1, 2}, {0, 1, 1, 1, 0, 0}}, false,
     {2, 3, 5, 3, 3}},
    {Shape({1, 4, 4, 5, 3}), Shape({4, 1, 2, 2, 2}), {{2, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, {}, 4}, true,
     {1, 4, 3, 6, 4}},
    // Pointwise on a spatial size of 1 (a squeeze-excitation's layers): small ones on
    // conv_pointwise.h's loops, one row or several, its column halves from 16384
    // weights (576x144 splits at column 80), and one past kPointwiseMacs on oneDNN.
    {Shape({1, 24, 1, 1}), Shape({8, 24, 1, 1}), {{1, 1}, {1, 1}, {0, 0, 0, 0}}, true, {1, 8, 1, 1}},
    {Shape({3, 40, 1, 1}), Shape({37, 40, 1, 1}), {{1, 1}, {1, 1}, {0, 0, 0, 0}}, false, {3, 37, 1, 1}},
    {Shape({1, 576, 1, 1}), Shape({144, 576, 1, 1}), {{1, 1}, {1, 1}, {0, 0, 0, 0}}, true, {1, 144, 1, 1}},
    {Shape({1, 144, 1, 1}), Shape({577, 144, 1, 1}), {{1, 1}, {1, 1}, {0, 0, 0, 0}}, true, {1, 577, 1, 1}},
    {Shape({2, 7, 1}), Shape({5, 7, 1}), {{1}, {1}, {0, 0}}, true, {2, 5, 1}},
    {Shape({1, 1024, 1, 1}), Shape({300, 1024, 1, 1}), {{1, 1}, {1, 1}, {0, 0, 0, 0}}, true, {1, 300, 1, 1}},
    // 1x1 kernels that are not pointwise products: strided, padded, grouped.
    {Shape({1, 8, 3, 3}), Shape({4, 8, 1, 1}), {{2, 2}, {1, 1}, {0, 0, 0, 0}}, true, {1, 4, 2, 2}},
    {Shape({1, 8, 1, 1}), Shape({4, 8, 1, 1}), {{1, 1}, {1, 1}, {1, 0, 0, 1}}, true, {1, 4, 2, 2}},
    {Shape({1, 8, 1, 1}), Shape({4, 4, 1, 1}), {{1, 1}, {1, 1}, {0, 0, 0, 0}, {}, 2}, true, {1, 4, 1, 1}},
};

TEST(ConvNdTest, MatchesReference) {
  for (const ConvCase& c : kConvCases) {
    CheckConv<float>(c, false, 1e-4);
    CheckConv<double>(c, false, 1e-12);
  }
}

const std::vector<ConvCase> kTransposedCases = {
    // output_padding past the end padding: cells no tap reaches hold the bias.
    {Shape({1, 2, 3}), Shape({2, 3, 3}), {{2}, {1}, {0, 0}, {1}}, true, {1, 3, 8}},
    {Shape({1, 2, 3, 3}), Shape({2, 2, 3, 3}), {{3, 2}, {1, 1}, {0, 0, 0, 0}, {2, 1}, 2}, false, {1, 4, 11, 8}},
    {Shape({2, 2, 3, 4}), Shape({2, 2, 3, 3}), {{3, 2}, {1, 2}, {1, 2, 1, 2}, {0, 1}}, true, {2, 2, 7, 8}},
    {Shape({1, 4, 3, 3}), Shape({4, 3, 2, 2}), {{2, 2}, {2, 1}, {0, 0, 0, 0}, {0, 0}, 2}, false, {1, 6, 7, 6}},
    {Shape({1, 1, 3, 4, 2}), Shape({1, 2, 3, 3, 2}), {{1, 2, 1}, {1, 1, 1}, {1, 0, 0, 0, 1, 0}, {0, 1, 0}}, true,
     {1, 2, 4, 9, 3}},
};

TEST(ConvTransposeNdTest, MatchesReference) {
  for (const ConvCase& c : kTransposedCases) {
    CheckConv<float>(c, true, 1e-4);
    CheckConv<double>(c, true, 1e-12);
  }
}

TEST(ConvNdTest, InferenceErrors) {
  EXPECT_THAT(InferError("ConvND", {TT(DType::kFloat32, {1, 3, 5, 5}), TT(DType::kFloat32, {4, 2, 3, 3})},
                         {{"group", int64_t{1}}}),
              HasSubstr("input channels"));
  EXPECT_THAT(InferError("ConvND", {TT(DType::kFloat32, {1, 3, 2, 2, 2, 2}), TT(DType::kFloat32, {4, 3, 1, 1, 1, 1})}),
              HasSubstr("rank 3 to 5"));
  EXPECT_THAT(InferError("ConvND", {TT(DType::kFloat32, {1, 3, 5}), TT(DType::kFloat32, {4, 3, 3})},
                         {{"strides", IntList{0}}}),
              HasSubstr("strides"));
  EXPECT_THAT(InferError("ConvTransposeND", {TT(DType::kFloat32, {1, 3, 5}), TT(DType::kFloat32, {2, 3, 3})}),
              HasSubstr("filter dim 0"));
}

// Reference pooling over any spatial rank: out dims given; max returns the flat
// (row-major) argmax too.
struct PoolRef {
  std::vector<double> values;
  std::vector<double> indices;
};

PoolRef RefPool(const Tensor& x, const IntList& k, const Win& w, bool max, bool include_pad,
                const std::vector<int64_t>& out_dims) {
  std::vector<double> xv = ToDouble(x);
  const std::vector<int64_t>& xd = x.shape().dims();
  const size_t sp = xd.size() - 2;
  PoolRef r;
  for (int64_t oi = 0; oi < Prod(out_dims); ++oi) {
    std::vector<int64_t> q = Unflatten(oi, out_dims);
    double acc = max ? -std::numeric_limits<double>::infinity() : 0;
    int64_t at = -1, count = 0, padded = 0;
    for (int64_t t = 0; t < Prod(k); ++t) {
      std::vector<int64_t> tap = Unflatten(t, k), idx{q[0], q[1]};
      bool inside = true, in_padded = true;
      for (size_t i = 0; i < sp; ++i) {
        int64_t p = q[2 + i] * w.strides[i] - w.pads[i] + tap[i] * w.dilations[i];
        inside = inside && p >= 0 && p < xd[2 + i];
        in_padded = in_padded && p >= -w.pads[i] && p < xd[2 + i] + w.pads[sp + i];
        idx.push_back(p);
      }
      padded += in_padded;
      if (!inside) continue;
      int64_t flat = Flatten(idx, xd);
      ++count;
      if (max && xv[flat] > acc) {
        acc = xv[flat];
        at = flat;
      }
      if (!max) acc += xv[flat];
    }
    r.values.push_back(max ? acc : acc / (include_pad ? padded : count));
    r.indices.push_back(static_cast<double>(at));
  }
  return r;
}

template <typename T>
void CheckPool(const Shape& shape, const IntList& k, const Win& w, bool ceil, bool max, bool include_pad,
               const std::vector<int64_t>& out_dims) {
  std::mt19937 rng(5);
  Tensor x = Random<T>(shape, rng, -50, 50);
  AttrMap a = Attrs(w);
  a.erase("group");
  a["kernel_shape"] = k;
  a["ceil_mode"] = ceil;
  if (max) {
    a["indices"] = true;
  } else {
    a["count_include_pad"] = include_pad;
  }
  SCOPED_TRACE(absl::StrCat(max ? "max " : "avg ", x.DebugString(), " include_pad ", include_pad));
  PoolRef want = RefPool(x, k, w, max, include_pad, out_dims);
  auto out = RunOpAll(max ? "MaxPoolND" : "AvgPoolND", {x}, a);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].shape(), Shape(out_dims));
  ExpectClose((*out)[0], want.values, 1e-5, 1e-5);
  if (max) ExpectClose((*out)[1], want.indices);
  if (max) {  // without the indices output float32 takes oneDNN's path
    a["indices"] = false;
    auto plain = RunOp("MaxPoolND", {x}, a);
    ASSERT_TRUE(plain.ok()) << plain.status();
    ExpectClose(*plain, want.values, 1e-5, 1e-5);
  }
}

TEST(PoolNdTest, MatchesReference) {
  for (bool max : {true, false}) {
    for (bool include : {false, true}) {
      if (max && include) continue;
      CheckPool<float>(Shape({2, 3, 9}), {3}, {{2}, {1}, {1, 1}}, false, max, include, {2, 3, 5});
      CheckPool<double>(Shape({1, 2, 6, 7}), {3, 2}, {{2, 2}, {1, 1}, {1, 0, 1, 1}}, true, max, include,
                        {1, 2, 4, 4});
      CheckPool<float>(Shape({1, 2, 6, 7}), {3, 2}, {{2, 2}, {1, 1}, {1, 0, 1, 1}}, true, max, include,
                       {1, 2, 4, 4});
      CheckPool<float>(Shape({1, 2, 4, 5, 6}), {2, 2, 3}, {{1, 2, 2}, {1, 1, 1}, {0, 1, 1, 1, 0, 1}}, false,
                       max, include, {1, 2, 4, 3, 3});
    }
  }
  CheckPool<float>(Shape({1, 1, 7, 7}), {2, 2}, {{1, 1}, {2, 3}, {0, 0, 0, 0}}, false, true, false, {1, 1, 5, 4});
  CheckPool<uint8_t>(Shape({1, 2, 5, 5}), {3, 3}, {{2, 2}, {1, 1}, {1, 1, 1, 1}}, false, true, false,
                     {1, 2, 3, 3});
}

TEST(PoolNdTest, CeilModeDropsAWindowStartingInThePadding) {
  // in 5, kernel 2, stride 2, pads 1/1: ceil((5 + 2 - 2) / 2) + 1 = 4, but the fourth
  // window would start at 6 = in + pad_begin: dropped.
  auto t = Infer("MaxPoolND", {TT(DType::kFloat32, {1, 1, 5})},
                 {{"kernel_shape", IntList{2}}, {"strides", IntList{2}}, {"pads", IntList{1, 1}}, {"ceil_mode", true}});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)[0].shape, PartialShape(std::vector<int64_t>{1, 1, 3}));
}

TEST(ResizeTest, ModesOnSmallInputs) {
  Tensor x = Make<float>(Shape({1, 2}), {0, 1});
  auto run = [&](AttrMap a) {
    a["sizes"] = IntList{1, 3};
    a["scales"] = FloatList{1, 1.5f};
    auto out = RunOp("Resize", {x}, a);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? ToDouble(*out) : std::vector<double>{};
  };
  EXPECT_THAT(run({{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("align_corners")}}),
              ::testing::ElementsAre(0, 0.5, 1));
  EXPECT_THAT(run({{"mode", std::string("nearest")}, {"coordinate_transformation_mode", std::string("asymmetric")},
                   {"nearest_mode", std::string("floor")}}),
              ::testing::ElementsAre(0, 0, 1));
  // half_pixel: coordinates -1/6, 1/2, 7/6; round_prefer_ceil takes 1 at 0.5.
  EXPECT_THAT(run({{"mode", std::string("nearest")}, {"nearest_mode", std::string("round_prefer_ceil")}}),
              ::testing::ElementsAre(0, 1, 1));
  std::vector<double> lin = run({{"mode", std::string("linear")}});
  ASSERT_EQ(lin.size(), 3u);
  EXPECT_NEAR(lin[0], 0, 1e-6);  // clamped at the edge
  EXPECT_NEAR(lin[1], 0.5, 1e-6);
  EXPECT_NEAR(lin[2], 1, 1e-6);
  std::vector<double> crop = run({{"mode", std::string("linear")},
                                  {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                                  {"roi", FloatList{0, 0.5f, 1, 1.5f}},
                                  {"extrapolation_value", 7.0f}});
  EXPECT_THAT(crop, ::testing::ElementsAre(0.5, 1, 7));
  EXPECT_THAT(InferError("Resize", {TT(DType::kInt32, {2})},
                         {{"mode", std::string("linear")}, {"sizes", IntList{3}}, {"scales", FloatList{1.5f}}}),
              HasSubstr("dtype"));
}

TEST(PadTest, EdgeRepeatsTheBorder) {
  Tensor x = Make<int32_t>(Shape({2, 2}), {1, 2, 3, 4});
  auto out = RunOp("Pad", {x}, {{"paddings", IntList{1, 0, 0, 3}}, {"mode", std::string("EDGE")}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({3, 5}));
  ExpectClose(*out, {1, 2, 2, 2, 2, 1, 2, 2, 2, 2, 3, 4, 4, 4, 4});
}

}  // namespace
}  // namespace graphd::executor::test
