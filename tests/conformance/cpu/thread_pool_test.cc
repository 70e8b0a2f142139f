// ThreadPool (executor/runtime/thread_pool.h): the limit on running tasks, inline
// tasks, which worker gets work, the runner, and lead tasks.
#include "executor/runtime/thread_pool.h"

#include <atomic>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {
namespace {

TEST(ThreadPoolTest, RunsAllScheduledWork) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(4);
    EXPECT_EQ(pool.num_threads(), 4);
    for (int i = 0; i < 1000; ++i) pool.Schedule([&] { done.fetch_add(1); });
  }  // the destructor waits for queued work
  EXPECT_EQ(done.load(), 1000);
}

TEST(ThreadPoolTest, InlineTasksCountAgainstTheThreadLimit) {
  absl::Notification started, release, queued_ran;
  {
    ThreadPool pool(2);
    ASSERT_TRUE(pool.TryBeginInline());  // one slot taken by the caller
    pool.Schedule([&] {
      started.Notify();
      release.WaitForNotification();
    });
    EXPECT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
    // Both slots are busy now (the inline task and the worker's): no third task
    // inline, and queued work waits for a slot.
    EXPECT_FALSE(pool.TryBeginInline());
    pool.Schedule([&] { queued_ran.Notify(); });
    EXPECT_FALSE(queued_ran.WaitForNotificationWithTimeout(absl::Milliseconds(100)));
    EXPECT_FALSE(pool.TryBeginInline());  // work is queued: it goes first
    pool.EndInline();  // frees the slot for the queued task
    EXPECT_TRUE(queued_ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
    release.Notify();
  }
  {
    ThreadPool pool(1);
    ASSERT_TRUE(pool.TryBeginInline());
    EXPECT_FALSE(pool.TryBeginInline());
    pool.EndInline();
    EXPECT_TRUE(pool.TryBeginInline());
    pool.EndInline();
  }
}

TEST(ThreadPoolTest, WorkRunsOnOtherThreadsConcurrently) {
  // Declared before the pools so that the pools (and their work) finish first.
  absl::Notification first_started, release, second_ran, ran;
  std::atomic<int> done{0};
  {
    ThreadPool pool(2);
    pool.Schedule([&] {
      first_started.Notify();
      release.WaitForNotification();
      done.fetch_add(1);
    });
    EXPECT_TRUE(first_started.WaitForNotificationWithTimeout(absl::Seconds(10)));
    // The second worker runs this while the first is blocked.
    pool.Schedule([&] {
      second_ran.Notify();
      done.fetch_add(1);
    });
    EXPECT_TRUE(second_ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
    release.Notify();
  }
  EXPECT_EQ(done.load(), 2);
  {
    ThreadPool one(0);
    EXPECT_EQ(one.num_threads(), 1);
    one.Schedule([&] { ran.Notify(); });
    EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  }
}

// One call at a time lands on the same worker every time: its OpenMP team is the one
// still awake (thread_pool.h).
TEST(ThreadPoolTest, OneStreamOfWorkStaysOnOneWorker) {
  ThreadPool pool(4);
  absl::SleepFor(absl::Milliseconds(50));  // every worker has started and gone idle
  std::vector<std::thread::id> ran_on;
  for (int i = 0; i < 20; ++i) {
    absl::Notification done;
    pool.Schedule([&] {
      ran_on.push_back(std::this_thread::get_id());
      done.Notify();
    });
    ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    absl::SleepFor(absl::Milliseconds(2));  // the worker is back among the idle ones
  }
  for (const std::thread::id& id : ran_on) EXPECT_EQ(id, ran_on.front());
  EXPECT_NE(ran_on.front(), std::this_thread::get_id());
}

// The runner learns which tasks run on worker 0 (the server gives it the OpenMP team
// while nothing else runs: executor/cpu/team.h): one call at a time always does; a
// task beside another one, and an inline one, does not; running() counts both.
TEST(ThreadPoolTest, TheRunnerLearnsWhichTasksRunOnWorkerZero) {
  absl::Mutex mu;
  std::vector<std::pair<bool, std::thread::id>> runs;
  std::vector<int> running;
  ThreadPool pool(3, [&](const ThreadPool& self, bool lead, const std::function<void()>& task) {
    {
      absl::MutexLock lock(&mu);
      runs.emplace_back(lead, std::this_thread::get_id());
      running.push_back(self.running());
    }
    task();
  });
  // Until `n` tasks run: a worker whose task ended is back among the idle ones then
  // (both happen under the pool's lock).
  auto wait_running = [&pool](int n) {
    for (int i = 0; i < 10000 && pool.running() != n; ++i) absl::SleepFor(absl::Milliseconds(1));
    ASSERT_EQ(pool.running(), n);
  };
  absl::SleepFor(absl::Milliseconds(50));  // every worker has started and gone idle
  for (int i = 0; i < 5; ++i) {  // one at a time: worker 0, leading, every time
    absl::Notification done;
    pool.Schedule([&] { done.Notify(); });
    ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    wait_running(0);
  }
  absl::Notification first_started, release, both_done;
  std::atomic<int> finished{0};
  pool.Schedule([&] {
    first_started.Notify();
    release.WaitForNotification();
    if (++finished == 2) both_done.Notify();
  });
  ASSERT_TRUE(first_started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::Notification second_done;
  pool.Schedule([&] { second_done.Notify(); });  // beside the first: another worker
  ASSERT_TRUE(second_done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  wait_running(1);
  ASSERT_TRUE(pool.TryBeginInline());
  bool inline_ran = false;
  pool.RunInline([&] { inline_ran = true; });
  pool.EndInline();
  EXPECT_TRUE(inline_ran);
  release.Notify();
  if (++finished == 2) both_done.Notify();
  ASSERT_TRUE(both_done.WaitForNotificationWithTimeout(absl::Seconds(10)));

  absl::MutexLock lock(&mu);
  ASSERT_EQ(runs.size(), 8u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(runs[i].first) << i;
    EXPECT_EQ(runs[i].second, runs[0].second) << i;
    EXPECT_EQ(running[i], 1) << i;
  }
  EXPECT_EQ(running[6], 2);
  EXPECT_EQ(running[7], 2);
  EXPECT_FALSE(runs[6].first);  // started while the first ran
  EXPECT_NE(runs[6].second, runs[0].second);
  EXPECT_FALSE(runs[7].first);  // inline, on this thread
  EXPECT_EQ(runs[7].second, std::this_thread::get_id());
}

thread_local bool on_worker_zero = false;

// Records, per task, whether it ran on worker 0 (the runner's `lead`), and tells the
// task (on_worker_zero).
class LeadLog {
 public:
  ThreadPool::Runner runner() {
    return [this](const ThreadPool&, bool lead, const std::function<void()>& task) {
      {
        absl::MutexLock lock(&mu_);
        leads_.push_back(lead);
      }
      on_worker_zero = lead;
      task();
      on_worker_zero = false;
    };
  }
  std::vector<bool> leads() {
    absl::MutexLock lock(&mu_);
    return leads_;
  }

 private:
  absl::Mutex mu_;
  std::vector<bool> leads_;
};

// A lead task runs on worker 0 only: while worker 0 is busy it waits although other
// workers are idle (which still run ordinary work), and it runs when worker 0 is free.
TEST(ThreadPoolTest, LeadTasksWaitForWorkerZero) {
  LeadLog log;
  absl::Notification first_started, release, lead_ran, other_ran;
  std::atomic<bool> lead_on_zero{false};
  {
    ThreadPool pool(3, log.runner(), /*lead_tasks=*/true);
    pool.ScheduleLead([&] {  // worker 0, held
      first_started.Notify();
      release.WaitForNotification();
    });
    ASSERT_TRUE(first_started.WaitForNotificationWithTimeout(absl::Seconds(10)));
    pool.ScheduleLead([&] {
      lead_on_zero = on_worker_zero;
      lead_ran.Notify();
    });
    EXPECT_FALSE(lead_ran.WaitForNotificationWithTimeout(absl::Milliseconds(100)));
    EXPECT_EQ(pool.queued(), 1);
    pool.Schedule([&] { other_ran.Notify(); });
    EXPECT_TRUE(other_ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
    EXPECT_FALSE(lead_ran.HasBeenNotified());
    release.Notify();
    EXPECT_TRUE(lead_ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  }
  EXPECT_TRUE(lead_on_zero.load());
  EXPECT_EQ(log.leads(), (std::vector<bool>{true, false, true}));
}

// Lead tasks from many threads at once all run, each on worker 0, among ordinary
// work; and while one waits, the last free slot is kept for it (no inline task takes
// it), whether the slot is taken by a worker or by an inline task.
TEST(ThreadPoolTest, LeadTasksRunOnWorkerZeroUnderLoad) {
  LeadLog log;
  std::atomic<int> leads_done{0}, leads_elsewhere{0}, others_done{0};
  {
    ThreadPool pool(2, log.runner(), /*lead_tasks=*/true);
    std::vector<std::thread> clients;
    for (int c = 0; c < 4; ++c) {
      clients.emplace_back([&] {
        for (int i = 0; i < 50; ++i) {
          pool.ScheduleLead([&] {
            if (!on_worker_zero) leads_elsewhere.fetch_add(1);
            leads_done.fetch_add(1);
          });
          pool.Schedule([&] { others_done.fetch_add(1); });
        }
      });
    }
    for (std::thread& t : clients) t.join();
  }  // the destructor waits for queued work, lead tasks included
  EXPECT_EQ(leads_done.load(), 200);
  EXPECT_EQ(leads_elsewhere.load(), 0);
  EXPECT_EQ(others_done.load(), 200);

  {
    absl::Notification started, release, ran;
    ThreadPool pool(2, log.runner(), /*lead_tasks=*/true);
    pool.ScheduleLead([&] {
      started.Notify();
      release.WaitForNotification();
    });
    ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
    pool.ScheduleLead([&] { ran.Notify(); });
    EXPECT_FALSE(pool.TryBeginInline());  // the last slot waits for the lead task
    release.Notify();
    EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  }
  absl::Notification ran;
  ThreadPool pool(1, log.runner(), /*lead_tasks=*/true);
  ASSERT_TRUE(pool.TryBeginInline());  // the only slot
  pool.ScheduleLead([&] { ran.Notify(); });
  EXPECT_FALSE(ran.WaitForNotificationWithTimeout(absl::Milliseconds(100)));
  pool.EndInline();
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

// Without lead_tasks, ScheduleLead is Schedule: any idle worker runs the task.
TEST(ThreadPoolTest, WithoutLeadTasksScheduleLeadIsSchedule) {
  LeadLog log;
  absl::Notification first_started, release, lead_ran;
  {
    ThreadPool pool(2, log.runner());
    pool.Schedule([&] {
      first_started.Notify();
      release.WaitForNotification();
    });
    ASSERT_TRUE(first_started.WaitForNotificationWithTimeout(absl::Seconds(10)));
    pool.ScheduleLead([&] { lead_ran.Notify(); });  // the other worker, while the first is held
    EXPECT_TRUE(lead_ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
    release.Notify();
  }
  const std::vector<bool> leads = log.leads();
  ASSERT_EQ(leads.size(), 2u);
  EXPECT_NE(leads[0], leads[1]);
}

}  // namespace
}  // namespace graphd::executor::test
