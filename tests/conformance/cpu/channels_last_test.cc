// ConvND, MaxPoolND and AvgPoolND with channels_last (data [N, d1..dk, C]), ConvND
// with constant_filter (a packed filter) and with residual (a summand before the
// activation) against the plain ops on channels-first data: the results must be the
// channels-first results, reordered.
#include "executor/cpu/team.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

// `x` ([N, C, d...]) reordered to [N, d..., C] (to_last) or back.
template <typename T>
Tensor Relayout(const Tensor& x, bool to_last) {
  std::vector<int64_t> d = x.shape().dims(), nd = d;
  if (to_last) std::rotate(nd.begin() + 1, nd.begin() + 2, nd.end());
  else std::rotate(nd.begin() + 1, nd.end() - 1, nd.end());
  auto out = Tensor::Allocate(x.dtype(), Shape(nd));
  EXPECT_TRUE(out.ok());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    std::vector<int64_t> idx = Unflatten(i, d), nidx = idx;
    if (to_last) std::rotate(nidx.begin() + 1, nidx.begin() + 2, nidx.end());
    else std::rotate(nidx.begin() + 1, nidx.end() - 1, nidx.end());
    out->template data<T>()[Flatten(nidx, nd)] = x.data<T>()[i];
  }
  return *out;
}

struct Case {
  Shape x, f;  // x channels-first
  IntList strides, dilations, pads;
  int64_t group = 1;
  bool bias = true;
  std::string activation;  // "", "Relu" or "Clip"
};

AttrMap ConvAttrs(const Case& c) {
  AttrMap a{{"strides", c.strides}, {"dilations", c.dilations}, {"pads", c.pads}, {"group", c.group}};
  if (!c.activation.empty()) a["activation"] = c.activation;
  if (c.activation == "Clip") {
    a["clip_min"] = -0.5f;
    a["clip_max"] = 0.75f;
  }
  return a;
}

template <typename T>
void CheckConv(const Case& c, double tol) {
  std::mt19937 rng(11);
  Tensor x = Random<T>(c.x, rng), f = Random<T>(c.f, rng), b = Random<T>(Shape({c.f.dim(0)}), rng);
  std::vector<Tensor> in{x, f};
  if (c.bias) in.push_back(b);
  SCOPED_TRACE(absl::StrCat(x.DebugString(), " * ", f.DebugString(), " group ", c.group, " ", c.activation));
  auto want = RunOp("ConvND", in, ConvAttrs(c));
  ASSERT_TRUE(want.ok()) << want.status();
  for (bool last : {false, true}) {
    for (bool constant : {false, true}) {
      if (!last && !constant) continue;
      SCOPED_TRACE(absl::StrCat("channels_last ", last, " constant_filter ", constant));
      AttrMap attrs = ConvAttrs(c);
      attrs["channels_last"] = last;
      attrs["constant_filter"] = constant;
      std::vector<Tensor> args = in;
      if (last) args[0] = Relayout<T>(x, true);
      // Twice: the second call reuses the cached primitive and packed filter.
      for (int call = 0; call < 2; ++call) {
        auto got = RunOp("ConvND", args, attrs);
        ASSERT_TRUE(got.ok()) << got.status();
        ExpectClose(last ? Relayout<T>(*got, false) : *got, ToDouble(*want), tol, tol);
      }
    }
  }
}

