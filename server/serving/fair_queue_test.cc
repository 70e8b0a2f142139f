// The worker pool's weighted fair queuing (executor/runtime/thread_pool.h), as the
// server uses it: one flow per tenant.
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "executor/runtime/thread_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::executor {
namespace {

// One worker held busy while tasks are queued, then released: the order they start in.
std::vector<int> StartOrder(const std::function<void(ThreadPool&, std::function<std::function<void()>(int)>)>& queue) {
  ThreadPool pool(1);
  absl::Notification release;
  absl::Mutex mu;
  std::vector<int> order;
  pool.Schedule([&] { release.WaitForNotification(); });
  while (pool.queued() > 0) absl::SleepFor(absl::Milliseconds(1));
  queue(pool, [&](int id) {
    return [&, id] {
      absl::MutexLock lock(&mu);
      order.push_back(id);
    };
  });
  release.Notify();
  while (true) {
    absl::SleepFor(absl::Milliseconds(5));
    if (pool.queued() == 0) break;
  }
  absl::SleepFor(absl::Milliseconds(20));
  absl::MutexLock lock(&mu);
  return order;
}

TEST(FairQueueTest, AFlowWithManyTasksDoesNotHoldAnotherBack) {
  auto order = StartOrder([](ThreadPool& pool, auto task) {
    for (int i = 0; i < 8; ++i) pool.Schedule(1, 1, task(100 + i));  // flow 1 queues 8
    pool.Schedule(2, 1, task(200));                                   // flow 2 queues 1 after them
  });
  ASSERT_EQ(order.size(), 9u);
  // Flow 2's task starts second, not ninth.
  EXPECT_EQ(order[0], 100);
  EXPECT_EQ(order[1], 200);
  EXPECT_THAT(std::vector<int>(order.begin() + 2, order.end()), ::testing::ElementsAre(101, 102, 103, 104, 105, 106, 107));
}

TEST(FairQueueTest, WeightsShareStarts) {
  auto order = StartOrder([](ThreadPool& pool, auto task) {
    for (int i = 0; i < 6; ++i) {
      pool.Schedule(1, 2, task(100 + i));  // weight 2
      pool.Schedule(2, 1, task(200 + i));  // weight 1
    }
  });
  ASSERT_EQ(order.size(), 12u);
  int heavy = 0;
  for (int i = 0; i < 6; ++i) heavy += order[i] < 200;
  EXPECT_EQ(heavy, 4);  // two of every three starts while both have work
}

TEST(FairQueueTest, OneFlowIsFirstComeFirstServed) {
  auto order = StartOrder([](ThreadPool& pool, auto task) {
    for (int i = 0; i < 5; ++i) pool.Schedule(task(i));
  });
  EXPECT_THAT(order, ::testing::ElementsAre(0, 1, 2, 3, 4));
}

}  // namespace
}  // namespace graphd::executor
