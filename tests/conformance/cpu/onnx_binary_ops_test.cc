// TruncateMod, LeftShift/RightShift, PRelu, ClipByValue, Hardmax, Trilu and Cumsum
// with a run-time axis (the ONNX CumSum examples): values
// worked by hand (C's fmod/% for TruncateMod, checked with Python's math.fmod), with
// broadcasting, empty tensors and inference errors.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

void ExpectRun(const std::string& op, const std::vector<Tensor>& in, const Shape& shape,
               const std::vector<double>& want, AttrMap attrs = {}, double tol = 1e-6) {
  auto out = RunOp(op, in, std::move(attrs));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->dtype(), in[0].dtype());
  EXPECT_EQ(out->shape(), shape);
  ExpectClose(*out, want, tol, tol);
}

TEST(TruncateModTest, SignFollowsDividend) {
  Tensor a = Make<int32_t>(Shape({6}), {-4, 7, 5, 4, -7, 8});
  Tensor b = Make<int32_t>(Shape({6}), {2, -3, 8, -2, 3, 5});
  ExpectRun("TruncateMod", {a, b}, Shape({6}), {0, 1, 5, 0, -1, 3});
  ExpectRun("FloorMod", {a, b}, Shape({6}), {0, -2, 5, 0, 2, 3});  // the other convention
  Tensor f = Make<double>(Shape({4}), {-4.3, 7.5, -7.5, 3});
  Tensor g = Make<double>(Shape({4}), {2.1, -2, 2, 0});
  ExpectRun("TruncateMod", {f, g}, Shape({4}), {std::fmod(-4.3, 2.1), 1.5, -1.5, NAN}, {}, 1e-12);
  // Broadcast [2,1] % [3] -> [2,3], int64 and float32.
  Tensor x = Make<int64_t>(Shape({2, 1}), {-10, 10});
  Tensor y = Make<int64_t>(Shape({3}), {3, -4, 7});
  ExpectRun("TruncateMod", {x, y}, Shape({2, 3}), {-1, -2, -3, 1, 2, 3});
  Tensor xf = Make<float>(Shape({2, 1}), {-10, 10});
  Tensor yf = Make<float>(Shape({3}), {3, -4, 7});
  ExpectRun("TruncateMod", {xf, yf}, Shape({2, 3}), {-1, -2, -3, 1, 2, 3});
  ExpectRun("TruncateMod", {Make<int8_t>(Shape({0, 2}), {}), Make<int8_t>(Shape({2}), {1, 2})},
            Shape({0, 2}), {});
  auto zero = RunOp("TruncateMod", {a, Make<int32_t>(Shape({}), {0})});
  EXPECT_THAT(zero.status().message(), HasSubstr("division by zero"));
}

TEST(ShiftTest, LeftAndRight) {
  Tensor x = Make<uint8_t>(Shape({3}), {16, 4, 1});
  Tensor y = Make<uint8_t>(Shape({3}), {1, 2, 3});
  ExpectRun("LeftShift", {x, y}, Shape({3}), {32, 16, 8});
  ExpectRun("RightShift", {x, y}, Shape({3}), {8, 1, 0});
  // Wrapping, arithmetic right shifts and out-of-range amounts.
  Tensor a = Make<int8_t>(Shape({5}), {127, -16, -5, 1, -1});
  Tensor s = Make<int8_t>(Shape({5}), {1, 2, 9, 8, -1});
  ExpectRun("LeftShift", {a, s}, Shape({5}), {-2, -64, 0, 0, 0});
  ExpectRun("RightShift", {a, s}, Shape({5}), {63, -4, -1, 0, -1});
  ExpectRun("LeftShift", {Make<uint8_t>(Shape({1}), {1}), Make<uint8_t>(Shape({1}), {8})},
            Shape({1}), {0});
  // Broadcast [2,1] with [3].
  Tensor b = Make<int64_t>(Shape({2, 1}), {1, -64});
  Tensor c = Make<int64_t>(Shape({3}), {0, 3, 40});
  ExpectRun("LeftShift", {b, c}, Shape({2, 3}),
            {1, 8, 1099511627776.0, -64, -512, -70368744177664.0});
  ExpectRun("RightShift", {b, c}, Shape({2, 3}), {1, 0, 0, -64, -8, -1});
  EXPECT_THAT(InferError("LeftShift", {TT(DType::kFloat32, {2}), TT(DType::kFloat32, {2})}),
              HasSubstr("x dtype is float32"));
  EXPECT_THAT(InferError("RightShift", {TT(DType::kInt32, {2}), TT(DType::kInt64, {2})}),
              HasSubstr("same dtype"));
  EXPECT_THAT(InferError("RightShift", {TT(DType::kInt32, {2}), TT(DType::kInt32, {3})}),
              HasSubstr("cannot be broadcast"));
}

