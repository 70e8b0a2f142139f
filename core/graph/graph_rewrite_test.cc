// Graph::ReplaceAllUses and Graph::Compact: the two rewrites passes use.
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class GraphRewriteTest : public ::testing::Test {
 protected:
  const Node* Add(NodeSpec spec) {
    auto n = g_.AddNode(std::move(spec));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : nullptr;
  }
  const Node* Input(const std::string& name, std::vector<int64_t> dims = {2}) {
    return Add({.name = name,
                .op = "Placeholder",
                .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(std::move(dims))}}});
  }
  const Node* Const(const std::string& name, float v) {
    return Add({.name = name, .op = "Const", .attrs = {{"value", Tensor::Scalar(v)}}});
  }
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (int id = 0; id < g_.num_nodes(); ++id) {
      EXPECT_EQ(g_.node(id)->id(), id);
      out.push_back(g_.node(id)->name());
    }
    return out;
  }

  Graph g_;
};

TEST_F(GraphRewriteTest, ReplaceAllUsesRewiresDataInputsOnly) {
  const Node* x = Input("x");
  const Node* y = Input("y");
  const Node* a = Add({.name = "a", .op = "Add", .inputs = {{x, 0}, {x, 0}}});
  const Node* n = Add({.name = "n", .op = "NoOp", .control_inputs = {x}});
  auto changed = g_.ReplaceAllUses({x, 0}, {y, 0});
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, 2);
  EXPECT_THAT(a->inputs(), ElementsAre(OutputRef{y, 0}, OutputRef{y, 0}));
  EXPECT_THAT(n->control_inputs(), ElementsAre(x));
  EXPECT_EQ(*g_.ReplaceAllUses({y, 0}, {y, 0}), 0);
}

TEST_F(GraphRewriteTest, ReplaceAllUsesNeedsTheSameType) {
  const Node* x = Input("x", {2});
  const Node* y = Input("y", {3});
  const Node* c = Const("c", 1.0f);
  auto s = g_.ReplaceAllUses({x, 0}, {y, 0});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("float32[2]"));
  EXPECT_FALSE(g_.ReplaceAllUses({x, 0}, {c, 0}).ok());
  EXPECT_FALSE(g_.ReplaceAllUses({x, 1}, {x, 0}).ok());
  Graph other;
  auto z = other.AddNode({.name = "x", .op = "Placeholder",
                          .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(std::vector<int64_t>{2})}}});
  ASSERT_TRUE(z.ok());
  EXPECT_FALSE(g_.ReplaceAllUses({x, 0}, {*z, 0}).ok());  // same name, other graph
}

TEST_F(GraphRewriteTest, CompactRemovesAndRenumbers) {
  const Node* x = Input("x");
  const Node* dead = Add({.name = "dead", .op = "Relu", .inputs = {{x, 0}}});
  const Node* r = Add({.name = "r", .op = "Tanh", .inputs = {{x, 0}}});
  std::vector<bool> remove(g_.num_nodes(), false);
  remove[dead->id()] = true;
  ASSERT_TRUE(g_.Compact(remove).ok());
  EXPECT_THAT(Names(), ElementsAre("x", "r"));
  EXPECT_EQ(g_.FindNode("dead"), nullptr);
  EXPECT_EQ(g_.FindNode("r"), r);  // kept nodes keep their address
  EXPECT_EQ(r->id(), 1);
  // The removed name can be used again.
  EXPECT_NE(Add({.name = "dead", .op = "Relu", .inputs = {{x, 0}}}), nullptr);
}

TEST_F(GraphRewriteTest, CompactSortsANodeAddedLateBeforeItsConsumers) {
  // x, c1, m = Mul(x, c1), t = Tanh(m); then c2 replaces c1, added after m.
  const Node* x = Input("x", {});
  const Node* c1 = Const("c1", 2.0f);
  const Node* m = Add({.name = "m", .op = "Mul", .inputs = {{x, 0}, {c1, 0}}});
  Add({.name = "t", .op = "Tanh", .inputs = {{m, 0}}});
  const Node* c2 = Const("c2", 3.0f);
  ASSERT_EQ(*g_.ReplaceAllUses({c1, 0}, {c2, 0}), 1);
  std::vector<bool> remove(g_.num_nodes(), false);
  remove[c1->id()] = true;
  ASSERT_TRUE(g_.Compact(remove).ok());
  EXPECT_THAT(Names(), ElementsAre("x", "c2", "m", "t"));
  // Nothing to do: the order stays.
  ASSERT_TRUE(g_.Compact(std::vector<bool>(g_.num_nodes(), false)).ok());
  EXPECT_THAT(Names(), ElementsAre("x", "c2", "m", "t"));
}

