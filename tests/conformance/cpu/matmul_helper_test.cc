// The helper thread that takes one half of a split product (executor/cpu/matmul_helper.h):
// both halves run exactly once, an exception from the offered half reaches the caller,
// and a helper found asleep starts no back-off (a late wake-up is not taken for a
// loaded box).
#include "executor/cpu/matmul_helper.h"

#include <immintrin.h>

#include <atomic>
#include <chrono>
#include <functional>
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

// An exception from the caller's own half (RunBlock: a dnnl::error or bad_alloc, which
// GuardedKernel turns into a status while the server carries on) still waits for the
// helper's half, which refers to the caller's frame (the offer, the kernel's tensors).
TEST(MatMulHelperTest, AnExceptionFromTheCallersHalfWaitsForTheHelpersHalf) {
  for (int i = 0; i < 100000 && HelperBackOffForTesting() > 0; ++i) RunPairWithHelper([] {}, [] {});
  ASSERT_EQ(HelperBackOffForTesting(), 0);
  std::atomic<bool> started{false}, throwing{false}, other_done{false};
  // The helper's half outlasts the caller's by 20 ms after the caller's throws.
  const std::function<void()> other = [&] {
    started = true;
    while (!throwing.load()) _mm_pause();
    Busy(std::chrono::milliseconds(20));
    other_done = true;
  };
  const std::function<void()> mine = [&] {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!started.load() && std::chrono::steady_clock::now() < end) _mm_pause();
    throwing = true;  // lets `other` finish, wherever it runs
    if (started.load()) throw std::runtime_error("the caller's half failed");
  };
  bool threw = false, done_when_returned = false;
  try {
    RunPairWithHelper(mine, other, /*wake=*/true);
  } catch (const std::runtime_error&) {
    threw = true;
    done_when_returned = other_done.load();
  }
  while (!other_done.load()) _mm_pause();
  if (!threw) GTEST_SKIP() << "the helper did not take the offered half";
  EXPECT_TRUE(done_when_returned) << "the exception reached the caller while the helper still ran the other half";
}

}  // namespace
}  // namespace graphd::executor::cpu
