#include "compiler/import/graphdef_import.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

using ::testing::HasSubstr;

NodeDef Placeholder(const std::string& name, std::vector<int64_t> shape = {2}) {
  return {.name = name,
          .op = "Placeholder",
          .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(std::move(shape))}}};
}
NodeDef Op(const std::string& name, const std::string& op, std::vector<std::string> inputs) {
  return {.name = name, .op = op, .inputs = std::move(inputs)};
}

std::vector<std::string> NodeNames(const Graph& g) {
  std::vector<std::string> names;
  for (int i = 0; i < g.num_nodes(); ++i) names.push_back(g.node(i)->name());
  return names;
}

TEST(GraphDefImportTest, NodesInAnyOrder) {
  GraphDef def{.nodes = {Op("out", "Add", {"r", "x:0"}), Op("r", "Relu", {"x"}), Placeholder("x"),
                         Op("done", "NoOp", {"^out", "^r"})}};
  Graph g;
  ASSERT_TRUE(ImportGraphDef(def, g).ok());
  ASSERT_EQ(g.num_nodes(), 4);
  const Node* x = g.FindNode("x");
  const Node* r = g.FindNode("r");
  const Node* out = g.FindNode("out");
  const Node* done = g.FindNode("done");
  ASSERT_TRUE(x && r && out && done);
  // Ids are a topological order.
  EXPECT_LT(x->id(), r->id());
  EXPECT_LT(r->id(), out->id());
  EXPECT_LT(out->id(), done->id());
  EXPECT_EQ(out->inputs()[0], (OutputRef{r, 0}));
  EXPECT_EQ(out->inputs()[1], (OutputRef{x, 0}));
  EXPECT_EQ(done->control_inputs(), (std::vector<const Node*>{out, r}));
  EXPECT_EQ(out->output(0).shape, PartialShape(std::vector<int64_t>{2}));
}

TEST(GraphDefImportTest, AttrsAndDeviceCarryOver) {
  NodeDef sum = Op("s", "Sum", {"x"});
  sum.attrs["axis"] = IntList{0};
  sum.attrs["keep_dims"] = true;
  sum.device = "/device:CPU:0";
  Graph g;
  ASSERT_TRUE(ImportGraphDef({.nodes = {Placeholder("x", {3, 4}), sum}}, g).ok());
  const Node* s = g.FindNode("s");
  EXPECT_EQ(s->device(), "/device:CPU:0");
  EXPECT_EQ(s->output(0).shape, PartialShape(std::vector<int64_t>{1, 4}));
}

