// Golden tests for the channels-last conv layout pass.
#include "compiler/passes/conv_layout.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::RunPass;
using test::Text;

// A float32 constant of `dims` holding 0, 1, 2, ...
Tensor Iota(std::vector<int64_t> dims) {
  Tensor t = *Tensor::Allocate(DType::kFloat32, Shape(std::move(dims)));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

AttrMap Pads(int64_t p) { return {{"pads", IntList{p, p, p, p}}}; }

TEST(ConvLayoutTest, ConvertsAChainAndTransposesOnlyAtItsEnds) {
  AttrMap relu = Pads(1);
  relu["activation"] = std::string("Relu");
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 3, 8, 8}))
                          .Node("w1", "Const", {}, {{"value", Iota({4, 3, 3, 3})}})
                          .Node("w2", "Const", {}, {{"value", Iota({4, 4, 1, 1})}})
                          .Node("c1", "ConvND", {"x", "w1"}, relu)
                          .Node("p", "MaxPoolND", {"c1"}, {{"kernel_shape", IntList{2, 2}}, {"strides", IntList{2, 2}}})
                          .Node("c2", "ConvND", {"p", "w2"})
                          .Node("a", "Add", {"c2", "p"})
                          .Node("r", "Relu", {"a"})
                          .Node("m", "Mean", {"r"}, {{"axis", IntList{2, -1}}, {"keep_dims", true}})
                          .Node("flat", "Reshape", {"m"}, {{"shape", IntList{1, 4}}})
                          .Return({"flat"});
  ConvLayout pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,3,8,8]]() : float32[1,3,8,8]\n"
            "w1 = Const[value=float32[4,3,3,3]{0, 1, 2, 3, 4, 5, 6, 7, ...}]() : float32[4,3,3,3]\n"
            "w2 = Const[value=float32[4,4,1,1]{0, 1, 2, 3, 4, 5, 6, 7, ...}]() : float32[4,4,1,1]\n"
            "x_to_nhwc = Transpose[perm=[0, 2, 3, 1]](x) : float32[1,8,8,3]\n"
            "c1_nhwc = ConvND[activation=\"Relu\", channels_last=true, constant_filter=true, pads=[1, 1, 1, 1]]"
            "(x_to_nhwc, w1) : float32[1,8,8,4]\n"
            "p_nhwc = MaxPoolND[channels_last=true, kernel_shape=[2, 2], strides=[2, 2]](c1_nhwc) : float32[1,4,4,4]\n"
            "c2_nhwc = ConvND[channels_last=true, constant_filter=true](p_nhwc, w2) : float32[1,4,4,4]\n"
            "a_nhwc = Add(c2_nhwc, p_nhwc) : float32[1,4,4,4]\n"
            "r_nhwc = Relu(a_nhwc) : float32[1,4,4,4]\n"
            "m_nhwc = AvgPoolND[channels_last=true, kernel_shape=[4, 4]](r_nhwc) : float32[1,1,1,4]\n"
            "m_to_nchw = Transpose[perm=[0, 3, 1, 2]](m_nhwc) : float32[1,4,1,1]\n"
            "flat = Reshape[shape=[1, 4]](m_to_nchw) : float32[1,4]\n"
            "return flat\n");
  EXPECT_FALSE(RunPass(pass, body));  // already channels-last: nothing to do
}