TEST_F(GraphRewriteTest, CompactRanksPlaceAReplacementWhereTheOldNodeWas) {
  // x, a = Relu(x), old = Const, u = Tanh(old); new replaces old, ranked as old.
  const Node* x = Input("x", {});
  Add({.name = "a", .op = "Relu", .inputs = {{x, 0}}});
  const Node* old = Const("old", 1.0f);
  Add({.name = "u", .op = "Tanh", .inputs = {{old, 0}}});
  const Node* fresh = Const("new", 2.0f);
  ASSERT_EQ(*g_.ReplaceAllUses({old, 0}, {fresh, 0}), 1);
  std::vector<bool> remove = {false, false, true, false, false};
  std::vector<int> rank = {0, 1, 2, 3, old->id()};
  ASSERT_TRUE(g_.Compact(remove, &rank).ok());
  EXPECT_THAT(Names(), ElementsAre("x", "a", "new", "u"));
  EXPECT_FALSE(g_.Compact(std::vector<bool>(4, false), &rank).ok());  // ranks of the wrong size
}

TEST_F(GraphRewriteTest, CompactKeepsControlEdgesInOrder) {
  const Node* x = Input("x");
  const Node* late = Input("late");
  const Node* n = Add({.name = "n", .op = "NoOp", .control_inputs = {late}});
  (void)x;
  (void)n;
  ASSERT_TRUE(g_.Compact(std::vector<bool>(g_.num_nodes(), false)).ok());
  EXPECT_THAT(Names(), ElementsAre("x", "late", "n"));
}

TEST_F(GraphRewriteTest, CompactRefusesToRemoveANodeStillRead) {
  const Node* x = Input("x");
  const Node* r = Add({.name = "r", .op = "Relu", .inputs = {{x, 0}}});
  Add({.name = "n", .op = "NoOp", .control_inputs = {r}});
  std::vector<bool> remove(g_.num_nodes(), false);
  remove[x->id()] = true;
  Status s = g_.Compact(remove);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("'r' reads 'x'"));
  std::vector<bool> remove_r(g_.num_nodes(), false);
  remove_r[r->id()] = true;
  EXPECT_FALSE(g_.Compact(remove_r).ok());  // read through a control edge
  EXPECT_THAT(Names(), ElementsAre("x", "r", "n"));
  EXPECT_FALSE(g_.Compact({true}).ok());  // mask of the wrong size
}

TEST_F(GraphRewriteTest, CompactRejectsACycle) {
  // a = Relu(x); b = Relu(a); then a reads b instead of x: a cycle.
  const Node* x = Input("x");
  const Node* a = Add({.name = "a", .op = "Relu", .inputs = {{x, 0}}});
  const Node* b = Add({.name = "b", .op = "Relu", .inputs = {{a, 0}}});
  ASSERT_EQ(*g_.ReplaceAllUses({x, 0}, {b, 0}), 1);
  Status s = g_.Compact(std::vector<bool>(g_.num_nodes(), false));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("cycle"));
  EXPECT_THAT(Names(), ElementsAre("x", "a", "b"));
}

TEST_F(GraphRewriteTest, ReplaceAllUsesStaysRightAcrossAddsAndCompacts) {
  // The use index ReplaceAllUses keeps must follow nodes added after it was built,
  // replacements chained through several nodes, and a Compact that drops nodes.
  const Node* x = Input("x");
  const Node* y = Input("y");
  const Node* a = Add({.name = "a", .op = "Add", .inputs = {{x, 0}, {y, 0}}});
  ASSERT_EQ(*g_.ReplaceAllUses({x, 0}, {y, 0}), 1);  // builds the index
  const Node* b = Add({.name = "b", .op = "Add", .inputs = {{y, 0}, {a, 0}}});  // added after it
  const Node* z = Input("z");
  ASSERT_EQ(*g_.ReplaceAllUses({y, 0}, {z, 0}), 3);  // a's two inputs and b's first
  EXPECT_THAT(a->inputs(), ElementsAre(OutputRef{z, 0}, OutputRef{z, 0}));
  EXPECT_THAT(b->inputs(), ElementsAre(OutputRef{z, 0}, OutputRef{a, 0}));
  EXPECT_EQ(*g_.ReplaceAllUses({y, 0}, {z, 0}), 0);  // nobody reads y any more
  ASSERT_TRUE(g_.Compact({true, true, false, false, false}).ok());  // x and y go
  const Node* w = Input("w");
  ASSERT_EQ(*g_.ReplaceAllUses({z, 0}, {w, 0}), 3);
  EXPECT_THAT(b->inputs(), ElementsAre(OutputRef{w, 0}, OutputRef{a, 0}));
  // A long chain rewired one node at a time (what CSE and the fusions do) touches each
  // input once.
  const Node* prev = w;
  std::vector<const Node*> chain;
  for (int i = 0; i < 2000; ++i) {
    prev = Add({.name = "c" + std::to_string(i), .op = "Add", .inputs = {{prev, 0}, {w, 0}}});
    chain.push_back(prev);
  }
  const Node* v = Input("v");
  // Every chain node's second input, c0's first, a's two and b's first.
  ASSERT_EQ(*g_.ReplaceAllUses({w, 0}, {v, 0}), 2000 + 1 + 3);
  for (const Node* c : chain) EXPECT_EQ(c->inputs()[1], (OutputRef{v, 0}));
}

}  // namespace
}  // namespace graphd
