#include "compiler/autodiff/gradients.h"

#include "gmock/gmock.h"

namespace graphd::compiler::autodiff {
namespace {

using ::testing::HasSubstr;

TEST(GradRegistryTest, EveryGradientIsOfARegisteredOp) {
  for (const std::string& op : GradRegistry::Global().OpNames()) {
    EXPECT_NE(OpRegistry::Global().Find(op), nullptr) << "gradient of unknown op " << op;
  }
}

class GradientsTest : public ::testing::Test {
 protected:
  OutputRef Add(const std::string& name, const std::string& op, std::vector<OutputRef> in, AttrMap attrs = {}) {
    auto n = g_.AddNode({.name = name, .op = op, .inputs = std::move(in), .attrs = std::move(attrs)});
    EXPECT_TRUE(n.ok()) << n.status();
    return {*n, 0};
  }
  OutputRef Placeholder(const std::string& name, DType dt, std::vector<int64_t> dims) {
    return Add(name, "Placeholder", {}, {{"dtype", dt}, {"shape", PartialShape(dims)}});
  }
  StatusOr<std::vector<std::optional<OutputRef>>> Grad(std::vector<OutputRef> targets, std::vector<OutputRef> sources) {
    GraphSink sink(g_, "gradients/");
    GradBuilder b(sink);
    return AddGradients(b, g_, {.targets = std::move(targets), .sources = std::move(sources)});
  }
  Graph g_;
};

TEST_F(GradientsTest, BroadcastOperandGetsReducedGradient) {
  OutputRef x = Placeholder("x", DType::kFloat32, {2, 3});
  OutputRef b = Placeholder("b", DType::kFloat32, {3});
  OutputRef y = Add("y", "Mul", {x, b});
  auto g = Grad({y}, {x, b});
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE((*g)[0].has_value() && (*g)[1].has_value());
  EXPECT_EQ(TypeOf(*(*g)[0]).shape, PartialShape(std::vector<int64_t>{2, 3}));
  EXPECT_EQ(TypeOf(*(*g)[1]).shape, PartialShape(std::vector<int64_t>{3}));
}

TEST_F(GradientsTest, UnconnectedAndIntegerSourcesGetNone) {
  OutputRef x = Placeholder("x", DType::kFloat32, {2});
  OutputRef z = Placeholder("z", DType::kFloat32, {2});
  OutputRef i = Placeholder("i", DType::kInt32, {2});
  OutputRef y = Add("y", "Square", {x});
  auto g = Grad({y}, {z, i, x});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE((*g)[0].has_value());
  EXPECT_FALSE((*g)[1].has_value());
  EXPECT_TRUE((*g)[2].has_value());
}

TEST_F(GradientsTest, StopGradientAndComparisonsStopFlow) {
  OutputRef x = Placeholder("x", DType::kFloat32, {2});
  OutputRef s = Add("s", "StopGradient", {x});
  OutputRef y = Add("y", "Mul", {s, s});
  auto g = Grad({y}, {x});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE((*g)[0].has_value());
}

TEST_F(GradientsTest, OpWithoutGradientIsAnErrorNamingIt) {
  OutputRef x = Placeholder("x", DType::kFloat32, {4});
  OutputRef c = Add("running", "Cumsum", {x}, {{"axis", int64_t{0}}});
  auto g = Grad({c}, {x});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(g.status().message(), HasSubstr("no gradient is defined for op Cumsum (node 'running')"));
}

TEST_F(GradientsTest, UnknownBroadcastDimensionIsDecidedAtRunTime) {
  OutputRef x = Placeholder("x", DType::kFloat32, {-1, 3});
  OutputRef y = Placeholder("y", DType::kFloat32, {-1, 3});
  OutputRef z = Add("z", "Mul", {x, y});
  auto g = Grad({z}, {x});
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE((*g)[0].has_value());
  // Dimension 0 may be 1 (broadcast) or not: the static shapes cannot tell.
  EXPECT_EQ((*g)[0]->node->op_name(), "SumToShapeOf");
}

TEST_F(GradientsTest, RecordedFilterLimitsTheFlow) {
  OutputRef x = Placeholder("x", DType::kFloat32, {2});
  OutputRef y = Add("y", "Square", {x});
  GraphSink sink(g_, "gradients/");
  GradBuilder b(sink);
  auto g = AddGradients(b, g_, {.targets = {y}, .sources = {x}, .recorded = [](const Node& n) { return n.name() != "y"; }});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE((*g)[0].has_value());
}

}  // namespace
}  // namespace graphd::compiler::autodiff
