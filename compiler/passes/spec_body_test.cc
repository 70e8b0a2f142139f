// BodyFromSpec / SpecWithout / OptimizeFunction: TF1 run signatures and GraphDef
// functions as function bodies for the pass pipeline (issue 14).
#include "compiler/passes/spec_body.h"

#include "compiler/passes/pass_test_util.h"
#include "compiler/passes/prune.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::Text;
using ::testing::HasSubstr;

// x, y: placeholders; w: a variable that `assign` writes and `m` reads; r = -m.
class SpecBodyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const PartialShape s(std::vector<int64_t>{2, 2});
    Add({.name = "x", .op = "Placeholder", .attrs = {{"dtype", DType::kFloat32}, {"shape", s}}});
    Add({.name = "y", .op = "Placeholder", .attrs = {{"dtype", DType::kFloat32}, {"shape", s}}});
    Add({.name = "w", .op = "VariableV2", .attrs = {{"dtype", DType::kFloat32}, {"shape", s}}});
    Add({.name = "v", .op = "VariableV2", .attrs = {{"dtype", DType::kFloat32}, {"shape", s}}});
    Add({.name = "assign", .op = "Assign", .inputs = {Out("v"), Out("y")}});
    Add({.name = "m", .op = "MatMul", .inputs = {Out("x"), Out("w")}});
    Add({.name = "r", .op = "Neg", .inputs = {Out("m")}});
  }
  void Add(NodeSpec spec) {
    auto node = graph_.AddNode(std::move(spec));
    ASSERT_TRUE(node.ok()) << node.status();
  }
  OutputRef Out(const std::string& name) { return OutputRef{graph_.FindNode(name), 0}; }
  SpecBody Body(std::vector<std::string> feeds, std::vector<std::string> fetches,
                std::vector<std::string> targets = {}) {
    auto spec = Prune(graph_, feeds, fetches, targets);
    EXPECT_TRUE(spec.ok()) << spec.status();
    auto body = BodyFromSpec("run", *spec);
    EXPECT_TRUE(body.ok()) << body.status();
    return std::move(*body);
  }
  Graph graph_;
};

TEST_F(SpecBodyTest, FeedsBecomeArgumentsNamedAfterTheirPlaceholders) {
  SpecBody b = Body({"x:0"}, {"r:0", "x:0"});
  EXPECT_EQ(Text(b.body),
            "x = Arg[dtype=float32, index=0, shape=[2,2]]() : float32[2,2]\n"
            "w = VariableV2[dtype=float32, shape=[2,2]]() : float32[2,2]\n"
            "m = MatMul(x, w) : float32[2,2]\n"
            "r = Neg(m) : float32[2,2]\n"
            "return r, x\n");
  EXPECT_TRUE(b.not_run.empty());
  ASSERT_EQ(b.body.args.size(), 1u);
  EXPECT_EQ(b.body.args[0]->name(), "x");
}

TEST_F(SpecBodyTest, AFedIntermediateCutsWhatComputesIt) {
  SpecBody b = Body({"m:0"}, {"r:0"});
  EXPECT_EQ(Text(b.body),
            "m = Arg[dtype=float32, index=0, shape=[2,2]]() : float32[2,2]\n"
            "r = Neg(m) : float32[2,2]\n"
            "return r\n");
}

TEST_F(SpecBodyTest, AVariableOnlyWrittenIsInTheGraphButNotRun) {
  SpecBody b = Body({"y:0"}, {}, {"assign"});
  EXPECT_EQ(b.not_run, (absl::flat_hash_set<std::string>{"v"}));
  EXPECT_THAT(Text(b.body), HasSubstr("assign = Assign(v, y)"));
  auto fn = std::move(b.body).ToFunction();
  ASSERT_TRUE(fn.ok()) << fn.status();
  ExecutionSpec spec = SpecWithout(**fn, {"v"});
  std::vector<std::string> names;
  for (const Node* n : spec.nodes) names.push_back(n->name());
  EXPECT_THAT(names, ::testing::ElementsAre("y", "assign"));
  ASSERT_EQ(spec.feeds.size(), 1u);
  EXPECT_EQ(spec.feeds[0].node->name(), "y");
}

TEST_F(SpecBodyTest, AnArgumentNameNeverTakesACopiedNodesName) {
  Add({.name = "after", .op = "Neg", .inputs = {Out("x")}, .control_inputs = {graph_.FindNode("r")}});
  SpecBody b = Body({"x:0", "r:0"}, {"after:0"});
  // r is fed but still copied (the control input of `after` needs it run), so the
  // argument for r:0 gets a fresh name.
  ASSERT_EQ(b.body.args.size(), 2u);
  EXPECT_EQ(b.body.args[0]->name(), "x");
  EXPECT_NE(b.body.args[1]->name(), "r");
  EXPECT_NE(b.body.graph->FindNode("r"), nullptr);
}

TEST_F(SpecBodyTest, OptimizeFunctionRewritesACopy) {
  SpecBody b = Body({"x:0"}, {"r:0"});
  auto fn = std::move(b.body).ToFunction();
  ASSERT_TRUE(fn.ok()) << fn.status();
  auto pipeline = MakeDefaultPipeline(nullptr);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto optimized = OptimizeFunction(**fn, **pipeline);
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  EXPECT_NE(optimized->get(), fn->get());
  EXPECT_EQ((*optimized)->num_args(), 1);
  EXPECT_EQ((*optimized)->num_results(), 1);
  EXPECT_EQ((*fn)->graph->num_nodes(), 4);  // the original is untouched
}

}  // namespace
}  // namespace graphd::compiler::passes