TEST(PReluTest, SlopeBroadcastsToX) {
  Tensor x = Make<float>(Shape({2, 3}), {-2, -1, 0, 1, 2, -3});
  ExpectRun("PRelu", {x, Make<float>(Shape({3}), {0.1f, 0.2f, 0.3f})}, Shape({2, 3}),
            {-0.2, -0.2, 0, 1, 2, -0.9});
  ExpectRun("PRelu", {x, Make<float>(Shape({2, 1}), {0.5f, 2})}, Shape({2, 3}),
            {-1, -0.5, 0, 1, 2, -6});
  ExpectRun("PRelu", {x, Make<float>(Shape({}), {0.25f})}, Shape({2, 3}),
            {-0.5, -0.25, 0, 1, 2, -0.75});
  Tensor xd = Make<double>(Shape({2, 2}), {-1, 1, -2, 2});
  ExpectRun("PRelu", {xd, Make<double>(Shape({2, 2}), {1, 2, 3, 4})}, Shape({2, 2}),
            {-1, 1, -6, 2});
  ExpectRun("PRelu", {Make<float>(Shape({0, 3}), {}), Make<float>(Shape({3}), {1, 2, 3})},
            Shape({0, 3}), {});
  EXPECT_THAT(InferError("PRelu", {TT(DType::kFloat32, {2, 3}), TT(DType::kFloat32, {4})}),
              HasSubstr("does not broadcast to [2,3]"));
  EXPECT_THAT(InferError("PRelu", {TT(DType::kFloat32, {3}), TT(DType::kFloat32, {2, 3})}),
              HasSubstr("does not broadcast"));
  EXPECT_THAT(InferError("PRelu", {TT(DType::kFloat32, {3}), TT(DType::kFloat64, {3})}),
              HasSubstr("input 1 is float64"));
  EXPECT_THAT(InferError("PRelu", {TT(DType::kInt32, {3}), TT(DType::kInt32, {3})}),
              HasSubstr("input dtype is int32"));
  // Unknown dims pass inference; the kernel checks the real shapes.
  Graph g;
  const PartialShape unknown(std::vector<int64_t>{kUnknownDim});
  const Node* px = AddPlaceholder(g, "x", DType::kFloat32, unknown);
  const Node* ps = AddPlaceholder(g, "s", DType::kFloat32, unknown);
  ASSERT_TRUE(g.AddNode({.name = "out", .op = "PRelu", .inputs = {{px, 0}, {ps, 0}}}).ok());
  auto bad = RunGraph(g, {{"x", Make<float>(Shape({2}), {1, 2})},
                          {"s", Make<float>(Shape({3}), {1, 2, 3})}}, {"out"});
  EXPECT_THAT(bad.status().message(), HasSubstr("does not broadcast to [2]"));
}

