// Golden tests for moving a channel scale of a convolution's input into its filter.
#include "compiler/passes/conv_input_scale.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::RunPass;
using test::Text;

// A float32 constant of `dims` holding ones.
Tensor Ones(std::vector<int64_t> dims) { return test::Filled(DType::kFloat32, std::move(dims), 1); }

// conv_layout's attributes on a converted ConvND, and more.
AttrMap Converted(AttrMap more = {}) {
  more["channels_last"] = true;
  more["constant_filter"] = true;
  return more;
}

TEST(ConvInputScaleTest, MovesTheScaleIntoTheFilterEitherWayRound) {
  // 1 x 8 x 8 x 4 = 256 input values, at least 16 times the filter's 12.
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 8, 8, 4}))
                          .Arg("s", DType::kFloat32, Dims({1, 1, 1, 4}))
                          .Arg("b", DType::kFloat32, Dims({3}))
                          .Node("w", "Const", {}, {{"value", Ones({3, 4, 1, 1})}})
                          .Node("m1", "Mul", {"x", "s"})
                          .Node("c1", "ConvND", {"m1", "w", "b"}, Converted())
                          .Node("m2", "Mul", {"s", "x"})  // scale first, as torch writes it
                          .Node("c2", "ConvND", {"m2", "w", "b", "c1"}, Converted({{"residual", true}}))
                          .Return({"c2"});
  EXPECT_TRUE(RunPass(ConvInputScale(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,8,8,4]]() : float32[1,8,8,4]\n"
            "s = Arg[dtype=float32, shape=[1,1,1,4]]() : float32[1,1,1,4]\n"
            "b = Arg[dtype=float32, shape=[3]]() : float32[3]\n"
            "w = Const[value=float32[3,4,1,1]{1, 1, 1, 1, 1, 1, 1, 1, ...}]() : float32[3,4,1,1]\n"
            "m1/conv_input_scale/scale = Reshape[shape=[4, 1, 1]](s) : float32[4,1,1]\n"
            "c1/conv_input_scale/filter = Mul(w, m1/conv_input_scale/scale) : float32[3,4,1,1]\n"
            "c1_conv_input_scale = ConvND[channels_last=true](x, c1/conv_input_scale/filter, b) : float32[1,8,8,3]\n"
            "c2/conv_input_scale/filter = Mul(w, m1/conv_input_scale/scale) : float32[3,4,1,1]\n"
            "c2_conv_input_scale = ConvND[channels_last=true, residual=true](x, c2/conv_input_scale/filter, b, "
            "c1_conv_input_scale) : float32[1,8,8,3]\n"
            "return c2_conv_input_scale\n");
  EXPECT_FALSE(RunPass(ConvInputScale(), body));
}

