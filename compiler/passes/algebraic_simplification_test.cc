// Golden tests for the algebraic simplification pass.
#include "compiler/passes/algebraic_simplification.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::Filled;
using test::RunPass;
using test::Text;
using test::Value;

TEST(AlgebraicSimplificationTest, NeutralConstantsThatKeepTheShapeGo) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Arg("u", DType::kFloat32, PartialShape::UnknownRank())
                          .Arg("i", DType::kInt32, Dims({-1}))
                          .Const("one", 1.0f)
                          .Const("zero", 0.0f)
                          .Const("two", 2.0f)
                          .Node("ones_row", "Const", {}, Value(Filled(DType::kFloat32, {1, 3}, 1)))
                          .Node("ones_3d", "Const", {}, Value(Filled(DType::kFloat32, {2, 1, 1}, 1)))
                          .Node("izeros", "Const", {}, Value(Filled(DType::kInt32, {1}, 0)))
                          .Node("a", "Mul", {"x", "one"})
                          .Node("b", "Add", {"zero", "a"})
                          .Node("c", "Sub", {"b", "zero"})
                          .Node("d", "Div", {"c", "ones_row"})
                          .Node("e", "Mul", {"d", "ones_3d"})   // broadcasts to [2,2,3]
                          .Node("f", "Sub", {"zero", "d"})      // 0 - x is -x
                          .Node("g", "Div", {"one", "d"})       // 1 / x
                          .Node("h", "Mul", {"d", "two"})
                          .Node("k", "Add", {"i", "izeros"})
                          .Node("m", "Mul", {"u", "ones_row"})  // might add dims to u
                          .Node("n", "Mul", {"u", "one"})
                          .Node("kn", "Neg", {"k"})
                          .Node("nn", "Neg", {"n"})
                          .Return({"e", "f", "g", "h", "kn", "m", "nn"});
  AlgebraicSimplification pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[2,3]]() : float32[2,3]\n"
            "u = Arg[dtype=float32, shape=<unknown>]() : float32<unknown>\n"
            "i = Arg[dtype=int32, shape=[?]]() : int32[?]\n"
            "one = Const[value=float32[]{1}]() : float32[]\n"
            "zero = Const[value=float32[]{0}]() : float32[]\n"
            "two = Const[value=float32[]{2}]() : float32[]\n"
            "ones_row = Const[value=float32[1,3]{1, 1, 1}]() : float32[1,3]\n"
            "ones_3d = Const[value=float32[2,1,1]{1, 1}]() : float32[2,1,1]\n"
            "e = Mul(x, ones_3d) : float32[2,2,3]\n"
            "f = Sub(zero, x) : float32[2,3]\n"
            "g = Div(one, x) : float32[2,3]\n"
            "h = Mul(x, two) : float32[2,3]\n"
            "m = Mul(u, ones_row) : float32<unknown>\n"
            "kn = Neg(i) : int32[?]\n"
            "nn = Neg(u) : float32<unknown>\n"
            "return e, f, g, h, kn, m, nn\n");
  EXPECT_FALSE(RunPass(pass, body));
}

TEST(AlgebraicSimplificationTest, NoOpsGoAndTransposesCompose) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3, 4}))
                          .Node("id", "Identity", {"x"})
                          .Node("same", "Cast", {"id"}, {{"DstT", DType::kFloat32}})
                          .Node("r", "Reshape", {"same"}, {{"shape", IntList{2, 3, 4}}})
                          .Node("flat", "Reshape", {"r"}, {{"shape", IntList{6, 4}}})
                          .Node("t0", "Transpose", {"x"}, {{"perm", IntList{0, 1, 2}}})
                          .Node("t1", "Transpose", {"t0"}, {{"perm", IntList{2, 0, 1}}})
                          .Node("back", "Transpose", {"t1"}, {{"perm", IntList{1, 2, 0}}})
                          .Node("swap", "Transpose", {"t1"}, {{"perm", IntList{1, 0, 2}}})
                          .Node("n1", "Neg", {"x"})
                          .Node("n2", "Neg", {"n1"})
                          .Node("sum", "Add", {"back", "n2"})
                          .Node("wide", "Cast", {"x"}, {{"DstT", DType::kFloat64}})
                          .Node("kept", "Identity", {"x"})  // a result keeps its node
                          .Return({"flat", "sum", "swap", "wide", "kept"});
  AlgebraicSimplification pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[2,3,4]]() : float32[2,3,4]\n"
            "flat = Reshape[shape=[6, 4]](x) : float32[6,4]\n"
            "swap/composed = Transpose[perm=[0, 2, 1]](x) : float32[2,4,3]\n"
            "sum = Add(x, x) : float32[2,3,4]\n"
            "wide = Cast[DstT=float64](x) : float64[2,3,4]\n"
            "kept = Identity(x) : float32[2,3,4]\n"
            "return flat, sum, swap/composed, wide, kept\n");
  EXPECT_FALSE(RunPass(pass, body));
}

