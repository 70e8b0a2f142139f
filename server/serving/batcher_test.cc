#include "server/serving/batcher.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::server::serving {
namespace {

Tensor Rows(std::vector<float> values, int64_t cols) {
  const int64_t rows = static_cast<int64_t>(values.size()) / cols;
  return *Tensor::FromVector<float>(Shape({rows, cols}), values);
}

TEST(BatcherTest, ConcatAndSliceRows) {
  Tensor a = Rows({1, 2}, 2), b = Rows({3, 4, 5, 6}, 2);
  auto joined = ConcatRows({&a, &b});
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(joined->shape(), Shape({3, 2}));
  EXPECT_THAT(joined->flat<float>(), ::testing::ElementsAre(1, 2, 3, 4, 5, 6));
  auto slice = SliceRows(*joined, 1, 2);
  ASSERT_TRUE(slice.ok());
  EXPECT_THAT(slice->flat<float>(), ::testing::ElementsAre(3, 4, 5, 6));
  EXPECT_TRUE(Compatible({a}, {b}));
  EXPECT_FALSE(Compatible({a}, {Rows({1, 2, 3}, 3)}));
}

TEST(BatcherTest, ConcatPadsWithZeroRowsAndPaddedSizesArePowersOfTwo) {
  Tensor a = Rows({1, 2}, 2), b = Rows({3, 4}, 2);
  auto joined = ConcatRows({&a, &b}, 4);
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(joined->shape(), Shape({4, 2}));
  EXPECT_THAT(joined->flat<float>(), ::testing::ElementsAre(1, 2, 3, 4, 0, 0, 0, 0));
  const std::vector<std::string> x = {"x"};
  Tensor s = *Tensor::FromVector<std::string>(Shape({1}), x);
  auto strings = ConcatRows({&s}, 3);
  ASSERT_TRUE(strings.ok());
  EXPECT_THAT(strings->flat<std::string>(), ::testing::ElementsAre("x", "", ""));
  EXPECT_THAT(PaddedBatchSizes(32), ::testing::ElementsAre(1, 2, 4, 8, 16, 32));
  EXPECT_THAT(PaddedBatchSizes(24), ::testing::ElementsAre(1, 2, 4, 8, 16, 24));
  EXPECT_THAT(PaddedBatchSizes(1), ::testing::ElementsAre(1));
}

thread_local bool on_worker_zero = false;

// Runs the model as y = 2x and records each execution's rows. The pool is as the
// server's with one OpenMP team: batches are lead tasks, run by worker 0.
struct Fixture {
  executor::ThreadPool pool{2,
                            [](const executor::ThreadPool&, bool lead, const std::function<void()>& task) {
                              on_worker_zero = lead;
                              task();
                              on_worker_zero = false;
                            },
                            /*lead_tasks=*/true};
  std::atomic<int> executions{0};
  std::atomic<int> off_worker_zero{0};
  std::atomic<int64_t> largest{0};
  Batcher::RunFn run = [this](std::vector<Tensor> in, const CancellationToken&) -> StatusOr<std::vector<Tensor>> {
    ++executions;
    if (!on_worker_zero) ++off_worker_zero;
    int64_t rows = in[0].shape().dim(0);
    if (rows > largest) largest = rows;
    Tensor out = *in[0].Clone();
    for (float& v : out.flat<float>()) v *= 2;
    return std::vector<Tensor>{out};
  };
};

TEST(BatcherTest, JoinsConcurrentRequestsAndSplitsTheResults) {
  Fixture f;
  Batcher batcher({.max_batch_size = 8, .max_queue_delay = std::chrono::milliseconds(50)}, f.run, nullptr, f.pool);
  CancellationToken token;
  constexpr int kRequests = 8;
  std::vector<StatusOr<std::vector<Tensor>>> results(kRequests, errors::Internal("unset"));
  std::atomic<int> done{0};
  absl::Notification all;
  for (int i = 0; i < kRequests; ++i) {
    batcher.Submit({Rows({float(i), float(i + 100)}, 2)}, &token, [&, i](StatusOr<std::vector<Tensor>> r) {
      results[i] = std::move(r);
      if (++done == kRequests) all.Notify();
    });
  }
  all.WaitForNotification();
  EXPECT_GT(f.largest.load(), 1);
  EXPECT_LT(f.executions.load(), kRequests);
  EXPECT_EQ(f.off_worker_zero.load(), 0);
  for (int i = 0; i < kRequests; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status();
    EXPECT_THAT((*results[i])[0].flat<float>(), ::testing::ElementsAre(2 * i, 2 * (i + 100)));
  }
}

TEST(BatcherTest, PaddedBatchesRunAtTheirSizesAndDropThePadding) {
  Fixture f;
  std::mutex mu;
  std::vector<int64_t> sizes;  // of every execution
  Batcher::RunFn run = [&](std::vector<Tensor> in, const CancellationToken& t) {
    {
      std::lock_guard<std::mutex> lock(mu);
      sizes.push_back(in[0].shape().dim(0));
    }
    return f.run(std::move(in), t);
  };
  Batcher batcher({.max_batch_size = 8,
                   .max_queue_delay = std::chrono::milliseconds(50),
                   .padded_sizes = {1, 2, 4, 8}},
                  run, nullptr, f.pool);
  CancellationToken token;
  constexpr int kRequests = 7;  // rows 1, 2, 1, 2, ...: 10 rows, at most 8 a batch
  std::vector<StatusOr<std::vector<Tensor>>> results(kRequests, errors::Internal("unset"));
  std::atomic<int> done{0};
  absl::Notification all;
  for (int i = 0; i < kRequests; ++i) {
    std::vector<float> values = {float(i), float(i + 100)};
    if (i % 2 == 1) values.insert(values.end(), {float(i + 200), float(i + 300)});
    batcher.Submit({Rows(values, 2)}, &token, [&, i](StatusOr<std::vector<Tensor>> r) {
      results[i] = std::move(r);
      if (++done == kRequests) all.Notify();
    });
  }
  all.WaitForNotification();
  for (int64_t size : sizes) EXPECT_THAT(size, ::testing::AnyOf(1, 2, 4, 8));
  for (int i = 0; i < kRequests; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status();
    if (i % 2 == 1) {
      EXPECT_THAT((*results[i])[0].flat<float>(),
                  ::testing::ElementsAre(2 * i, 2 * (i + 100), 2 * (i + 200), 2 * (i + 300)));
    } else {
      EXPECT_THAT((*results[i])[0].flat<float>(), ::testing::ElementsAre(2 * i, 2 * (i + 100)));
    }
  }
  // A lone request of 3 rows runs padded to 4 and gets its 3 rows back.
  absl::Notification lone;
  StatusOr<std::vector<Tensor>> three = errors::Internal("unset");
  batcher.Submit({Rows({1, 2, 3, 4, 5, 6}, 2)}, &token, [&](auto r) {
    three = std::move(r);
    lone.Notify();
  });
  lone.WaitForNotification();
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_THAT((*three)[0].flat<float>(), ::testing::ElementsAre(2, 4, 6, 8, 10, 12));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(sizes.back(), 4);
}

TEST(BatcherTest, IncompatibleShapesRunInSeparateBatches) {
  Fixture f;
  Batcher batcher({.max_batch_size = 8, .max_queue_delay = std::chrono::milliseconds(20)}, f.run, nullptr, f.pool);
  CancellationToken token;
  absl::Notification a_done, b_done;
  StatusOr<std::vector<Tensor>> a = errors::Internal(""), b = errors::Internal("");
  batcher.Submit({Rows({1, 2}, 2)}, &token, [&](auto r) { a = std::move(r); a_done.Notify(); });
  batcher.Submit({Rows({1, 2, 3}, 3)}, &token, [&](auto r) { b = std::move(r); b_done.Notify(); });
  a_done.WaitForNotification();
  b_done.WaitForNotification();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*b)[0].shape(), Shape({1, 3}));
  EXPECT_EQ(f.executions.load(), 2);
}

