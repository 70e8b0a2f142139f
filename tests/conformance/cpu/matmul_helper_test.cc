// The helper thread that takes one half of a split product (executor/cpu/matmul_helper.h):
// both halves run exactly once, an exception from the offered half reaches the caller,
// and a helper that fell asleep between calls still helps (a late wake-up is not taken
// for a loaded box).
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

TEST(MatMulHelperTest, AHelperThatFellAsleepBetweenCallsStillHelps) {
  // Each call comes after a pause longer than the helper's spin, so it finds the helper
  // asleep and wakes it, and the offered half is the longer one, so the caller always
  // waits for it. Before, such a wait counted as a loaded box and the next 256 pairs
  // ran on the caller alone: 1 call of 20 got help.
  // Earlier tests may have left the helper backing off: pairs that offer use that up.
  for (int i = 0; i < 64; ++i) RunPairWithHelper([] {}, [] {});
  const std::thread::id caller = std::this_thread::get_id();
  int helped = 0;
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    std::atomic<bool> elsewhere{false};
    RunPairWithHelper([] { Busy(std::chrono::microseconds(2000)); },
                      [&] {
                        elsewhere = std::this_thread::get_id() != caller;
                        Busy(std::chrono::microseconds(3000));
                      });
    helped += elsewhere ? 1 : 0;
  }
  EXPECT_GE(helped, 10) << "the helper took the offered half in " << helped << " of 20 calls";
}

}  // namespace
}  // namespace graphd::executor::cpu