TEST(ConvLayoutTest, ConstantsArePermutedOtherInputsTransposedAndResultsTransposedBack) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({-1, 2, 3, 3}))
                          .Arg("y", DType::kFloat32, Dims({-1, 2, 3, 3}))
                          .Node("w", "Const", {}, {{"value", Iota({2, 2, 1, 1})}})
                          .Node("scale", "Const", {}, {{"value", Iota({2, 1, 1})}})
                          .Const("two", 2.0f)
                          .Node("c", "ConvND", {"x", "w"})
                          .Node("s", "Mul", {"c", "scale"})
                          .Node("t", "Mul", {"s", "two"})
                          .Node("u", "Sub", {"t", "y"})
                          .Node("also", "Neg", {"scale"})  // keeps the original scale alive
                          .Node("n", "Softmax", {"s"}, {{"axis", int64_t{1}}})
                          .Node("sum", "Sum", {"t"}, {{"axis", int64_t{1}}, {"keep_dims", true}})
                          .Return({"u", "n", "also", "sum"});
  ConvLayout pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[?,2,3,3]]() : float32[?,2,3,3]\n"
            "y = Arg[dtype=float32, shape=[?,2,3,3]]() : float32[?,2,3,3]\n"
            "w = Const[value=float32[2,2,1,1]{0, 1, 2, 3}]() : float32[2,2,1,1]\n"
            "scale = Const[value=float32[2,1,1]{0, 1}]() : float32[2,1,1]\n"
            "two = Const[value=float32[]{2}]() : float32[]\n"
            "x_to_nhwc = Transpose[perm=[0, 2, 3, 1]](x) : float32[?,3,3,2]\n"
            "c_nhwc = ConvND[channels_last=true, constant_filter=true](x_to_nhwc, w) : float32[?,3,3,2]\n"
            "scale_nhwc = Const[value=float32[1,1,1,2]{0, 1}]() : float32[1,1,1,2]\n"
            "s_nhwc = Mul(c_nhwc, scale_nhwc) : float32[?,3,3,2]\n"
            "s_to_nchw = Transpose[perm=[0, 3, 1, 2]](s_nhwc) : float32[?,2,3,3]\n"
            "t_nhwc = Mul(s_nhwc, two) : float32[?,3,3,2]\n"
            "y_to_nhwc = Transpose[perm=[0, 2, 3, 1]](y) : float32[?,3,3,2]\n"
            "u_nhwc = Sub(t_nhwc, y_to_nhwc) : float32[?,3,3,2]\n"
            "u_to_nchw = Transpose[perm=[0, 3, 1, 2]](u_nhwc) : float32[?,2,3,3]\n"
            "also = Neg(scale) : float32[2,1,1]\n"
            "n = Softmax[axis=1](s_to_nchw) : float32[?,2,3,3]\n"
            "sum_nhwc = Sum[axis=[3], keep_dims=true](t_nhwc) : float32[?,3,3,1]\n"
            "sum_to_nchw = Transpose[perm=[0, 3, 1, 2]](sum_nhwc) : float32[?,1,3,3]\n"
            "return u_to_nchw, n, also, sum_to_nchw\n");
}

TEST(ConvLayoutTest, ResidualsAreReadInTheLayout) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 3, 3}))
                          .Arg("y", DType::kFloat32, Dims({1, 2, 3, 3}))
                          .Node("w", "Const", {}, {{"value", Iota({2, 2, 1, 1})}})
                          .Node("c1", "ConvND", {"x", "w"})
                          .Node("c2", "ConvND", {"c1", "w", "c1"}, {{"residual", true}})
                          .Node("c3", "ConvND", {"c2", "w", "y"}, {{"residual", true}})
                          .Return({"c3"});
  EXPECT_TRUE(RunPass(ConvLayout(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,2,3,3]]() : float32[1,2,3,3]\n"
            "y = Arg[dtype=float32, shape=[1,2,3,3]]() : float32[1,2,3,3]\n"
            "w = Const[value=float32[2,2,1,1]{0, 1, 2, 3}]() : float32[2,2,1,1]\n"
            "x_to_nhwc = Transpose[perm=[0, 2, 3, 1]](x) : float32[1,3,3,2]\n"
            "c1_nhwc = ConvND[channels_last=true, constant_filter=true](x_to_nhwc, w) : float32[1,3,3,2]\n"
            "c2_nhwc = ConvND[channels_last=true, constant_filter=true, residual=true](c1_nhwc, w, c1_nhwc) : "
            "float32[1,3,3,2]\n"
            "y_to_nhwc = Transpose[perm=[0, 2, 3, 1]](y) : float32[1,3,3,2]\n"
            "c3_nhwc = ConvND[channels_last=true, constant_filter=true, residual=true](c2_nhwc, w, y_to_nhwc) : "
            "float32[1,3,3,2]\n"
            "c3_to_nchw = Transpose[perm=[0, 3, 1, 2]](c3_nhwc) : float32[1,2,3,3]\n"
            "return c3_to_nchw\n");
}

