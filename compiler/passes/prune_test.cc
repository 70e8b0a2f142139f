#include "compiler/passes/prune.h"

#include <string>
#include <vector>

#include "compiler/import/graphdef_import.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

using ::testing::HasSubstr;
using Names = std::vector<std::string>;

NodeDef Placeholder(const std::string& name, DType dtype = DType::kFloat32,
                    PartialShape shape = PartialShape(std::vector<int64_t>{-1, 3})) {
  return {.name = name, .op = "Placeholder", .attrs = {{"dtype", dtype}, {"shape", shape}}};
}
NodeDef Op(const std::string& name, const std::string& op, Names inputs) {
  return {.name = name, .op = op, .inputs = std::move(inputs)};
}

// x, y -> a = Add(x, y) -> r = Relu(a);  t = Tanh(y);  n = NoOp(^t)
// v (variable), c (const) -> assign = Assign(v, c);  inc = AssignAdd(v, c)
class PruneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Tensor c = Tensor::FromVector<float>(Shape({3}), std::vector<float>{1, 2, 3}).value();
    GraphDef def{.nodes = {Placeholder("x"),
                           Placeholder("y"),
                           Op("a", "Add", {"x", "y"}),
                           Op("r", "Relu", {"a"}),
                           Op("t", "Tanh", {"y"}),
                           Op("n", "NoOp", {"^t"}),
                           {.name = "v",
                            .op = "VariableV2",
                            .attrs = {{"dtype", DType::kFloat32},
                                      {"shape", PartialShape(std::vector<int64_t>{3})}}},
                           {.name = "c", .op = "Const", .attrs = {{"value", c}}},
                           Op("assign", "Assign", {"v", "c"}),
                           Op("inc", "AssignAdd", {"v", "c"}),
                           Op("readv", "Identity", {"v"})}};
    ASSERT_TRUE(ImportGraphDef(def, g_).ok());
  }

  StatusOr<ExecutionSpec> Run(Names feeds, Names fetches, Names targets = {}) {
    return Prune(g_, feeds, fetches, targets);
  }
  static Names NodeNames(const ExecutionSpec& spec) {
    Names out;
    for (const Node* n : spec.nodes) out.push_back(n->name());
    return out;
  }

  Graph g_;
};

TEST_F(PruneTest, OnlyNeededNodesInTopologicalOrder) {
  // Import order (a topological order) is x, y, v, c, a, t, readv, assign, inc, r, n.
  auto spec = Run({"x", "y:0"}, {"r:0"});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(NodeNames(*spec), (Names{"a", "r"}));
  ASSERT_EQ(spec->feeds.size(), 2u);
  EXPECT_EQ(spec->feeds[0], (OutputRef{g_.FindNode("x"), 0}));
  EXPECT_EQ(spec->feeds[1], (OutputRef{g_.FindNode("y"), 0}));
  ASSERT_EQ(spec->fetches.size(), 1u);
  EXPECT_EQ(spec->fetches[0], (OutputRef{g_.FindNode("r"), 0}));
}

TEST_F(PruneTest, FetchOrderIsKept) {
  auto spec = Run({"x", "y"}, {"r", "t", "a"});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(NodeNames(*spec), (Names{"a", "t", "r"}));
  ASSERT_EQ(spec->fetches.size(), 3u);
  EXPECT_EQ(spec->fetches[0].node->name(), "r");
  EXPECT_EQ(spec->fetches[1].node->name(), "t");
  EXPECT_EQ(spec->fetches[2].node->name(), "a");
}

TEST_F(PruneTest, FedTensorsCutTheGraph) {
  // Feeding `a` makes x and y (and their placeholders' feeds) unnecessary.
  auto spec = Run({"a:0"}, {"r"});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(NodeNames(*spec), (Names{"r"}));
  // Fetching a fed tensor runs nothing.
  auto direct = Run({"a"}, {"a"});
  ASSERT_TRUE(direct.ok());
  EXPECT_TRUE(direct->nodes.empty());
  EXPECT_EQ(direct->fetches[0], direct->feeds[0]);
}

TEST_F(PruneTest, Targets) {
  auto spec = Run({"y"}, {}, {"n"});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(NodeNames(*spec), (Names{"t", "n"}));
  EXPECT_TRUE(spec->fetches.empty());
  auto both = Run({"x", "y"}, {"r"}, {"n"});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(NodeNames(*both), (Names{"a", "t", "r", "n"}));
}

TEST_F(PruneTest, UnknownNames) {
  auto fetch = Run({}, {"nope:0"});
  ASSERT_FALSE(fetch.ok());
  EXPECT_EQ(fetch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(fetch.status().message(), HasSubstr("fetch 'nope:0' refers to a node 'nope'"));

  auto feed = Run({"ghost"}, {"c"});
  ASSERT_FALSE(feed.ok());
  EXPECT_EQ(feed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(feed.status().message(), HasSubstr("feed 'ghost'"));

  auto target = Run({}, {}, {"phantom"});
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(target.status().message(), HasSubstr("target 'phantom' is not a node"));

  auto index = Run({}, {"c:1"});
  ASSERT_FALSE(index.ok());
  EXPECT_EQ(index.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(index.status().message(), HasSubstr("has 1 outputs"));
  EXPECT_EQ(errors::NodeOf(index.status()), "c");

  auto malformed = Run({}, {"c:-2"});
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(malformed.status().message(), HasSubstr("malformed tensor name"));
  // A NoOp has no outputs to fetch.
  EXPECT_FALSE(Run({}, {"n:0"}).ok());
}

TEST_F(PruneTest, DuplicateFeeds) {
  auto spec = Run({"x", "y", "x:0"}, {"r"});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(), HasSubstr("'x:0' is fed more than once"));
}

TEST_F(PruneTest, UnfedPlaceholder) {
  auto spec = Run({"x"}, {"r"});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(),
              HasSubstr("You must feed a value for placeholder tensor 'y' with dtype float32 "
                        "and shape [?,3]"));
  EXPECT_EQ(errors::NodeOf(spec.status()), "y");
  // A placeholder that is not needed need not be fed.
  auto t = Run({"y"}, {"t"});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(NodeNames(*t), (Names{"t"}));
}

TEST_F(PruneTest, RefInputsAddNoDependency) {
  auto spec = Run({}, {}, {"assign"});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(NodeNames(*spec), (Names{"c", "assign"}));
  auto inc = Run({}, {"inc"});
  ASSERT_TRUE(inc.ok());
  EXPECT_EQ(NodeNames(*inc), (Names{"c", "inc"}));
  // A data read of the variable does depend on it.
  auto read = Run({}, {"readv"});
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(NodeNames(*read), (Names{"v", "readv"}));
}

}  // namespace
}  // namespace graphd::compiler