TEST(ClipByValueTest, BoundsBroadcastToX) {
  Tensor x = Make<int32_t>(Shape({4}), {-5, 0, 5, 10});
  auto i32 = [](int32_t v) { return Make<int32_t>(Shape({}), {v}); };
  ExpectRun("ClipByValue", {x, i32(0), i32(6)}, Shape({4}), {0, 0, 5, 6});
  ExpectRun("ClipByValue", {x, i32(5), i32(2)}, Shape({4}), {2, 2, 2, 2});  // max wins
  Tensor f = Make<float>(Shape({2, 2}), {-1, 0.5f, 3, 9});
  ExpectRun("ClipByValue",
            {f, Make<float>(Shape({2}), {0, 1}), Make<float>(Shape({2, 1}), {2, 4})},
            Shape({2, 2}), {0, 1, 3, 4});
  Tensor u = Make<uint8_t>(Shape({3}), {0, 100, 250});
  ExpectRun("ClipByValue",
            {u, Make<uint8_t>(Shape({}), {10}), Make<uint8_t>(Shape({}), {200})}, Shape({3}),
            {10, 100, 200});
  EXPECT_THAT(InferError("ClipByValue", {TT(DType::kFloat32, {4}), TT(DType::kFloat32, {}),
                                         TT(DType::kFloat32, {2})}),
              HasSubstr("input 2 [2] does not broadcast to [4]"));
  EXPECT_THAT(InferError("ClipByValue", {TT(DType::kBool, {4}), TT(DType::kBool, {}),
                                         TT(DType::kBool, {})}),
              HasSubstr("input dtype is bool"));
}

TEST(HardmaxTest, FirstMaximumAlongAxis) {
  Tensor x = Make<float>(Shape({2, 3}), {1, 3, 3, -1, -2, -3});
  ExpectRun("Hardmax", {x}, Shape({2, 3}), {0, 1, 0, 1, 0, 0});
  ExpectRun("Hardmax", {x}, Shape({2, 3}), {1, 1, 1, 0, 0, 0}, {{"axis", int64_t{0}}});
  Tensor y = Make<double>(Shape({2, 2, 2}), {1, 5, 2, 4, 7, NAN, 7, 0});
  ExpectRun("Hardmax", {y}, Shape({2, 2, 2}), {0, 1, 1, 0, 1, 1, 0, 0},
            {{"axis", int64_t{1}}});
  ExpectRun("Hardmax", {y}, Shape({2, 2, 2}), {0, 1, 0, 1, 0, 1, 1, 0});
  ExpectRun("Hardmax", {Make<float>(Shape({0, 3}), {})}, Shape({0, 3}), {});
  ExpectRun("Hardmax", {Make<float>(Shape({3, 0}), {})}, Shape({3, 0}), {});
  EXPECT_THAT(InferError("Hardmax", {TT(DType::kFloat32, {2, 3})}, {{"axis", int64_t{2}}}),
              HasSubstr("axis 2 is out of range"));
  EXPECT_THAT(InferError("Hardmax", {TT(DType::kFloat32, {})}), HasSubstr("rank >= 1"));
  EXPECT_THAT(InferError("Hardmax", {TT(DType::kInt32, {2})}), HasSubstr("input dtype is int32"));
}

