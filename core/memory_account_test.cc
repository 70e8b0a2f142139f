#include "core/memory_account.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "core/tensor.h"

namespace graphd {
namespace {

using ::testing::HasSubstr;

TEST(MemoryAccount, ChargesAndCreditsUpThroughParents) {
  MemoryAccount root("root", 1000);
  MemoryAccount child("child", 600, &root);
  ASSERT_TRUE(child.Charge(500).ok());
  EXPECT_EQ(child.used(), 500);
  EXPECT_EQ(root.used(), 500);
  child.Credit(200);
  EXPECT_EQ(child.used(), 300);
  EXPECT_EQ(root.used(), 300);
  EXPECT_EQ(child.peak(), 500);
}

TEST(MemoryAccount, RefusesPastItsLimitNamingItAndTakingNothing) {
  MemoryAccount root("the root budget", 0);
  MemoryAccount child("the max_memory_bytes quota of tenant 'a'", 1000, &root);
  ASSERT_TRUE(child.Charge(900).ok());
  Status s = child.Charge(200);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("max_memory_bytes quota of tenant 'a' is 1000 bytes"));
  EXPECT_THAT(s.message(), HasSubstr("900 bytes are in use and 200 more were requested"));
  EXPECT_EQ(child.used(), 900);
  EXPECT_EQ(root.used(), 900);
}

TEST(MemoryAccount, AParentsRefusalLeavesTheChildUncharged) {
  MemoryAccount root("the server's memory limit", 1000);
  MemoryAccount a("a", 0, &root), b("b", 0, &root);
  ASSERT_TRUE(a.Charge(800).ok());
  Status s = b.Charge(300);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("the server's memory limit is 1000 bytes"));
  EXPECT_EQ(b.used(), 0);
  EXPECT_EQ(root.used(), 800);
}

TEST(MemoryAccount, TheRootWaitsForMemoryToBeFreed) {
  MemoryAccount root("root", 1000);
  root.set_wait(std::chrono::milliseconds(5000));
  ASSERT_TRUE(root.Charge(900).ok());
  std::thread freer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    root.Credit(900);
  });
  EXPECT_TRUE(root.Charge(500).ok());  // waited for the credit
  freer.join();
  EXPECT_EQ(root.used(), 500);
}

TEST(MemoryAccount, AWaitThatTimesOutFailsAndSaysSo) {
  MemoryAccount root("root", 1000);
  root.set_wait(std::chrono::milliseconds(30));
  ASSERT_TRUE(root.Charge(900).ok());
  Status s = root.Charge(500);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("waited 30 ms"));
  // More than the whole budget fails at once.
  EXPECT_THAT(root.Charge(5000).message(), ::testing::Not(HasSubstr("waited")));
}

TEST(MemoryAccount, BuffersChargeTheThreadsAccountUntilFreed) {
  MemoryAccount tenant("tenant", 1 << 20, &RootMemoryAccount());
  const int64_t root_before = RootMemoryAccount().used();
  {
    ScopedMemoryAccount scope(&tenant);
    EXPECT_EQ(&CurrentMemoryAccount(), &tenant);
    auto t = Tensor::Allocate(DType::kFloat32, Shape({1000}));
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(tenant.used(), 4000);
    EXPECT_EQ(RootMemoryAccount().used(), root_before + 4000);
    auto big = Tensor::Allocate(DType::kFloat32, Shape({1 << 20}));  // 4 MiB > 1 MiB
    EXPECT_EQ(big.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_EQ(tenant.used(), 4000);
    {
      ScopedMemoryAccount server(nullptr);
      EXPECT_EQ(&CurrentMemoryAccount(), &RootMemoryAccount());
    }
    EXPECT_EQ(&CurrentMemoryAccount(), &tenant);
    // Freed on another thread: credited to the account that was charged.
    std::thread([t = *std::move(t)]() mutable { t = Tensor(); }).join();
  }
  EXPECT_EQ(tenant.used(), 0);
  EXPECT_EQ(RootMemoryAccount().used(), root_before);
}

}  // namespace
}  // namespace graphd