TEST(AlgebraicSimplificationTest, PadsOfNothingGoOthersStay) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 4, 4, 2}))
                          .Node("none", "Pad", {"x"}, {{"paddings", IntList{0, 0, 0, 0, 0, 0, 0, 0}}})
                          .Node("pool", "Neg", {"none"})
                          .Node("some", "Pad", {"x"}, {{"paddings", IntList{0, 0, 1, 0, 0, 0, 0, 0}}})
                          .Return({"pool", "some"});
  AlgebraicSimplification pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,4,4,2]]() : float32[1,4,4,2]\n"
            "pool = Neg(x) : float32[1,4,4,2]\n"
            "some = Pad[paddings=[0, 0, 1, 0, 0, 0, 0, 0]](x) : float32[1,5,4,2]\n"
            "return pool, some\n");
}

TEST(AlgebraicSimplificationTest, ReversalsCancelAndReshapesToTheSameShapeGo) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({-1, 3}))
                          .Node("t1", "Transpose", {"x"})  // no perm: reversed
                          .Node("t2", "Transpose", {"t1"})
                          .Node("t3", "Transpose", {"x"}, {{"perm", IntList{1, 0}}})
                          .Node("t4", "Transpose", {"t3"})
                          .Node("r", "Reshape", {"x"}, {{"shape", IntList{-1, 3}}})
                          .Node("r2", "Reshape", {"x"}, {{"shape", IntList{3, -1}}})  // [3,?]: not x's shape
                          .Node("a", "Add", {"t2", "t4"})
                          .Node("b", "Add", {"a", "r"})
                          .Return({"b", "r2"});
  EXPECT_TRUE(RunPass(AlgebraicSimplification(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[?,3]]() : float32[?,3]\n"
            "r2 = Reshape[shape=[3, -1]](x) : float32[3,?]\n"
            "a = Add(x, x) : float32[?,3]\n"
            "b = Add(a, x) : float32[?,3]\n"
            "return b, r2\n");
}

TEST(AlgebraicSimplificationTest, LeavesPinnedNodesAndWhatTheyRead) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Const("one", 1.0f)
                          .Node("n1", "Neg", {"x", "^one"})      // pinned: a control input
                          .Node("n2", "Neg", {"n1"})              // reads through a pinned Neg: no
                          .Node("t1", "Transpose", {"x", "^one"}, {{"perm", IntList{1, 0}}})
                          .Node("t2", "Transpose", {"t1"}, {{"perm", IntList{1, 0}}})
                          .Node("s", "Add", {"n2", "t2"})
                          .Node("m", "Mul", {"x", "one", "^x"})  // pinned
                          .Return({"s", "m"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(AlgebraicSimplification(), body));
  EXPECT_EQ(Text(body), before);
}

TEST(AlgebraicSimplificationTest, PowOfTwoBecomesSquareOnFloatsOnly) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Arg("i", DType::kInt32, Dims({2}))
                          .Const("two", 2.0f)
                          .Const("three", 3.0f)
                          .Const("itwo", int32_t{2})
                          .Node("sq", "Pow", {"x", "two"})
                          .Node("cube", "Pow", {"x", "three"})
                          .Node("isq", "Pow", {"i", "itwo"})
                          .Node("out", "Add", {"sq", "cube"})
                          .Return({"out", "isq"});
  AlgebraicSimplification pass;
  EXPECT_TRUE(RunPass(pass, body));
  const std::string text = Text(body);
  EXPECT_NE(text.find("sq/square = Square(x) : float32[2,3]"), std::string::npos) << text;
  EXPECT_NE(text.find("cube = Pow(x, three)"), std::string::npos) << text;
  EXPECT_NE(text.find("isq = Pow(i, itwo)"), std::string::npos) << text;
  EXPECT_EQ(text.find("\ntwo = Const"), std::string::npos) << text;  // no longer read
  EXPECT_FALSE(RunPass(pass, body));
}

}  // namespace
}  // namespace graphd::compiler::passes