TEST(BatcherTest, ACancelledRequestFailsAlone) {
  Fixture f;
  Batcher batcher({.max_batch_size = 8, .max_queue_delay = std::chrono::milliseconds(30)}, f.run, nullptr, f.pool);
  CancellationToken live, cancelled;
  cancelled.Cancel();
  absl::Notification a_done, b_done;
  StatusOr<std::vector<Tensor>> a = errors::Internal(""), b = errors::Internal("");
  batcher.Submit({Rows({1, 2}, 2)}, &cancelled, [&](auto r) { a = std::move(r); a_done.Notify(); });
  batcher.Submit({Rows({3, 4}, 2)}, &live, [&](auto r) { b = std::move(r); b_done.Notify(); });
  a_done.WaitForNotification();
  b_done.WaitForNotification();
  EXPECT_EQ(a.status().code(), absl::StatusCode::kCancelled);
  ASSERT_TRUE(b.ok());
  EXPECT_THAT((*b)[0].flat<float>(), ::testing::ElementsAre(6, 8));
}

TEST(BatcherTest, AFailedExecutionFailsItsBatch) {
  executor::ThreadPool pool(1);
  Batcher batcher({.max_batch_size = 4, .max_queue_delay = std::chrono::milliseconds(1)},
                  [](std::vector<Tensor>, const CancellationToken&) -> StatusOr<std::vector<Tensor>> {
                    return errors::InvalidArgument("boom");
                  },
                  nullptr, pool);
  CancellationToken token;
  absl::Notification done;
  Status got;
  batcher.Submit({Rows({1, 2}, 2)}, &token, [&](auto r) {
    got = r.status();
    done.Notify();
  });
  done.WaitForNotification();
  EXPECT_EQ(got.message(), "boom");
}

}  // namespace
}  // namespace graphd::server::serving

