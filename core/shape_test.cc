#include "core/shape.h"

#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd {
namespace {

using ::testing::HasSubstr;

TEST(ShapeTest, MakeAcceptsValidDims) {
  auto s = Shape::Make({2, 3, 4});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->rank(), 3);
  EXPECT_EQ(s->dim(1), 3);
  EXPECT_EQ(s->num_elements(), 24);
  EXPECT_EQ(s->ToString(), "[2,3,4]");
}

TEST(ShapeTest, ScalarAndZeroSized) {
  Shape scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_EQ(scalar.ToString(), "[]");
  auto empty = Shape::Make({3, 0, 5});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->num_elements(), 0);
}

TEST(ShapeTest, MakeRejectsNegativeDims) {
  auto s = Shape::Make({2, -1, 3});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("negative dimension -1"));
  EXPECT_THAT(s.status().message(), HasSubstr("[2,-1,3]"));
}

TEST(ShapeTest, MakeRejectsOverflow) {
  const int64_t big = int64_t{1} << 32;
  auto s = Shape::Make({big, big});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("more elements than fit in int64"));

  auto max = Shape::Make({std::numeric_limits<int64_t>::max(), 2});
  EXPECT_FALSE(max.ok());
  // A zero dimension after a huge one is fine: the count is 0.
  auto zero = Shape::Make({std::numeric_limits<int64_t>::max(), 0});
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->num_elements(), 0);
  // Just below the limit is accepted.
  auto ok = Shape::Make({int64_t{1} << 31, int64_t{1} << 31});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->num_elements(), int64_t{1} << 62);
}

TEST(ShapeTest, Equality) {
  EXPECT_EQ(Shape({1, 2}), Shape({1, 2}));
  EXPECT_NE(Shape({1, 2}), Shape({2, 1}));
  EXPECT_NE(Shape({1}), Shape());
}

TEST(PartialShapeTest, UnknownRank) {
  PartialShape p;
  EXPECT_FALSE(p.known_rank());
  EXPECT_FALSE(p.fully_defined());
  EXPECT_EQ(p.num_elements(), kUnknownDim);
  EXPECT_EQ(p.ToString(), "<unknown>");
  EXPECT_TRUE(p.IsCompatibleWith(Shape({7, 8})));
  EXPECT_TRUE(p.IsCompatibleWith(Shape()));
  EXPECT_EQ(p, PartialShape::UnknownRank());
  EXPECT_FALSE(p == PartialShape(std::vector<int64_t>{}));
}

TEST(PartialShapeTest, Make) {
  auto p = PartialShape::Make({-1, 3});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->known_rank());
  EXPECT_FALSE(p->fully_defined());
  EXPECT_EQ(p->ToString(), "[?,3]");
  EXPECT_EQ(p->num_elements(), kUnknownDim);

  auto bad = PartialShape::Make({2, -2});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("negative dimension -2"));

  const int64_t big = int64_t{1} << 40;
  EXPECT_FALSE(PartialShape::Make({big, -1, big}).ok());
  EXPECT_TRUE(PartialShape::Make({big, -1, 4}).ok());
}

TEST(PartialShapeTest, FullyDefined) {
  PartialShape p(Shape({2, 3}));
  EXPECT_TRUE(p.fully_defined());
  EXPECT_EQ(p.num_elements(), 6);
  EXPECT_EQ(p.ToShape(), Shape({2, 3}));
  EXPECT_EQ(PartialShape(Shape()).num_elements(), 1);
}

TEST(PartialShapeTest, Compatibility) {
  PartialShape p(std::vector<int64_t>{kUnknownDim, 3});
  EXPECT_TRUE(p.IsCompatibleWith(Shape({5, 3})));
  EXPECT_TRUE(p.IsCompatibleWith(Shape({0, 3})));
  EXPECT_FALSE(p.IsCompatibleWith(Shape({5, 4})));
  EXPECT_FALSE(p.IsCompatibleWith(Shape({3})));
  EXPECT_FALSE(p.IsCompatibleWith(Shape({5, 3, 1})));
  PartialShape scalar(std::vector<int64_t>{});
  EXPECT_TRUE(scalar.IsCompatibleWith(Shape()));
  EXPECT_FALSE(scalar.IsCompatibleWith(Shape({1})));
  PartialShape exact(Shape({2, 2}));
  EXPECT_TRUE(exact.IsCompatibleWith(Shape({2, 2})));
  EXPECT_FALSE(exact.IsCompatibleWith(Shape({2, 1})));
}

PartialShape P(std::vector<int64_t> dims) { return PartialShape(std::move(dims)); }

TEST(BroadcastShapesTest, KnownShapes) {
  auto r = BroadcastShapes(P({2, 1, 4}), P({3, 1}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, P({2, 3, 4}));
  EXPECT_EQ(*BroadcastShapes(P({}), P({5, 6})), P({5, 6}));
  EXPECT_EQ(*BroadcastShapes(P({5, 6}), P({})), P({5, 6}));
  EXPECT_EQ(*BroadcastShapes(P({4}), P({4})), P({4}));
  EXPECT_EQ(*BroadcastShapes(P({1}), P({0})), P({0}));
  EXPECT_EQ(*BroadcastShapes(P({0, 1}), P({1, 7})), P({0, 7}));
}

TEST(BroadcastShapesTest, UnknownDims) {
  EXPECT_EQ(*BroadcastShapes(P({-1, 3}), P({3})), P({-1, 3}));
  EXPECT_EQ(*BroadcastShapes(P({-1}), P({4})), P({4}));
  EXPECT_EQ(*BroadcastShapes(P({4}), P({-1})), P({4}));
  EXPECT_EQ(*BroadcastShapes(P({-1}), P({1})), P({-1}));
  EXPECT_EQ(*BroadcastShapes(P({1}), P({-1})), P({-1}));
  EXPECT_EQ(*BroadcastShapes(P({-1}), P({-1})), P({-1}));
  EXPECT_EQ(*BroadcastShapes(P({2, -1}), P({-1, 1, 5})), P({-1, 2, 5}));
}

TEST(BroadcastShapesTest, UnknownRank) {
  auto r = BroadcastShapes(PartialShape(), P({2, 3}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->known_rank());
  r = BroadcastShapes(P({2}), PartialShape());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->known_rank());
}

TEST(BroadcastShapesTest, Failures) {
  auto r = BroadcastShapes(P({2, 3}), P({4}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("[2,3]"));
  EXPECT_THAT(r.status().message(), HasSubstr("[4]"));
  EXPECT_THAT(r.status().message(), HasSubstr("cannot be broadcast"));
  EXPECT_FALSE(BroadcastShapes(P({0}), P({2})).ok());
  EXPECT_FALSE(BroadcastShapes(P({-1, 2}), P({3})).ok());
}

}  // namespace
}  // namespace graphd