// A ConvNeXt block: conv, the model's permute to channels-last, per-position work
// that stays unconverted (here Relu of a MatMul-like op: Neg), the permute back, and a
// residual Add. The work reads the conv's channels-last output itself (the permute to
// channels-last goes), and the Add reads the work's output as it is (the permute back
// goes): the Transposes left are the input's, the one back to the result, and a
// permute of the result that is a result too.
TEST(ConvLayoutTest, AModelsOwnPermutesFoldIntoTheLayout) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 3, 3}))
                          .Node("w", "Const", {}, {{"value", Iota({2, 2, 1, 1})}})
                          .Node("c", "ConvND", {"x", "w"})
                          .Node("last", "Transpose", {"c"}, {{"perm", IntList{0, 2, 3, 1}}})
                          .Node("work", "Neg", {"last"})
                          .Node("first", "Transpose", {"work"}, {{"perm", IntList{0, 3, 1, 2}}})
                          .Node("a", "Add", {"first", "c"})
                          .Node("c2", "ConvND", {"a", "w"})
                          .Node("kept", "Transpose", {"c2"}, {{"perm", IntList{0, 2, 3, 1}}})
                          .Return({"c2", "kept"});
  EXPECT_TRUE(RunPass(ConvLayout(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,2,3,3]]() : float32[1,2,3,3]\n"
            "w = Const[value=float32[2,2,1,1]{0, 1, 2, 3}]() : float32[2,2,1,1]\n"
            "x_to_nhwc = Transpose[perm=[0, 2, 3, 1]](x) : float32[1,3,3,2]\n"
            "c_nhwc = ConvND[channels_last=true, constant_filter=true](x_to_nhwc, w) : float32[1,3,3,2]\n"
            "work = Neg(c_nhwc) : float32[1,3,3,2]\n"
            "a_nhwc = Add(work, c_nhwc) : float32[1,3,3,2]\n"
            "c2_nhwc = ConvND[channels_last=true, constant_filter=true](a_nhwc, w) : float32[1,3,3,2]\n"
            "c2_to_nchw = Transpose[perm=[0, 3, 1, 2]](c2_nhwc) : float32[1,2,3,3]\n"
            "kept = Transpose[perm=[0, 2, 3, 1]](c2_to_nchw) : float32[1,3,3,2]\n"
            "return c2_to_nchw, kept\n");
  EXPECT_FALSE(RunPass(ConvLayout(), body));
}

TEST(ConvLayoutTest, PadAndConcatFollowTheLayout) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 4, 4}))
                          .Node("w", "Const", {}, {{"value", Iota({2, 2, 1, 1})}})
                          .Node("w3", "Const", {}, {{"value", Iota({2, 2, 3, 3})}})
                          .Node("c1", "ConvND", {"x", "w"})
                          .Node("pd", "Pad", {"c1"}, {{"paddings", IntList{0, 0, 0, 0, 1, 2, 3, 4}}})
                          .Node("c2", "ConvND", {"pd", "w3"}, {{"strides", IntList{1, 2}}})
                          .Node("c3", "ConvND", {"x", "w"}, {{"pads", IntList{1, 1, 0, 0}}})
                          .Node("cat", "ConcatV2", {"c2", "c3"}, {{"axis", int64_t{-3}}})
                          .Return({"cat"});
  EXPECT_TRUE(RunPass(ConvLayout(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,2,4,4]]() : float32[1,2,4,4]\n"
            "w = Const[value=float32[2,2,1,1]{0, 1, 2, 3}]() : float32[2,2,1,1]\n"
            "w3 = Const[value=float32[2,2,3,3]{0, 1, 2, 3, 4, 5, 6, 7, ...}]() : float32[2,2,3,3]\n"
            "x_to_nhwc = Transpose[perm=[0, 2, 3, 1]](x) : float32[1,4,4,2]\n"
            "c1_nhwc = ConvND[channels_last=true, constant_filter=true](x_to_nhwc, w) : float32[1,4,4,2]\n"
            "pd_nhwc = Pad[paddings=[0, 0, 1, 2, 3, 4, 0, 0]](c1_nhwc) : float32[1,7,11,2]\n"
            "c2_nhwc = ConvND[channels_last=true, constant_filter=true, strides=[1, 2]](pd_nhwc, w3) : "
            "float32[1,5,5,2]\n"
            "c3_nhwc = ConvND[channels_last=true, constant_filter=true, pads=[1, 1, 0, 0]](x_to_nhwc, w) : "
            "float32[1,5,5,2]\n"
            "cat_nhwc = ConcatV2[axis=3](c2_nhwc, c3_nhwc) : float32[1,5,5,4]\n"
            "cat_to_nchw = Transpose[perm=[0, 3, 1, 2]](cat_nhwc) : float32[1,4,5,5]\n"
            "return cat_to_nchw\n");
}