namespace graphd::server::serving {
namespace {

TEST(BatcherTest, ARequestLargerThanEveryPreferredSizeStillRuns) {
  Fixture f;
  Batcher batcher({.max_batch_size = 8, .preferred_batch_sizes = {2}, .max_queue_delay = std::chrono::milliseconds(1)},
                  f.run, nullptr, f.pool);
  CancellationToken token;
  absl::Notification done;
  StatusOr<std::vector<Tensor>> got = errors::Internal("");
  batcher.Submit({Rows({1, 2, 3, 4, 5, 6}, 2)}, &token, [&](auto r) {
    got = std::move(r);
    done.Notify();
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].shape(), Shape({3, 2}));
}

TEST(BatcherTest, AFullQueueRefusesRequests) {
  executor::ThreadPool pool(1);
  absl::Notification release;
  Batcher batcher({.max_batch_size = 1, .max_queue_delay = std::chrono::milliseconds(0), .max_queue = 2},
                  [&](std::vector<Tensor> in, const CancellationToken&) -> StatusOr<std::vector<Tensor>> {
                    release.WaitForNotification();
                    return in;
                  },
                  nullptr, pool);
  CancellationToken token;
  std::atomic<int> ok{0}, refused{0}, finished{0};
  auto done = [&](StatusOr<std::vector<Tensor>> r) {
    (r.ok() ? ok : refused)++;
    if (!r.ok()) EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
    finished++;
  };
  batcher.Submit({Rows({1}, 1)}, &token, done);  // taken and running (blocked)
  absl::SleepFor(absl::Milliseconds(50));
  for (int i = 0; i < 3; ++i) batcher.Submit({Rows({1}, 1)}, &token, done);  // two wait, one is refused
  EXPECT_EQ(refused.load(), 1);
  release.Notify();
  while (finished.load() < 4) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_EQ(ok.load(), 3);
}

}  // namespace
}  // namespace graphd::server::serving
