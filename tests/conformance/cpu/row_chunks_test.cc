// executor/cpu/row_chunks.h's ForChunksOwnedFirst: every chunk runs exactly once, on a
// thread of the team, for team sizes 1-3 and any chunk count, and a thread that starts late
// leaves its segment to the others.
#include "executor/cpu/row_chunks.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace graphd::executor::cpu {
namespace {

TEST(ForChunksOwnedFirstTest, EveryChunkRunsOnceOnATeamThread) {
  // Teams of up to three, as the other team tests: teams of 5 and 8 on the 2-core CI
  // host made the sanitizer build's libomp (LLVM's) report its thread descriptors as
  // leaked at exit.
  for (int threads : {1, 2, 3}) {
    for (int64_t chunks : {0, 1, 2, 3, 7, 64, 1001}) {
      SCOPED_TRACE(absl::StrCat(threads, " threads, ", chunks, " chunks"));
      std::vector<std::atomic<int>> runs(chunks);
      std::atomic<int> bad_thread{0};
      ForChunksOwnedFirst(chunks, threads, [&](int64_t i, int thread) {
        runs[i].fetch_add(1);
        if (thread < 0 || thread >= threads) bad_thread.fetch_add(1);
      });
      for (int64_t i = 0; i < chunks; ++i) EXPECT_EQ(runs[i].load(), 1) << "chunk " << i;
      EXPECT_EQ(bad_thread.load(), 0);
    }
  }
}

TEST(ForChunksOwnedFirstTest, ALateThreadsSegmentIsTakenByTheOthers) {
  // Thread 1 of 2 starts 100 ms late: thread 0 runs its own 50 chunks, then takes
  // thread 1's from the back; thread 1 finds at most the few thread 0 has not reached.
  std::vector<std::atomic<int>> by(2);
  std::vector<std::atomic<int>> runs(100);
  std::atomic<bool> slept{false};
  ForChunksOwnedFirst(100, 2, [&](int64_t i, int thread) {
    if (thread == 1 && !slept.exchange(true)) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    runs[i].fetch_add(1);
    by[thread].fetch_add(1);
  });
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(runs[i].load(), 1) << "chunk " << i;
  EXPECT_GE(by[0].load(), 90);
}

}  // namespace
}  // namespace graphd::executor::cpu
