#include "core/graph/dot.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd {
namespace {

using ::testing::HasSubstr;

// f(x) = x * 2 (one branch body), as a Function.
FunctionRef Scale(const std::string& name, float k) {
  auto g = std::make_unique<Graph>();
  auto x = g->AddNode({.name = "x", .op = "Arg", .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape()}}});
  auto c = g->AddNode({.name = "k", .op = "Const", .attrs = {{"value", Tensor::Scalar(k)}}});
  auto m = g->AddNode({.name = "m", .op = "Mul", .inputs = {{*x, 0}, {*c, 0}}});
  return *MakeFunction(name, std::move(g), {*x}, {{*m, 0}});
}

TEST(DotTest, NodesEdgesTypesAndBranchClusters) {
  auto g = std::make_unique<Graph>();
  auto p = g->AddNode({.name = "p", .op = "Arg", .attrs = {{"dtype", DType::kBool}, {"shape", PartialShape(Shape({}))}}});
  auto x = g->AddNode({.name = "x", .op = "Arg",
                       .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(std::vector<int64_t>{-1, 3})}}});
  ASSERT_TRUE(p.ok() && x.ok());
  auto cond = g->AddNode({.name = "cond", .op = "If", .inputs = {{*p, 0}, {*x, 0}},
                          .attrs = {{"then_branch", Scale("double", 2)}, {"else_branch", Scale("halve", 0.5f)}}});
  ASSERT_TRUE(cond.ok()) << cond.status();
  auto print = g->AddNode({.name = "print", .op = "NoOp", .control_inputs = {*cond}});
  ASSERT_TRUE(print.ok());
  auto fn = MakeFunction("f", std::move(g), {*p, *x}, {{*cond, 0}});
  ASSERT_TRUE(fn.ok()) << fn.status();
  std::string dot = FunctionToDot(**fn);
  EXPECT_THAT(dot, HasSubstr("digraph \"f\" {"));
  EXPECT_THAT(dot, HasSubstr("\"x\" [label=\"x\\nArg\\nfloat32[?,3]\", shape=ellipse];"));
  EXPECT_THAT(dot, HasSubstr("\"cond\" [label=\"cond\\nIf\\nfloat32 (unknown shape)\"];"));
  EXPECT_THAT(dot, HasSubstr("\"p\" -> \"cond\";"));
  EXPECT_THAT(dot, HasSubstr("\"cond\" -> \"print\" [style=dashed];"));
  // Branches are clusters named after the node and attribute, their nodes prefixed.
  EXPECT_THAT(dot, HasSubstr("label=\"cond.else_branch @halve\";"));
  EXPECT_THAT(dot, HasSubstr("label=\"cond.then_branch @double\";"));
  EXPECT_THAT(dot, HasSubstr("\"cluster_1/x\" -> \"cluster_1/m\";"));
  EXPECT_THAT(dot, HasSubstr("\"cond\" -> \"cluster_0/x\" [style=dotted, lhead=cluster_0];"));
  EXPECT_THAT(dot, HasSubstr("\"cond\" -> \"return\" [label=\"0\"];"));
  EXPECT_EQ(dot, FunctionToDot(**fn)) << "deterministic";
  EXPECT_EQ(dot.back(), '\n');
}

TEST(DotTest, QuotesNamesAndTitles) {
  Graph g;
  ASSERT_TRUE(g.AddNode({.name = "a/b", .op = "Const", .attrs = {{"value", Tensor::Scalar(1.0f)}}}).ok());
  std::string dot = GraphToDot(g, "my \"graph\"");
  EXPECT_THAT(dot, HasSubstr("digraph \"my \\\"graph\\\"\" {"));
  EXPECT_THAT(dot, HasSubstr("\"a/b\" [label=\"a/b\\nConst\\nfloat32[]\"];"));
  EXPECT_THAT(dot, ::testing::Not(HasSubstr("return")));
}

}  // namespace
}  // namespace graphd
