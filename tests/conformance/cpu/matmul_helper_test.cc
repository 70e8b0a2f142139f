// The helper thread that takes one half of a split product (executor/cpu/matmul_helper.h):
// both halves run exactly once, an exception from the offered half reaches the caller,
// and a helper found asleep starts no back-off (a late wake-up is not taken for a
// loaded box).
#include "executor/cpu/matmul_helper.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "gtest/gtest.h"

namespace graphd::executor::cpu {
namespace {

void Busy(std::chrono::microseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
  }
}

TEST(MatMulHelperTest, BothHalvesRunOnceEveryTime) {
  for (int i = 0; i < 2000; ++i) {
    int mine = 0, other = 0;
    RunPairWithHelper([&] { ++mine; }, [&] { ++other; }, /*wake=*/i % 2 == 0);
    ASSERT_EQ(mine, 1);
    ASSERT_EQ(other, 1);
  }
}

TEST(MatMulHelperTest, AnExceptionFromTheOfferedHalfReachesTheCaller) {
  for (int i = 0; i < 50; ++i) {
    EXPECT_THROW(RunPairWithHelper([] { Busy(std::chrono::microseconds(200)); },
                                   [] { throw std::runtime_error("half failed"); }),
                 std::runtime_error);
  }
}

// Waits (up to 10 s) until the helper sleeps waiting for an offer.
bool WaitUntilTheHelperSleeps() {
  for (int i = 0; i < 10000 && !HelperAsleepForTesting(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return HelperAsleepForTesting();
}

TEST(MatMulHelperTest, AHelperFoundAsleepStartsNoBackOff) {
  // Earlier tests may have left a back-off: pairs that offer use it up.
  for (int i = 0; i < 100000 && HelperBackOffForTesting() > 0; ++i) RunPairWithHelper([] {}, [] {});
  ASSERT_EQ(HelperBackOffForTesting(), 0);
  // Each pair finds the helper asleep, wakes it, and its offered half is the longer
  // one, so a caller whose half the helper took always waits for it. That wait is the
  // helper's wake-up, not a loaded box: before, it started a 256-pair back-off, during
  // which the helper fell asleep again, and a single client's split products ran on one
  // thread from then on.
  const std::thread::id caller = std::this_thread::get_id();
  int helped = 0;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(WaitUntilTheHelperSleeps());
    std::atomic<bool> elsewhere{false};
    RunPairWithHelper([] { Busy(std::chrono::microseconds(200)); },
                      [&] {
                        elsewhere = std::this_thread::get_id() != caller;
                        Busy(std::chrono::microseconds(1000));
                      });
    helped += elsewhere ? 1 : 0;
    ASSERT_EQ(HelperBackOffForTesting(), 0) << "pair " << i << (elsewhere ? " (the helper's)" : " (the caller's)");
  }
  EXPECT_GT(helped, 0) << "the helper never took an offered half";
}

}  // namespace
}  // namespace graphd::executor::cpu