TEST(ConvInputScaleTest, LeavesWhatTheFilterCannotTake) {
  AttrMap padded = Converted({{"pads", IntList{1, 1, 1, 1}}});
  FunctionBody body =
      BodyBuilder()
          .Arg("x", DType::kFloat32, Dims({1, 8, 8, 4}))
          .Arg("small", DType::kFloat32, Dims({1, 4, 11, 4}))
          .Arg("s", DType::kFloat32, Dims({1, 1, 1, 4}))
          .Arg("per_image", DType::kFloat32, Dims({2, 1, 1, 4}))
          .Arg("x2", DType::kFloat32, Dims({2, 8, 8, 4}))
          .Arg("fed", DType::kFloat32, Dims({3, 4, 1, 1}))
          .Arg("cf", DType::kFloat32, Dims({1, 4, 8, 4}))  // channels-first: s scales W
          .Node("w", "Const", {}, {{"value", Ones({3, 4, 1, 1})}})
          .Node("w3", "Const", {}, {{"value", Ones({3, 4, 3, 3})}})
          .Node("wg", "Const", {}, {{"value", Ones({4, 2, 1, 1})}})
          .Node("shared", "Mul", {"x", "s"})
          .Node("c1", "ConvND", {"shared", "w"}, Converted())
          .Node("n1", "Neg", {"shared"})                               // a second use
          .Node("m2", "Mul", {"cf", "s"})
          .Node("c2", "ConvND", {"m2", "w"})                           // channels-first
          .Node("m3", "Mul", {"x", "s"})
          .Node("c3", "ConvND", {"m3", "fed"}, Converted({{"constant_filter", false}}))
          .Node("m4", "Mul", {"x", "s"})
          .Node("c4", "ConvND", {"m4", "wg"}, Converted({{"group", int64_t{2}}}))
          .Node("m5", "Mul", {"x", "s"})
          .Node("c5", "ConvND", {"m5", "w3"}, padded)                  // zero taps
          .Node("m6", "Mul", {"small", "s"})
          .Node("c6", "ConvND", {"m6", "w"}, Converted())              // 176 values: under 16 x 12
          .Node("m7", "Mul", {"x2", "per_image"})
          .Node("c7", "ConvND", {"m7", "w"}, Converted())              // a scale per image
          .Node("m8", "Mul", {"x", "x"})
          .Node("c8", "ConvND", {"m8", "w"}, Converted())              // not a channel scale
          .Node("gate", "Const", {}, {{"value", Ones({1, 1, 1, 4})}})
          .Node("m9", "Mul", {"x", "gate"})
          .Node("c9", "ConvND", {"m9", "w"}, Converted())              // a constant scale
          .Node("m10", "Mul", {"cf", "s"})
          .Node("c10", "ConvND", {"m10", "w"}, Converted({{"input_channels_first", true}}))
          .Node("w4", "Const", {}, {{"value", Ones({4, 4, 1, 1})}})
          .Node("m11", "Mul", {"x", "s"})
          .Node("c11", "ConvND", {"m11", "w4", "m11"}, Converted({{"residual", true}}))  // also its residual
          .Node("m12", "Mul", {"x", "s"})
          .Node("c12", "ConvND", {"m12", "w"}, Converted())            // m12 is also a result
          .Node("m13", "Mul", {"x", "s"})
          .Node("c13", "ConvND", {"m13", "w", "^c12"}, Converted())    // pinned: a control input
          .Node("m14", "Mul", {"x", "s", "^c12"})                      // pinned
          .Node("c14", "ConvND", {"m14", "w"}, Converted())
          .Return({"c1", "n1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "c11", "c12", "m12", "c13",
                   "c14"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ConvInputScale(), body));
  EXPECT_EQ(Text(body), before);
}

TEST(ConvInputScaleTest, ABatchSharingOneScaleAndAnUnpaddedWideFilterFold) {
  // 2 x 21 x 21 x 4 = 3528 input values, 16 times the 3 x 4 x 3 x 3 filter's 108 and more.
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 21, 21, 4}))
                          .Arg("s", DType::kFloat32, Dims({1, 1, 1, 4}))
                          .Node("w", "Const", {}, {{"value", Ones({3, 4, 3, 3})}})
                          .Node("m", "Mul", {"x", "s"})
                          .Node("c", "ConvND", {"m", "w"}, Converted({{"strides", IntList{2, 2}}}))
                          .Node("md", "Mul", {"s", "x"})
                          .Node("cd", "ConvND", {"md", "w"}, Converted({{"dilations", IntList{2, 2}}}))
                          .Return({"c", "cd"});
  EXPECT_TRUE(RunPass(ConvInputScale(), body));
  EXPECT_THAT(Text(body), ::testing::HasSubstr("c_conv_input_scale = ConvND[channels_last=true, strides=[2, 2]](x, "
                                               "c/conv_input_scale/filter) : float32[2,10,10,3]\n"));
  EXPECT_THAT(Text(body), ::testing::HasSubstr("cd_conv_input_scale = ConvND[channels_last=true, dilations=[2, 2]](x, "
                                               "cd/conv_input_scale/filter) : float32[2,17,17,3]\n"));
}

TEST(ConvInputScaleTest, DisabledChangesNothing) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 8, 8, 4}))
                          .Arg("s", DType::kFloat32, Dims({1, 1, 1, 4}))
                          .Node("w", "Const", {}, {{"value", Ones({3, 4, 1, 1})}})
                          .Node("m", "Mul", {"x", "s"})
                          .Node("c", "ConvND", {"m", "w"}, Converted())
                          .Return({"c"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ConvInputScale(/*enabled=*/false), body));
  EXPECT_EQ(Text(body), before);
}

}  // namespace
}  // namespace graphd::compiler::passes