TEST(TriluTest, UpperAndLowerWithK) {
  std::vector<int32_t> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i + 1;
  Tensor x = Make<int32_t>(Shape({3, 4}), v);
  auto k = [](int64_t v) { return Make<int64_t>(Shape({}), {v}); };
  const Shape s({3, 4});
  ExpectRun("Trilu", {x}, s, {1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12});
  ExpectRun("Trilu", {x, k(1)}, s, {0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12});
  ExpectRun("Trilu", {x, k(-1)}, s, {1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12});
  ExpectRun("Trilu", {x, k(10)}, s, std::vector<double>(12, 0));
  AttrMap lower = {{"upper", false}};
  ExpectRun("Trilu", {x}, s, {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}, lower);
  ExpectRun("Trilu", {x, k(-1)}, s, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}, lower);
  ExpectRun("Trilu", {x, Make<int32_t>(Shape({1}), {2})}, s,
            {1, 2, 3, 0, 5, 6, 7, 8, 9, 10, 11, 12}, lower);
  ExpectRun("Trilu", {x, k(std::numeric_limits<int64_t>::max())}, s,
            {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, lower);
  ExpectRun("Trilu", {x, k(std::numeric_limits<int64_t>::min())}, s,
            {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  // Batched, float and bool; empty batch and empty matrix.
  Tensor b = Make<double>(Shape({2, 2, 2}), {1, 2, 3, 4, 5, 6, 7, 8});
  ExpectRun("Trilu", {b}, Shape({2, 2, 2}), {1, 2, 0, 4, 5, 6, 0, 8});
  auto t = RunOp("Trilu", {MakeBool(Shape({2, 2}), {1, 1, 1, 1})}, lower);
  ASSERT_TRUE(t.ok()) << t.status();
  ExpectClose(*t, {1, 0, 1, 1});
  ExpectRun("Trilu", {Make<float>(Shape({0, 3, 3}), {})}, Shape({0, 3, 3}), {});
  ExpectRun("Trilu", {Make<float>(Shape({3, 0}), {})}, Shape({3, 0}), {});
  auto str = RunOp("Trilu", {MakeStrings(Shape({2, 2}), {"a", "b", "c", "d"})});
  ASSERT_TRUE(str.ok()) << str.status();
  EXPECT_EQ(Strings(*str), (std::vector<std::string>{"a", "b", "", "d"}));
  EXPECT_THAT(InferError("Trilu", {TT(DType::kFloat32, {3})}), HasSubstr("rank >= 2"));
  EXPECT_THAT(InferError("Trilu", {TT(DType::kFloat32, {3, 3}), TT(DType::kFloat32, {})}),
              HasSubstr("k dtype is float32"));
  EXPECT_THAT(InferError("Trilu", {TT(DType::kFloat32, {3, 3}), TT(DType::kInt64, {2})}),
              HasSubstr("k must be a scalar"));
  EXPECT_THAT(InferError("Trilu", {TT(DType::kFloat32, {3, 3}), TT(DType::kInt64, {}),
                                   TT(DType::kInt64, {})}),
              HasSubstr("expected 1 or 2 inputs"));
}

TEST(CumsumTest, AxisAsRunTimeInput) {
  Tensor x = Make<double>(Shape({5}), {1, 2, 3, 4, 5});
  Tensor zero = Make<int32_t>(Shape({}), {0});
  ExpectRun("Cumsum", {x, zero}, Shape({5}), {1, 3, 6, 10, 15});
  ExpectRun("Cumsum", {x, zero}, Shape({5}), {0, 1, 3, 6, 10}, {{"exclusive", true}});
  ExpectRun("Cumsum", {x, zero}, Shape({5}), {15, 14, 12, 9, 5}, {{"reverse", true}});
  ExpectRun("Cumsum", {x, zero}, Shape({5}), {14, 12, 9, 5, 0},
            {{"exclusive", true}, {"reverse", true}});
  Tensor m = Make<float>(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  ExpectRun("Cumsum", {m, Make<int64_t>(Shape({}), {0})}, Shape({2, 3}), {1, 2, 3, 5, 7, 9});
  ExpectRun("Cumsum", {m, Make<int64_t>(Shape({1}), {1})}, Shape({2, 3}), {1, 3, 6, 4, 9, 15});
  ExpectRun("Cumsum", {m, Make<int32_t>(Shape({}), {-1})}, Shape({2, 3}), {1, 3, 6, 4, 9, 15});
  auto bad = RunOp("Cumsum", {m, Make<int32_t>(Shape({}), {2})});
  EXPECT_THAT(bad.status().message(), HasSubstr("axis 2 is out of range"));
  EXPECT_THAT(InferError("Cumsum", {TT(DType::kFloat32, {2}), TT(DType::kInt64, {})},
                         {{"axis", int64_t{0}}}),
              HasSubstr("both as an attribute and as an input"));
  EXPECT_THAT(InferError("Cumsum", {TT(DType::kFloat32, {2}), TT(DType::kFloat32, {})}),
              HasSubstr("axis dtype is float32"));
  EXPECT_THAT(InferError("Cumsum", {TT(DType::kFloat32, {2}), TT(DType::kInt32, {2})}),
              HasSubstr("axis must be a scalar"));
  // A constant axis is range-checked when the node is added.
  Graph g;
  const Node* px = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{2}));
  auto axis =
      g.AddNode({.name = "a", .op = "Const", .attrs = {{"value", Tensor::Scalar<int32_t>(3)}}});
  ASSERT_TRUE(axis.ok());
  auto node = g.AddNode({.name = "c", .op = "Cumsum", .inputs = {{px, 0}, {*axis, 0}}});
  EXPECT_THAT(node.status().message(), HasSubstr("axis 3 is out of range"));
}

}  // namespace
}  // namespace graphd::executor::test