TEST(GraphDefImportTest, InputsMayReferToExistingNodes) {
  Graph g;
  ASSERT_TRUE(ImportGraphDef({.nodes = {Placeholder("x")}}, g).ok());
  ASSERT_TRUE(
      ImportGraphDef({.nodes = {Op("y", "Tanh", {"x"}), Op("z", "Mul", {"x", "y"})}}, g).ok());
  EXPECT_EQ(NodeNames(g), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(g.FindNode("z")->inputs()[0].node, g.FindNode("x"));
  // Empty defs are fine.
  EXPECT_TRUE(ImportGraphDef({}, g).ok());
  EXPECT_EQ(g.num_nodes(), 3);
}

// Imports `def` into a graph that already holds "base", expects failure with `code`, a
// message containing `text`, the error tagged with `node`, and the graph unchanged.
void ExpectImportError(const GraphDef& def, absl::StatusCode code, const std::string& text,
                       const std::string& node) {
  Graph g;
  ASSERT_TRUE(ImportGraphDef({.nodes = {Placeholder("base")}}, g).ok());
  Status s = ImportGraphDef(def, g);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_THAT(s.message(), HasSubstr(text));
  EXPECT_EQ(errors::NodeOf(s), node) << s;
  EXPECT_EQ(NodeNames(g), std::vector<std::string>{"base"});
}

TEST(GraphDefImportTest, MissingNode) {
  ExpectImportError({.nodes = {Placeholder("x"), Op("y", "Add", {"x", "ghost:0"})}},
                    absl::StatusCode::kInvalidArgument, "refers to a missing node 'ghost'", "y");
  ExpectImportError({.nodes = {Placeholder("x"), Op("y", "Relu", {"x", "^ghost"})}},
                    absl::StatusCode::kInvalidArgument, "control input '^ghost'", "y");
}

TEST(GraphDefImportTest, BadOutputIndex) {
  ExpectImportError({.nodes = {Placeholder("x"), Op("y", "Relu", {"x:1"})}},
                    absl::StatusCode::kInvalidArgument, "refers to output 1 of 'x'", "y");
  ExpectImportError({.nodes = {Op("y", "Relu", {"base:7"})}}, absl::StatusCode::kInvalidArgument,
                    "refers to output 7 of 'base'", "y");
  ExpectImportError({.nodes = {Op("y", "Relu", {"base:x"})}}, absl::StatusCode::kInvalidArgument,
                    "malformed tensor name", "y");
}

TEST(GraphDefImportTest, Cycle) {
  Graph g;
  GraphDef def{.nodes = {Placeholder("x"), Op("a", "Add", {"x", "c"}), Op("b", "Relu", {"a"}),
                         Op("c", "Tanh", {"b"}), Op("d", "Relu", {"x"})}};
  Status s = ImportGraphDef(def, g);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("cycle through nodes a, b, c"));
  EXPECT_EQ(errors::NodeOf(s), "a");
  EXPECT_EQ(g.num_nodes(), 0);

  // A self loop, and a cycle through a control edge.
  EXPECT_THAT(ImportGraphDef({.nodes = {Op("s", "Relu", {"s"})}}, g).message(), HasSubstr("cycle"));
  Status ctl = ImportGraphDef({.nodes = {Op("p", "NoOp", {"^q"}), Op("q", "NoOp", {"^p"})}}, g);
  EXPECT_THAT(ctl.message(), HasSubstr("cycle through nodes p, q"));
  EXPECT_EQ(g.num_nodes(), 0);
}

TEST(GraphDefImportTest, ControlInputBeforeDataInput) {
  ExpectImportError({.nodes = {Placeholder("x"), Op("y", "Add", {"x", "^base", "x"})}},
                    absl::StatusCode::kInvalidArgument, "comes after a control input", "y");
  ExpectImportError({.nodes = {Op("y", "NoOp", {"^"})}}, absl::StatusCode::kInvalidArgument,
                    "empty control input", "y");
}

TEST(GraphDefImportTest, DuplicateNames) {
  ExpectImportError({.nodes = {Placeholder("x"), Placeholder("x")}},
                    absl::StatusCode::kInvalidArgument, "duplicate node name 'x'", "x");
  ExpectImportError({.nodes = {Placeholder("base")}}, absl::StatusCode::kInvalidArgument,
                    "duplicate node name 'base'", "base");
}

TEST(GraphDefImportTest, UnknownOp) {
  ExpectImportError({.nodes = {Placeholder("x"), Op("y", "Conv9D", {"x"})}},
                    absl::StatusCode::kUnimplemented, "Conv9D", "y");
}

TEST(GraphDefImportTest, EmptyName) {
  Graph g;
  Status s = ImportGraphDef({.nodes = {Op("", "NoOp", {})}}, g);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("has no name"));
}

TEST(GraphDefImportTest, AllOrNothingOnInferenceErrorMidway) {
  // x, r and t are added before the MatMul fails inference: all must be rolled back.
  GraphDef def{.nodes = {Placeholder("x", {2, 3}), Op("r", "Relu", {"x"}), Op("t", "Tanh", {"r"}),
                         Op("mm", "MatMul", {"t", "base"}), Op("after", "Relu", {"mm"})}};
  ExpectImportError(def, absl::StatusCode::kInvalidArgument, "matrices", "mm");

  Graph g;
  ASSERT_TRUE(ImportGraphDef({.nodes = {Placeholder("base")}}, g).ok());
  ASSERT_FALSE(ImportGraphDef(def, g).ok());
  // Nothing of the failed import remains: the same names can be imported afterwards.
  GraphDef fixed{.nodes = {Placeholder("x", {2, 3}), Op("r", "Relu", {"x"})}};
  ASSERT_TRUE(ImportGraphDef(fixed, g).ok());
  EXPECT_EQ(NodeNames(g), (std::vector<std::string>{"base", "x", "r"}));
  EXPECT_EQ(g.FindNode("r")->id(), 2);
}

}  // namespace
}  // namespace graphd::compiler
