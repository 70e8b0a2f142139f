#include "compiler/tracer/graph_scope.h"

#include "gmock/gmock.h"

namespace graphd::compiler::tracer {
namespace {

TEST(GraphScopeTest, NodeCapIsResourceExhaustedForTheScopeAndItsChildren) {
  GraphScope root(nullptr, "f");
  root.set_max_nodes(2);
  AttrMap one = {{"value", Tensor::Scalar<float>(1.0f)}};
  ASSERT_TRUE(root.Add("Const", "c", {}, one).ok());
  ASSERT_TRUE(root.Add("Const", "c", {}, one).ok());
  auto third = root.Add("Const", "c", {}, one);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), ::testing::HasSubstr("at most 2 nodes"));
  GraphScope child(&root, "body");
  ASSERT_TRUE(child.Add("Const", "c", {}, one).ok());
  ASSERT_TRUE(child.Add("Const", "c", {}, one).ok());
  EXPECT_FALSE(child.Add("Const", "c", {}, one).ok());
}

}  // namespace
}  // namespace graphd::compiler::tracer
