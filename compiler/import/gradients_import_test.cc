#include "compiler/import/gradients_import.h"

#include "compiler/import/graphdef_import.h"
#include "gmock/gmock.h"

namespace graphd::compiler {
namespace {

using ::testing::HasSubstr;

NodeDef Placeholder(const std::string& name) {
  return {.name = name, .op = "Placeholder",
          .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(std::vector<int64_t>{2})}}};
}

NodeDef Gradient(const std::string& name, std::vector<std::string> inputs, int64_t num_ys, int64_t num_grad_ys) {
  return {.name = name, .op = kGradientsOp, .inputs = std::move(inputs),
          .attrs = {{"num_ys", num_ys}, {"num_grad_ys", num_grad_ys}}};
}

TEST(GradientsImportTest, ExpandsIntoAnIdentityOfTheGradient) {
  GraphDef def{.nodes = {Placeholder("x"), Placeholder("w"), {.name = "y", .op = "Mul", .inputs = {"x", "w"}},
                         Gradient("gradients/x_grad", {"y", "x"}, 1, 0)}};
  Graph g;
  ASSERT_TRUE(ImportGraphDef(def, g).ok());
  const Node* grad = g.FindNode("gradients/x_grad");
  ASSERT_NE(grad, nullptr);
  EXPECT_EQ(grad->op_name(), "Identity");
  EXPECT_EQ(grad->output(0).shape, PartialShape(std::vector<int64_t>{2}));
}

TEST(GradientsImportTest, BadArityIsAnErrorNamingTheNode) {
  GraphDef def{.nodes = {Placeholder("x"), Gradient("g", {"x", "x"}, 1, 1)}};
  Graph g;
  Status s = ImportGraphDef(def, g);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'g' (Gradients) needs num_ys >= 1"));
  EXPECT_EQ(g.num_nodes(), 0);  // nothing of the request stays
}

TEST(GradientsImportTest, GrowthBeyondTheCapIsResourceExhausted) {
  Graph g;
  GraphDef def{.nodes = {Placeholder("x"), {.name = "y", .op = "Square", .inputs = {"x"}}}};
  ASSERT_TRUE(ImportGraphDef(def, g).ok());
  const int before = g.num_nodes();
  const OutputRef y{g.FindNode("y"), 0}, x{g.FindNode("x"), 0};
  Status s = ImportGradients("g", {y, x}, {{"num_ys", int64_t{1}}, {"num_grad_ys", int64_t{0}}}, g, /*max_nodes=*/3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(g.num_nodes(), before);
}

}  // namespace
}  // namespace graphd::compiler
