#include "core/variable_store.h"

#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd {
namespace {

using ::testing::HasSubstr;

TEST(VariableStoreTest, ReadUnsetIsFailedPrecondition) {
  VariableStore store;
  auto r = store.Read("w");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), HasSubstr("uninitialized value w"));
  EXPECT_EQ(errors::NodeOf(r.status()), "w");
  EXPECT_EQ(store.size(), 0);
}

TEST(VariableStoreTest, AssignThenRead) {
  VariableStore store;
  store.Assign("w", Tensor::Scalar<float>(2.5f));
  auto r = store.Read("w");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data<float>()[0], 2.5f);
  EXPECT_EQ(store.size(), 1);
  // A new assignment installs a new tensor; an earlier snapshot is unchanged.
  Tensor snapshot = *r;
  store.Assign("w", Tensor::Scalar<float>(7.0f));
  EXPECT_EQ(snapshot.data<float>()[0], 2.5f);
  EXPECT_EQ(store.Read("w")->data<float>()[0], 7.0f);
  EXPECT_FALSE(store.Read("other").ok());
}

TEST(VariableStoreTest, UpdateUnsetFails) {
  VariableStore store;
  bool called = false;
  auto r = store.Update("v", [&](const Tensor& t) -> StatusOr<Tensor> {
    called = true;
    return t;
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(called);
  // The slot created by the failed update still reads as uninitialized.
  EXPECT_FALSE(store.Read("v").ok());
}

TEST(VariableStoreTest, UpdateErrorKeepsValue) {
  VariableStore store;
  store.Assign("v", Tensor::Scalar<int32_t>(1));
  auto r = store.Update(
      "v", [](const Tensor&) -> StatusOr<Tensor> { return errors::InvalidArgument("nope"); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Read("v")->data<int32_t>()[0], 1);
}

TEST(VariableStoreTest, ConcurrentUpdatesAreAtomic) {
  VariableStore store;
  store.Assign("counter", Tensor::Scalar<int64_t>(0));
  constexpr int kThreads = 4, kIters = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIters; ++i) {
        auto r = store.Update("counter", [](const Tensor& cur) -> StatusOr<Tensor> {
          return Tensor::Scalar<int64_t>(cur.data<int64_t>()[0] + 1);
        });
        ASSERT_TRUE(r.ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(store.Read("counter")->data<int64_t>()[0], kThreads * kIters);
}

}  // namespace
}  // namespace graphd
