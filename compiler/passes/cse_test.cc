// Golden tests for common-subexpression elimination.
#include "compiler/passes/cse.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::RunPass;
using test::Text;

TEST(CseTest, MergesEqualComputationsAndTheirConsumers) {
  // a*b + a*b, then tanh of each product.
  FunctionBody body = BodyBuilder()
                          .Arg("a")
                          .Arg("b")
                          .Node("m1", "Mul", {"a", "b"})
                          .Node("m2", "Mul", {"a", "b"})
                          .Node("s", "Add", {"m1", "m2"})
                          .Node("t1", "Tanh", {"m1"})
                          .Node("t2", "Tanh", {"m2"})
                          .Node("swapped", "Mul", {"b", "a"})  // inputs in another order: kept
                          .Return({"s", "t2", "swapped"});
  CommonSubexpressionElimination cse;
  EXPECT_TRUE(RunPass(cse, body));
  EXPECT_EQ(Text(body),
            "a = Arg[dtype=float32, shape=[]]() : float32[]\n"
            "b = Arg[dtype=float32, shape=[]]() : float32[]\n"
            "m1 = Mul(a, b) : float32[]\n"
            "s = Add(m1, m1) : float32[]\n"
            "t1 = Tanh(m1) : float32[]\n"
            "swapped = Mul(b, a) : float32[]\n"
            "return s, t1, swapped\n");
  EXPECT_FALSE(RunPass(cse, body));
}

TEST(CseTest, ConstantsMergeByValue) {
  Tensor v1 = Tensor::FromVector<float>(Shape({2}), std::vector<float>{1, 2}).value();
  Tensor v2 = Tensor::FromVector<float>(Shape({2}), std::vector<float>{1, 2}).value();
  FunctionBody body = BodyBuilder()
                          .Node("v1", "Const", {}, {{"value", v1}})
                          .Node("v2", "Const", {}, {{"value", v2}})  // same value, other buffer
                          .Const("f", 1.0f)
                          .Const("i", int32_t{1})    // another dtype
                          .Const("g", 2.0f)          // another value
                          .Const("z", 0.0f)
                          .Const("nz", -0.0f)        // bitwise different
                          .Node("s", "Add", {"v1", "v2"})
                          .Return({"s", "f", "i", "g", "z", "nz"});
  EXPECT_TRUE(RunPass(CommonSubexpressionElimination(), body));
  EXPECT_EQ(Text(body),
            "v1 = Const[value=float32[2]{1, 2}]() : float32[2]\n"
            "f = Const[value=float32[]{1}]() : float32[]\n"
            "i = Const[value=int32[]{1}]() : int32[]\n"
            "g = Const[value=float32[]{2}]() : float32[]\n"
            "z = Const[value=float32[]{0}]() : float32[]\n"
            "nz = Const[value=float32[]{-0}]() : float32[]\n"
            "s = Add(v1, v1) : float32[2]\n"
            "return s, f, i, g, z, nz\n");
}

TEST(CseTest, AttributesMustMatch) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Node("s0", "Sum", {"x"}, {{"axis", IntList{0}}})
                          .Node("s1", "Sum", {"x"}, {{"axis", IntList{1}}})
                          .Node("s0b", "Sum", {"x"}, {{"axis", IntList{0}}})
                          .Return({"s0", "s1", "s0b"});
  EXPECT_TRUE(RunPass(CommonSubexpressionElimination(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[2,3]]() : float32[2,3]\n"
            "s0 = Sum[axis=[0]](x) : float32[3]\n"
            "s1 = Sum[axis=[1]](x) : float32[2]\n"
            "return s0, s1, s0\n");
}

TEST(CseTest, StatefulNodesAndControlEdgesAreNeverMerged) {
  // Two reads of a variable around an assign must stay two reads; so must nodes with
  // control edges, and the stateful ops themselves.
  AttrMap var = {{"var_name", std::string("v")}, {"dtype", DType::kFloat32}, {"shape", Dims({})}};
  AttrMap print = {{"template", std::string("{}")}};
  FunctionBody body = BodyBuilder()
                          .Arg("x")
                          .Node("r1", "ReadVariableOp", {}, var)
                          .Node("assign", "AssignVariableOp", {"x", "^r1"}, var)
                          .Node("r2", "ReadVariableOp", {"^assign"}, var)
                          .Node("n1", "Neg", {"x"})
                          .Node("n2", "Neg", {"x", "^assign"})
                          .Node("p1", "PrintV2", {"x"}, print)
                          .Node("p2", "PrintV2", {"x"}, print)
                          .Node("s", "Add", {"r1", "r2"})
                          .Return({"s", "n1", "n2"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(CommonSubexpressionElimination(), body));
  EXPECT_EQ(Text(body), before);
}

}  // namespace
}  // namespace graphd::compiler::passes
