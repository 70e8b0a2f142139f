#include "core/graph/ir_text.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd {
namespace {

TEST(IrTextTest, NodesAttrsInputsAndTypes) {
  auto g = std::make_unique<Graph>();
  auto x = g->AddNode({.name = "x", .op = "Arg",
                       .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(std::vector<int64_t>{2})}}});
  ASSERT_TRUE(x.ok());
  Tensor v = Tensor::FromVector<float>(Shape({2}), std::vector<float>{1.5f, -2}).value();
  auto c = g->AddNode({.name = "c", .op = "Const", .attrs = {{"value", v}}});
  ASSERT_TRUE(c.ok());
  auto m = g->AddNode({.name = "m", .op = "Mul", .inputs = {{*x, 0}, {*c, 0}}});
  ASSERT_TRUE(m.ok());
  auto n = g->AddNode({.name = "n", .op = "NoOp", .control_inputs = {*m}});
  ASSERT_TRUE(n.ok());
  auto fn = MakeFunction("f", std::move(g), {*x}, {{*m, 0}});
  ASSERT_TRUE(fn.ok()) << fn.status();
  EXPECT_EQ(FunctionToText(**fn),
            "@f(x) {\n"
            "  x = Arg[dtype=float32, shape=[2]]() : float32[2]\n"
            "  c = Const[value=float32[2]{1.5, -2}]() : float32[2]\n"
            "  m = Mul(x, c) : float32[2]\n"
            "  n = NoOp(^m)\n"
            "  return m\n"
            "}\n");
}

TEST(IrTextTest, AttrValues) {
  EXPECT_EQ(AttrValueToText(int64_t{3}), "3");
  EXPECT_EQ(AttrValueToText(std::string("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(AttrValueToText(IntList{1, 2}), "[1, 2]");
  EXPECT_EQ(AttrValueToText(TypeList{DType::kInt32}), "[int32]");
  EXPECT_EQ(AttrValueToText(PartialShape(std::vector<int64_t>{-1, 3})), "[?,3]");
  Tensor big = Tensor::FromVector<int32_t>(Shape({10}), std::vector<int32_t>(10, 7)).value();
  EXPECT_EQ(AttrValueToText(big), "int32[10]{7, 7, 7, 7, 7, 7, 7, 7, ...}");
  EXPECT_EQ(AttrValueToText(Tensor::Scalar(std::string("hi"))), "string[]{\"hi\"}");
  EXPECT_EQ(AttrValueToText(Tensor::Scalar(true)), "bool[]{true}");
}

}  // namespace
}  // namespace graphd
