#include "compiler/cache/function_cache.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

Fingerprint Content(absl::string_view text) { return Fingerprinter().Add(text).Finish(); }

std::shared_ptr<CompiledFunction> Made(int64_t bytes = 0) {
  auto f = std::make_shared<CompiledFunction>();
  f->id = NextCompiledFunctionId();
  f->bytes = bytes;
  return f;
}

TEST(FunctionCacheTest, CompilesOncePerKeyAndSeparatesContentAndSignature) {
  FunctionCache cache;
  int produced = 0;
  auto produce = [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
    ++produced;
    return Made();
  };
  bool compiled = false;
  auto a = cache.GetOrCompile(Content("model"), "sig1", produce, &compiled);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(compiled);
  auto again = cache.GetOrCompile(Content("model"), "sig1", produce, &compiled);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(compiled);
  EXPECT_EQ(a->get(), again->get());
  EXPECT_EQ(cache.Lookup(Content("model"), "sig1").get(), a->get());
  EXPECT_EQ(cache.Lookup(Content("model"), "sig2"), nullptr);
  EXPECT_EQ(cache.Lookup(Content("other"), "sig1"), nullptr);
  ASSERT_TRUE(cache.GetOrCompile(Content("other"), "sig1", produce).ok());
  EXPECT_EQ(produced, 2);
  FunctionCacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 2);
  EXPECT_EQ(stats.entries, 2);
  EXPECT_EQ(stats.hits, 2);
}

TEST(FunctionCacheTest, FailedCompilesAreNotCached) {
  FunctionCache cache;
  int calls = 0;
  auto fail = [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
    ++calls;
    return errors::InvalidArgument("bad model");
  };
  EXPECT_EQ(cache.GetOrCompile(Content("m"), "s", fail).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cache.GetOrCompile(Content("m"), "s", fail).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cache.stats().entries, 0);
}

TEST(FunctionCacheTest, BoundedByEntriesLeastRecentlyUsedFirst) {
  FunctionCache cache({.max_entries = 2});
  auto produce = []() -> StatusOr<std::shared_ptr<CompiledFunction>> { return Made(); };
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "a", produce).ok());
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "b", produce).ok());
  ASSERT_NE(cache.Lookup(Content("m"), "a"), nullptr);  // a is now the most recent
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "c", produce).ok());
  EXPECT_NE(cache.Lookup(Content("m"), "a"), nullptr);
  EXPECT_EQ(cache.Lookup(Content("m"), "b"), nullptr);
  EXPECT_NE(cache.Lookup(Content("m"), "c"), nullptr);
  EXPECT_EQ(cache.stats().evictions, 1);
  EXPECT_EQ(cache.stats().entries, 2);
}

// A function that a compile evicts is released after the cache's lock: its
// destruction (a plan, kernels, weights) may take long, and may reach the cache.
TEST(FunctionCacheTest, AnEvictedFunctionIsReleasedAfterTheLock) {
  struct CallsTheCache : FrontEndData {
    FunctionCache* cache = nullptr;
    int64_t* seen = nullptr;
    ~CallsTheCache() override { *seen = cache->stats().entries; }  // takes the lock
  };
  FunctionCache cache({.max_entries = 1});
  int64_t seen = -1;
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "a", [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
    auto f = Made();
    auto front_end = std::make_shared<CallsTheCache>();
    front_end->cache = &cache;
    front_end->seen = &seen;
    f->front_end = std::move(front_end);
    return f;
  }).ok());  // the result is dropped here: only the cache holds it
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "b", [] { return StatusOr<std::shared_ptr<CompiledFunction>>(Made()); }).ok());
  EXPECT_EQ(seen, 1);  // destroyed, after the lock, with "b" in the cache
}

TEST(FunctionCacheTest, BoundedByBytesButKeepsTheEntryJustMade) {
  FunctionCache cache({.max_entries = 100, .max_bytes = 1000});
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "a", [] { return StatusOr<std::shared_ptr<CompiledFunction>>(Made(600)); }).ok());
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "b", [] { return StatusOr<std::shared_ptr<CompiledFunction>>(Made(600)); }).ok());
  EXPECT_EQ(cache.Lookup(Content("m"), "a"), nullptr);
  EXPECT_NE(cache.Lookup(Content("m"), "b"), nullptr);
  EXPECT_EQ(cache.stats().bytes, 600 + 1);  // the constants and the one-byte key
  // One entry over the whole budget is still kept (it is in use).
  auto huge = cache.GetOrCompile(Content("m"), "c", [] { return StatusOr<std::shared_ptr<CompiledFunction>>(Made(5000)); });
  ASSERT_TRUE(huge.ok());
  EXPECT_NE(cache.Lookup(Content("m"), "c"), nullptr);
  EXPECT_EQ(cache.stats().entries, 1);
}