const std::vector<Case> kCases = {
    {Shape({1, 3, 9, 9}), Shape({8, 3, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}},                       // stem
    {Shape({2, 16, 7, 6}), Shape({16, 1, 3, 3}), {1, 1}, {1, 1}, {1, 1, 1, 1}, 16, true, "Clip"},   // depthwise
    {Shape({2, 16, 8, 8}), Shape({16, 1, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}, 16, false, "Relu"},  // dw, stride 2
    {Shape({1, 16, 5, 5}), Shape({24, 16, 1, 1}), {1, 1}, {1, 1}, {0, 0, 0, 0}},                    // pointwise
    // Small pointwise ones (conv_pointwise.h): rows of channels, one row, column halves.
    {Shape({2, 16, 3, 4}), Shape({8, 16, 1, 1}), {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, true, "Relu"},
    {Shape({1, 96, 1, 1}), Shape({24, 96, 1, 1}), {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, false, "Clip"},
    {Shape({1, 240, 1, 1}), Shape({72, 240, 1, 1}), {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, true, "Relu"},
    {Shape({1, 64, 8, 8}), Shape({80, 64, 1, 1}), {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, true, ""},  // past the limit
    {Shape({2, 6, 7, 9}), Shape({4, 3, 3, 2}), {1, 2}, {2, 1}, {1, 0, 2, 1}, 2, true, "Relu"},      // groups, dilation
    {Shape({1, 4, 6, 5}), Shape({4, 4, 3, 3}), {3, 1}, {1, 2}, {0, 2, 1, 0}, 1, false, ""},         // uneven pads
    {Shape({2, 3, 9}), Shape({4, 3, 3}), {2}, {1}, {1, 0}},                                         // 1-D
    {Shape({1, 2, 4, 5, 3}), Shape({4, 2, 2, 2, 2}), {1, 2, 1}, {1, 1, 1}, {1, 0, 1, 0, 1, 1}},    // 3-D
};

TEST(ChannelsLastTest, ConvMatchesChannelsFirst) {
  for (const Case& c : kCases) CheckConv<float>(c, 1e-5);
  // float64 runs the loops through channels-first copies.
  for (const Case& c : kCases) CheckConv<double>(c, 1e-12);
}

// act(conv(x, w) + b + r) from the plain conv: the reference for residual=true.
template <typename T>
std::vector<double> ResidualReference(const Case& c, const std::vector<Tensor>& in, const Tensor& r) {
  Case plain = c;
  plain.activation = "";
  auto conv = RunOp("ConvND", in, ConvAttrs(plain));
  EXPECT_TRUE(conv.ok()) << conv.status();
  std::vector<double> y = ToDouble(*conv), rv = ToDouble(r);
  for (size_t i = 0; i < y.size(); ++i) {
    double v = static_cast<double>(static_cast<T>(y[i] + rv[i]));
    if (c.activation == "Relu") v = std::max(v, 0.0);
    if (c.activation == "Clip") v = std::min(std::max(v, -0.5), 0.75);
    y[i] = v;
  }
  return y;
}

template <typename T>
void CheckResidual(const Case& c, double tol) {
  std::mt19937 rng(12);
  Tensor x = Random<T>(c.x, rng), f = Random<T>(c.f, rng), b = Random<T>(Shape({c.f.dim(0)}), rng);
  std::vector<Tensor> in{x, f};
  if (c.bias) in.push_back(b);
  auto plain = RunOp("ConvND", in, ConvAttrs(c));
  ASSERT_TRUE(plain.ok()) << plain.status();
  Tensor r = Random<T>(plain->shape(), rng);
  std::vector<double> want = ResidualReference<T>(c, in, r);
  SCOPED_TRACE(absl::StrCat("residual ", x.DebugString(), " * ", f.DebugString(), " ", c.activation));
  for (bool last : {false, true}) {
    AttrMap attrs = ConvAttrs(c);
    attrs["residual"] = true;
    attrs["channels_last"] = last;
    attrs["constant_filter"] = last;
    std::vector<Tensor> args = in;
    if (last) args[0] = Relayout<T>(x, true);
    args.push_back(last ? Relayout<T>(r, true) : r);
    auto got = RunOp("ConvND", args, attrs);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectClose(last ? Relayout<T>(*got, false) : *got, want, tol, tol);
  }
}

TEST(ChannelsLastTest, ResidualIsAddedBeforeTheActivation) {
  for (const Case& c : kCases) {
    CheckResidual<float>(c, 1e-5);
    CheckResidual<double>(c, 1e-12);
  }
  // The residual must have the output's shape.
  std::mt19937 rng(1);
  auto bad = RunOp("ConvND",
                   {Random<float>(Shape({1, 2, 4, 4}), rng), Random<float>(Shape({3, 2, 1, 1}), rng),
                    Random<float>(Shape({1, 3, 4, 1}), rng)},
                   {{"residual", true}});
  EXPECT_FALSE(bad.ok());
}

template <typename T>
void CheckPool(const std::string& op, const Shape& shape, const IntList& k, const IntList& strides,
               const IntList& pads, bool ceil, bool include_pad, double atol = 1e-6) {
  std::mt19937 rng(5);
  Tensor x = Random<T>(shape, rng, -50, 50);
  AttrMap attrs{{"kernel_shape", k}, {"strides", strides}, {"pads", pads}, {"ceil_mode", ceil}};
  if (op == "AvgPoolND") attrs["count_include_pad"] = include_pad;
  SCOPED_TRACE(absl::StrCat(op, " ", x.DebugString(), " ceil ", ceil, " include_pad ", include_pad));
  auto want = RunOp(op, {x}, attrs);
  ASSERT_TRUE(want.ok()) << want.status();
  attrs["channels_last"] = true;
  auto got = RunOp(op, {Relayout<T>(x, true)}, attrs);
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectClose(Relayout<T>(*got, false), ToDouble(*want), 1e-6, atol);
}

TEST(ChannelsLastTest, PoolsMatchChannelsFirst) {
  for (const char* op : {"MaxPoolND", "AvgPoolND"}) {
    for (bool include : {false, true}) {
      CheckPool<float>(op, Shape({2, 5, 9, 8}), {3, 3}, {2, 2}, {1, 1, 1, 1}, false, include);
      CheckPool<float>(op, Shape({1, 3, 6, 7}), {3, 2}, {2, 2}, {1, 0, 1, 1}, true, include);  // loop (ceil)
      CheckPool<double>(op, Shape({1, 4, 5, 5}), {2, 2}, {1, 1}, {0, 0, 1, 1}, false, include);
    }
  }
}

// input_channels_first: x channels-first, the output channels-last, against the plain
// channels-first conv relaid out. Stems that fit (window_nd.h StemConvFits) run
// conv_stem.h's loops: output widths off the pixel blocks (8 pixels of up to 16
// channels, 4 of up to 32), output channels short of the 16-lane vectors (one or two
// per pixel), every activation, a residual, dilation, uneven pads, batch 2; the others
// (too many taps, inputs or outputs, groups, float64) a channels-last copy of x.
template <typename T>
void CheckChannelsFirstInput(const Case& c, double tol, bool residual) {
  std::mt19937 rng(13);
  Tensor x = Random<T>(c.x, rng), f = Random<T>(c.f, rng), b = Random<T>(Shape({c.f.dim(0)}), rng);
  std::vector<Tensor> in{x, f};
  if (c.bias) in.push_back(b);
  AttrMap attrs = ConvAttrs(c);
  SCOPED_TRACE(absl::StrCat(x.DebugString(), " * ", f.DebugString(), " ", c.activation, " residual ", residual));
  auto plain = RunOp("ConvND", in, attrs);
  ASSERT_TRUE(plain.ok()) << plain.status();
  std::vector<Tensor> got_in = in;
  if (residual) {  // summed before the activation
    Tensor r = Random<T>(plain->shape(), rng);
    attrs["residual"] = true;
    in.push_back(r);
    got_in.push_back(Relayout<T>(r, true));
  }
  auto want = RunOp("ConvND", in, attrs);
  ASSERT_TRUE(want.ok()) << want.status();
  attrs["channels_last"] = true;
  attrs["input_channels_first"] = true;
  attrs["constant_filter"] = true;
  for (int call = 0; call < 2; ++call) {
    auto got = RunOp("ConvND", got_in, attrs);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectClose(Relayout<T>(*got, false), ToDouble(*want), tol, tol);
  }
}

TEST(ChannelsLastTest, ChannelsFirstInputMatchesChannelsFirst) {
  const std::vector<Case> cases = {
      {Shape({1, 3, 17, 19}), Shape({16, 3, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, true, "HardSwish"},  // MobileNetV3
      {Shape({2, 3, 12, 21}), Shape({16, 3, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, true, "Swish"},
      {Shape({1, 3, 9, 11}), Shape({12, 3, 3, 3}), {1, 1}, {1, 1}, {0, 2, 1, 0}, 1, false, "Relu"},
      {Shape({1, 1, 10, 13}), Shape({5, 1, 3, 3}), {1, 2}, {2, 1}, {2, 1, 0, 3}, 1, true, "Clip"},
      {Shape({1, 4, 7, 7}), Shape({15, 4, 2, 3}), {3, 1}, {1, 1}, {1, 1, 1, 1}, 1, true, ""},
      {Shape({1, 2, 5, 30}), Shape({7, 2, 1, 1}), {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, true, ""},
      // Two vectors per pixel: MobileNetV2's and EfficientNet's 32, and 17 and 24.
      {Shape({1, 3, 9, 10}), Shape({32, 3, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, true, "Clip"},
      {Shape({2, 3, 14, 17}), Shape({32, 3, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, true, "Swish"},
      {Shape({1, 3, 11, 13}), Shape({17, 3, 3, 3}), {1, 2}, {1, 1}, {1, 0, 2, 1}, 1, true, "HardSwish"},
      {Shape({1, 2, 8, 9}), Shape({24, 2, 2, 2}), {1, 1}, {2, 1}, {1, 1, 1, 1}, 1, false, "Relu"},
      // Not stems: the channels-last copy.
      {Shape({1, 3, 9, 10}), Shape({33, 3, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, true, "Clip"},
      {Shape({1, 3, 4, 4}), Shape({8, 3, 3, 3}), {1, 40}, {1, 1}, {0, 100, 0, 100}, 1, true, ""},  // wide pads
      {Shape({1, 3, 11, 11}), Shape({8, 3, 7, 7}), {2, 2}, {1, 1}, {3, 3, 3, 3}, 1, true, "Relu"},
      {Shape({1, 6, 8, 8}), Shape({6, 2, 3, 3}), {1, 1}, {1, 1}, {1, 1, 1, 1}, 3, true, ""},
      {Shape({1, 5, 6, 6}), Shape({4, 5, 1, 1}), {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, true, ""},
  };
  for (const Case& c : cases) {
    for (bool residual : {false, true}) {
      CheckChannelsFirstInput<float>(c, 1e-5, residual);
      CheckChannelsFirstInput<double>(c, 1e-12, residual);
    }
  }
  // It needs channels_last.
  std::mt19937 rng(2);
  auto bad = RunOp("ConvND", {Random<float>(Shape({1, 3, 4, 4}), rng), Random<float>(Shape({2, 3, 1, 1}), rng)},
                   {{"input_channels_first", true}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("input_channels_first"));
}

// Stems large enough for the OpenMP team (2^20 multiply-adds and more: each thread's
// segment of row chunks, then the others', row_chunks.h), on a team of three.
TEST(ChannelsLastTest, StemsOnTheTeamMatchChannelsFirst) {
  cpu::SetIntraOpThreads(3);
  const std::vector<Case> cases = {
      {Shape({2, 3, 96, 97}), Shape({16, 3, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, true, "HardSwish"},
      {Shape({1, 3, 130, 127}), Shape({32, 3, 3, 3}), {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, true, "Swish"},
  };
  for (const Case& c : cases) {
    for (bool residual : {false, true}) CheckChannelsFirstInput<float>(c, 1e-5, residual);
  }
  cpu::SetIntraOpThreads(0);
}

// One window over the whole input (a global average pool) runs global_average.h's pass
// over the rows: one thread below 32768 values; from there, on a team of three, whole
// images when the batch has one per thread, else the rows split (partial sums added
// after) or, below 64 rows, blocks of 64 channels; channel counts off the block;
// padded or dilated windows stay on oneDNN.
TEST(ChannelsLastTest, GlobalPoolsMatchChannelsFirst) {
  cpu::SetIntraOpThreads(3);
  // Means of up to 1681 values in [-50, 50], summed in float in other orders (threads'
  // partial sums, two rows at a time) than oneDNN's: within 1e-5 of each other.
  constexpr double kSums = 1e-5;
  for (const char* op : {"MaxPoolND", "AvgPoolND"}) {
    CheckPool<float>(op, Shape({1, 16, 7, 7}), {7, 7}, {1, 1}, {0, 0, 0, 0}, false, false, kSums);
    CheckPool<float>(op, Shape({3, 48, 5, 6}), {5, 6}, {2, 2}, {0, 0, 0, 0}, false, false, kSums);
    CheckPool<float>(op, Shape({1, 90, 28, 28}), {28, 28}, {1, 1}, {0, 0, 0, 0}, false, false, kSums);
    CheckPool<float>(op, Shape({2, 70, 20, 25}), {20, 25}, {1, 1}, {0, 0, 0, 0}, false, false, kSums);  // rows split
    CheckPool<float>(op, Shape({1, 1100, 7, 7}), {7, 7}, {1, 1}, {0, 0, 0, 0}, false, false, kSums);   // channel blocks
    CheckPool<float>(op, Shape({2, 700, 6, 9}), {6, 9}, {1, 1}, {0, 0, 0, 0}, false, false, kSums);
    CheckPool<float>(op, Shape({1, 32, 40, 41}), {40, 41}, {1, 1}, {0, 0, 0, 0}, false, false, kSums);  // 32 channels
    CheckPool<float>(op, Shape({4, 64, 12, 12}), {12, 12}, {1, 1}, {0, 0, 0, 0}, false, false, kSums);  // images
    CheckPool<float>(op, Shape({2, 40, 3, 4, 5}), {3, 4, 5}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, false, false, kSums);
    CheckPool<float>(op, Shape({2, 33, 9}), {9}, {1}, {0, 0}, false, false, kSums);
    CheckPool<float>(op, Shape({1, 16, 3, 3}), {4, 4}, {1, 1}, {1, 1, 0, 0}, false, true, kSums);  // padded
    CheckPool<double>(op, Shape({1, 40, 4, 4}), {4, 4}, {1, 1}, {0, 0, 0, 0}, false, false);
  }
  cpu::SetIntraOpThreads(0);
}

TEST(ChannelsLastTest, Inference) {
  auto t = Infer("ConvND", {TT(DType::kFloat32, {2, 9, 8, 3}), TT(DType::kFloat32, {5, 3, 3, 3})},
                 {{"channels_last", true}, {"strides", IntList{2, 1}}});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)[0].shape, PartialShape(std::vector<int64_t>{2, 4, 6, 5}));
  auto p = Infer("MaxPoolND", {TT(DType::kFloat32, {1, 6, 6, 7})},
                 {{"channels_last", true}, {"kernel_shape", IntList{2, 2}}, {"strides", IntList{2, 2}}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)[0].shape, PartialShape(std::vector<int64_t>{1, 3, 3, 7}));
  EXPECT_THAT(InferError("ConvND", {TT(DType::kFloat32, {1, 5, 5, 3}), TT(DType::kFloat32, {4, 2, 3, 3})},
                         {{"channels_last", true}}),
              HasSubstr("input channels"));
  EXPECT_THAT(InferError("ConvTransposeND", {TT(DType::kFloat32, {1, 5, 5, 3}), TT(DType::kFloat32, {3, 2, 3, 3})},
                         {{"channels_last", true}}),
              HasSubstr("channels_last"));
  EXPECT_THAT(InferError("MaxPoolND", {TT(DType::kFloat32, {1, 6, 6, 7})},
                         {{"channels_last", true}, {"kernel_shape", IntList{2, 2}}, {"indices", true}}),
              HasSubstr("indices"));
}

}  // namespace
}  // namespace graphd::executor::test