TEST(ConvLayoutTest, LeavesConvsItCannotConvert) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 4, 4}))
                          .Arg("w", DType::kFloat32, Dims({2, 2, 1, 1}))       // not a constant
                          .Arg("x1", DType::kFloat32, Dims({1, 2, 4}))          // 1-D
                          .Arg("xd", DType::kFloat64, Dims({1, 2, 4, 4}))       // float64
                          .Node("w1", "Const", {}, {{"value", Iota({2, 2, 1})}})
                          .Node("wd", "Const", {}, {{"value", Iota({2, 2, 1, 1})}})
                          .Node("wdd", "Cast", {"wd"}, {{"DstT", DType::kFloat64}})
                          .Node("c", "ConvND", {"x", "w"})
                          .Node("c1", "ConvND", {"x1", "w1"})
                          .Node("cd", "ConvND", {"xd", "wdd"})
                          .Node("r", "Relu", {"c"})
                          .Return({"r", "c1", "cd"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ConvLayout(), body));
  EXPECT_EQ(Text(body), before);
}

// With channels_first_stems, a stem convolution (few input channels, a small window,
// one group: window_nd.h StemConvFits) reads its image channels-first instead of
// through a Transpose; others, and other readers of the image, still transpose.
TEST(ConvLayoutTest, StemsReadTheImageChannelsFirst) {
  AttrMap stride2 = Pads(1);
  stride2["strides"] = IntList{2, 2};
  AttrMap grouped{{"group", int64_t{3}}};
  auto make = [&] {
    return BodyBuilder()
        .Arg("x", DType::kFloat32, Dims({-1, 3, 8, 8}))
        .Arg("y", DType::kFloat32, Dims({1, 3, 6, 6}))
        .Node("w", "Const", {}, {{"value", Iota({16, 3, 3, 3})}})
        .Node("w5", "Const", {}, {{"value", Iota({4, 3, 5, 5})}})  // 75 taps
        .Node("wg", "Const", {}, {{"value", Iota({6, 1, 3, 3})}})  // grouped
        .Node("stem", "ConvND", {"x", "w"}, stride2)
        .Node("big", "ConvND", {"y", "w5"})
        .Node("g", "ConvND", {"y", "wg"}, grouped)
        .Node("also", "ConvND", {"y", "w"})
        .Return({"stem", "big", "g", "also"});
  };
  FunctionBody body = make(), plain = make();
  EXPECT_TRUE(RunPass(ConvLayout(/*channels_first_stems=*/true), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[?,3,8,8]]() : float32[?,3,8,8]\n"
            "y = Arg[dtype=float32, shape=[1,3,6,6]]() : float32[1,3,6,6]\n"
            "w = Const[value=float32[16,3,3,3]{0, 1, 2, 3, 4, 5, 6, 7, ...}]() : float32[16,3,3,3]\n"
            "w5 = Const[value=float32[4,3,5,5]{0, 1, 2, 3, 4, 5, 6, 7, ...}]() : float32[4,3,5,5]\n"
            "wg = Const[value=float32[6,1,3,3]{0, 1, 2, 3, 4, 5, 6, 7, ...}]() : float32[6,1,3,3]\n"
            "stem_nhwc = ConvND[channels_last=true, constant_filter=true, input_channels_first=true, "
            "pads=[1, 1, 1, 1], strides=[2, 2]](x, w) : float32[?,4,4,16]\n"
            "stem_to_nchw = Transpose[perm=[0, 3, 1, 2]](stem_nhwc) : float32[?,16,4,4]\n"
            "y_to_nhwc = Transpose[perm=[0, 2, 3, 1]](y) : float32[1,6,6,3]\n"
            "big_nhwc = ConvND[channels_last=true, constant_filter=true](y_to_nhwc, w5) : float32[1,2,2,4]\n"
            "big_to_nchw = Transpose[perm=[0, 3, 1, 2]](big_nhwc) : float32[1,4,2,2]\n"
            "g_nhwc = ConvND[channels_last=true, constant_filter=true, group=3](y_to_nhwc, wg) : float32[1,4,4,6]\n"
            "g_to_nchw = Transpose[perm=[0, 3, 1, 2]](g_nhwc) : float32[1,6,4,4]\n"
            "also_nhwc = ConvND[channels_last=true, constant_filter=true, input_channels_first=true](y, w) : "
            "float32[1,4,4,16]\n"
            "also_to_nchw = Transpose[perm=[0, 3, 1, 2]](also_nhwc) : float32[1,16,4,4]\n"
            "return stem_to_nchw, big_to_nchw, g_to_nchw, also_to_nchw\n");
  // Without the option (GPU sessions) every image enters through a Transpose.
  EXPECT_TRUE(RunPass(ConvLayout(), plain));
  EXPECT_THAT(Text(plain), ::testing::Not(::testing::HasSubstr("input_channels_first")));
  EXPECT_THAT(Text(plain), ::testing::HasSubstr("x_to_nhwc = Transpose"));
}

}  // namespace
}  // namespace graphd::compiler::passes