TEST(FunctionCacheTest, ConcurrentMissesCompileOnceAndShareTheResult) {
  FunctionCache cache;
  std::atomic<int> produced{0};
  absl::Notification release;
  constexpr int kCallers = 10;
  std::vector<std::thread> threads;
  std::vector<FunctionCache::Ref> got(kCallers);
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&, i] {
      auto r = cache.GetOrCompile(Content("resnet"), "b1", [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
        ++produced;
        release.WaitForNotification();
        return Made();
      });
      if (r.ok()) got[i] = *r;
    });
  }
  // Let every caller reach the cache before the one compile finishes.
  while (cache.stats().misses < kCallers) std::this_thread::yield();
  release.Notify();
  for (auto& t : threads) t.join();
  EXPECT_EQ(produced.load(), 1);
  EXPECT_EQ(cache.stats().waits, kCallers - 1);
  for (const auto& r : got) {
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r.get(), got[0].get());
  }
}

TEST(FunctionCacheTest, ACancelledCompileIsRetriedByAWaiter) {
  FunctionCache cache;
  absl::Notification waiter_waiting, release;
  std::atomic<int> produced{0};
  std::thread first([&] {
    auto r = cache.GetOrCompile(Content("m"), "s", [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
      ++produced;
      release.WaitForNotification();
      return errors::Cancelled("the first caller went away");
    });
    EXPECT_TRUE(absl::IsCancelled(r.status()));
  });
  while (cache.stats().compiles < 1) std::this_thread::yield();
  std::thread second([&] {
    auto r = cache.GetOrCompile(Content("m"), "s", [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
      ++produced;
      return Made();
    });
    EXPECT_TRUE(r.ok());
  });
  while (cache.stats().waits < 1) std::this_thread::yield();
  release.Notify();
  first.join();
  second.join();
  EXPECT_EQ(produced.load(), 2);
  EXPECT_EQ(cache.stats().entries, 1);
}

TEST(FunctionCacheTest, ARecursiveCompileOfTheSameKeyIsAnErrorNotADeadlock) {
  FunctionCache cache;
  auto r = cache.GetOrCompile(Content("f"), "s", [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
    auto inner = cache.GetOrCompile(Content("f"), "s", [] { return StatusOr<std::shared_ptr<CompiledFunction>>(Made()); });
    if (!inner.ok()) return inner.status();
    return Made();
  });
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(FunctionCacheTest, EraseOwnerDropsOnlyThatOwnersEntries) {
  FunctionCache cache;
  cache.AddOwner(7);
  cache.AddOwner(8);
  auto produce = []() -> StatusOr<std::shared_ptr<CompiledFunction>> { return Made(10); };
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "shared", produce).ok());
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "one", produce, nullptr, /*owner=*/7).ok());
  auto kept = cache.GetOrCompile(Content("m"), "two", produce, nullptr, /*owner=*/7);
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(cache.GetOrCompile(Content("m"), "other", produce, nullptr, /*owner=*/8).ok());
  cache.EraseOwner(7);
  EXPECT_NE(cache.Lookup(Content("m"), "shared"), nullptr);
  EXPECT_EQ(cache.Lookup(Content("m"), "one"), nullptr);
  EXPECT_EQ(cache.Lookup(Content("m"), "two"), nullptr);
  EXPECT_NE(cache.Lookup(Content("m"), "other"), nullptr);
  EXPECT_EQ(cache.stats().entries, 2);
  EXPECT_NE(kept->get(), nullptr);  // a holder keeps its function
  cache.EraseOwner(0);              // 0 is "shared": never erased
  EXPECT_EQ(cache.stats().entries, 2);
  // A compile that ends after its owner closed is not cached.
  auto late = cache.GetOrCompile(Content("m"), "late", produce, nullptr, /*owner=*/7);
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(cache.Lookup(Content("m"), "late"), nullptr);
}

TEST(FunctionCacheTest, AWaiterStopsWaitingWhenItsTokenExpires) {
  FunctionCache cache;
  absl::Notification release;
  std::thread first([&] {
    ASSERT_TRUE(cache.GetOrCompile(Content("slow"), "s", [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
      release.WaitForNotification();
      return Made();
    }).ok());
  });
  while (cache.stats().compiles < 1) std::this_thread::yield();
  CancellationToken token;
  token.Cancel();
  auto waited = cache.GetOrCompile(Content("slow"), "s", [] { return StatusOr<std::shared_ptr<CompiledFunction>>(Made()); },
                                   nullptr, 0, &token);
  EXPECT_TRUE(absl::IsCancelled(waited.status())) << waited.status();
  release.Notify();
  first.join();
}

TEST(FunctionCacheTest, ACallerSpecificErrorIsRetriedByAWaiter) {
  FunctionCache cache;
  absl::Notification release;
  std::thread first([&] {
    auto r = cache.GetOrCompile(Content("m"), "s", [&]() -> StatusOr<std::shared_ptr<CompiledFunction>> {
      release.WaitForNotification();
      return CallerSpecific(errors::ResourceExhausted("the first caller's own backlog failed"));
    });
    EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  });
  while (cache.stats().compiles < 1) std::this_thread::yield();
  std::thread second([&] {
    EXPECT_TRUE(cache.GetOrCompile(Content("m"), "s", [] { return StatusOr<std::shared_ptr<CompiledFunction>>(Made()); }).ok());
  });
  while (cache.stats().waits < 1) std::this_thread::yield();
  release.Notify();
  first.join();
  second.join();
  EXPECT_EQ(cache.stats().entries, 1);
}

}  // namespace
}  // namespace graphd::compiler
