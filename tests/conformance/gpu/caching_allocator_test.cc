// The stream-ordered caching allocator (executor/gpu/caching_allocator.h) over
// a fake backend that counts mallocs/frees, simulates events (pending until the
// test completes them) and runs out of memory at a chosen capacity. Needs no
// GPU.
#include "executor/gpu/caching_allocator.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::executor::gpu {
namespace {

using ::testing::HasSubstr;

class FakeBackend : public AllocatorBackend {
 public:
  absl::StatusOr<void*> Malloc(size_t bytes) override {
    absl::MutexLock lock(&mu_);
    if (!fail_next_.ok()) return std::exchange(fail_next_, absl::OkStatus());
    if (held_ + bytes > capacity_) {
      return absl::ResourceExhaustedError("fake device: out of memory");
    }
    // Distinct, never dereferenced addresses with a gap between blocks.
    void* ptr = reinterpret_cast<void*>(next_);
    next_ += bytes + 4096;
    live_[ptr] = bytes;
    held_ += bytes;
    ++mallocs_;
    return ptr;
  }
  void Free(void* ptr) override {
    absl::MutexLock lock(&mu_);
    auto it = live_.find(ptr);
    ASSERT_NE(it, live_.end()) << "backend Free of unknown " << ptr;
    held_ -= it->second;
    live_.erase(it);
    ++frees_;
  }
  absl::StatusOr<Event> RecordEvent(Stream stream) override {
    absl::MutexLock lock(&mu_);
    if (fail_record_) return absl::InternalError("fake: cannot record");
    Event event = ++last_event_;
    events_[event] = auto_complete_;
    ++records_;
    recorded_on_.push_back(stream);
    return event;
  }
  bool EventDone(Event event) override {
    absl::MutexLock lock(&mu_);
    auto it = events_.find(event);
    EXPECT_NE(it, events_.end()) << "query of unknown event " << event;
    return it != events_.end() && it->second;
  }
  void DestroyEvent(Event event) override {
    absl::MutexLock lock(&mu_);
    EXPECT_EQ(events_.erase(event), 1u) << "destroy of unknown event " << event;
  }

  // Test controls.
  void CompleteEvents() {
    absl::MutexLock lock(&mu_);
    for (auto& [event, done] : events_) done = true;
  }
  void set_capacity(size_t bytes) {
    absl::MutexLock lock(&mu_);
    capacity_ = bytes;
  }
  void set_auto_complete(bool on) {
    absl::MutexLock lock(&mu_);
    auto_complete_ = on;
  }
  void set_fail_record(bool on) {
    absl::MutexLock lock(&mu_);
    fail_record_ = on;
  }
  void FailNextMalloc(absl::Status status) {
    absl::MutexLock lock(&mu_);
    fail_next_ = status;
  }
  size_t held() {
    absl::MutexLock lock(&mu_);
    return held_;
  }
  int mallocs() {
    absl::MutexLock lock(&mu_);
    return mallocs_;
  }
  int frees() {
    absl::MutexLock lock(&mu_);
    return frees_;
  }
  int records() {
    absl::MutexLock lock(&mu_);
    return records_;
  }
  size_t live_events() {
    absl::MutexLock lock(&mu_);
    return events_.size();
  }
  std::vector<Stream> recorded_on() {
    absl::MutexLock lock(&mu_);
    return recorded_on_;
  }

 private:
  absl::Mutex mu_;
  std::uintptr_t next_ = 0x100000;
  absl::flat_hash_map<void*, size_t> live_;
  size_t held_ = 0;
  size_t capacity_ = SIZE_MAX;
  int mallocs_ = 0, frees_ = 0, records_ = 0;
  Event last_event_ = 0;
  absl::flat_hash_map<Event, bool> events_;  // event -> done
  std::vector<Stream> recorded_on_;
  bool auto_complete_ = false;
  bool fail_record_ = false;
  absl::Status fail_next_;
};

constexpr Stream kS1 = 0x11, kS2 = 0x22, kS3 = 0x33;

void* Alloc(CachingAllocator& a, size_t bytes, Stream stream, absl::string_view owner = "") {
  absl::StatusOr<void*> ptr = a.Allocate(bytes, stream, owner);
  EXPECT_TRUE(ptr.ok()) << ptr.status();
  return ptr.ok() ? *ptr : nullptr;
}

TEST(CachingAllocatorTest, RoundsSizesToTheGranularity) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  EXPECT_EQ(a.BlockSize(Alloc(a, 1, kS1)), 512u);
  EXPECT_EQ(a.BlockSize(Alloc(a, 0, kS1)),
            512u);  // distinct pointer, one granule
  EXPECT_EQ(a.BlockSize(Alloc(a, 512, kS1)), 512u);
  EXPECT_EQ(a.BlockSize(Alloc(a, 513, kS1)), 1024u);
  EXPECT_EQ(backend.held(), 512u * 3 + 1024u);
  EXPECT_EQ(a.BlockSize(nullptr), 0u);
}

TEST(CachingAllocatorTest, ReusesAFreedBlockOnTheSameStreamAtOnce) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  void* p = Alloc(a, 1000, kS1);
  ASSERT_TRUE(a.Free(p, kS1).ok());
  EXPECT_EQ(Alloc(a, 900, kS1), p);
  EXPECT_EQ(backend.mallocs(), 1);
  EXPECT_EQ(backend.records(), 0);  // single stream: no event needed
  AllocatorStats stats = a.Stats();
  EXPECT_EQ(stats.cache_hits, 1);
  EXPECT_EQ(stats.bytes_in_use, 1024u);
  EXPECT_EQ(stats.bytes_cached, 0u);
}

TEST(CachingAllocatorTest, OtherStreamsWaitForTheEventRecordedAfterTheFree) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  void* p = Alloc(a, 1000, kS1);
  ASSERT_TRUE(a.Free(p, kS1).ok());
  // S1's work may still use p: S2 gets fresh memory, and an event is recorded
  // on S1.
  void* q = Alloc(a, 1000, kS2);
  EXPECT_NE(q, p);
  EXPECT_EQ(backend.mallocs(), 2);
  EXPECT_EQ(backend.recorded_on(), std::vector<Stream>{kS1});
  // Still pending: S3 cannot have it either (the same event is queried, not
  // re-recorded).
  void* r = Alloc(a, 1000, kS3);
  EXPECT_NE(r, p);
  EXPECT_EQ(backend.records(), 1);
  ASSERT_TRUE(a.Free(r, kS3).ok());
  // Once S1 has passed the event, p serves S2.
  backend.CompleteEvents();
  EXPECT_EQ(Alloc(a, 1000, kS2), p);
  EXPECT_EQ(backend.mallocs(), 3);
  ASSERT_TRUE(a.Free(p, kS2).ok());
  ASSERT_TRUE(a.Free(q, kS2).ok());
  a.Trim();
  EXPECT_EQ(backend.live_events(), 0u);
  EXPECT_EQ(backend.held(), 0u);
}

TEST(CachingAllocatorTest, PrefersABlockFromTheSameStream) {
  FakeBackend backend;
  backend.set_auto_complete(true);  // every event is done at once
  CachingAllocator a(&backend);
  void* p1 = Alloc(a, 2048, kS1);
  void* p2 = Alloc(a, 2048, kS2);
  ASSERT_TRUE(a.Free(p1, kS1).ok());
  ASSERT_TRUE(a.Free(p2, kS2).ok());
  EXPECT_EQ(Alloc(a, 2048, kS2), p2);
  EXPECT_EQ(backend.records(), 0);
  // No S2 block left: S1's block, its event done, moves to S2.
  EXPECT_EQ(Alloc(a, 2048, kS2), p1);
  EXPECT_EQ(backend.records(), 1);
  EXPECT_EQ(backend.live_events(), 0u);  // destroyed when the block was taken
  EXPECT_EQ(backend.mallocs(), 2);
}

TEST(CachingAllocatorTest, BestFitAndNoBlockMoreThanTwiceTheRequest) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  void* big = Alloc(a, 4096, kS1);
  void* small = Alloc(a, 1024, kS1);
  void* mid = Alloc(a, 2048, kS1);
  for (void* p : {big, small, mid}) ASSERT_TRUE(a.Free(p, kS1).ok());
  EXPECT_EQ(Alloc(a, 3000, kS1), big);
  EXPECT_EQ(Alloc(a, 1000, kS1), small);
  // 1024 is taken: 2048 is the smallest fit and no more than twice 1024.
  EXPECT_EQ(Alloc(a, 1000, kS1), mid);
  EXPECT_EQ(backend.mallocs(), 3);
  ASSERT_TRUE(a.Free(big, kS1).ok());
  // A 4096 block is not wasted on 512 bytes.
  void* tiny = Alloc(a, 512, kS1);
  EXPECT_NE(tiny, big);
  EXPECT_EQ(backend.mallocs(), 4);
  EXPECT_EQ(Alloc(a, 2049, kS1), big);  // rounds to 2560; 4096 <= 5120
}

TEST(CachingAllocatorTest, OutOfMemoryTrimsTheCacheAndRetriesOnce) {
  FakeBackend backend;
  backend.set_capacity(4096);
  CachingAllocator a(&backend);
  void* p = Alloc(a, 2048, kS1);
  ASSERT_TRUE(a.Free(p, kS1).ok());
  // 2048 cached + 3072 > 4096: the cached block goes back, then the retry fits.
  void* q = Alloc(a, 3000, kS1, "s");
  ASSERT_NE(q, nullptr);
  AllocatorStats stats = a.Stats();
  EXPECT_EQ(stats.oom_trims, 1);
  EXPECT_EQ(stats.backend_frees, 1);
  EXPECT_EQ(stats.bytes_cached, 0u);
  EXPECT_EQ(backend.held(), 3072u);
}

TEST(CachingAllocatorTest, OutOfMemoryAfterTheRetrySaysWhatWasAskedInUseAndCached) {
  FakeBackend backend;
  backend.set_capacity(4096);
  CachingAllocator a(&backend);
  void* kept = Alloc(a, 1024, kS1, "s");
  void* freed = Alloc(a, 1024, kS1, "s");
  ASSERT_TRUE(a.Free(freed, kS1).ok());
  absl::StatusOr<void*> r = a.Allocate(4000, kS1, "session-7");
  ASSERT_TRUE(absl::IsResourceExhausted(r.status())) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("out of device memory"));
  EXPECT_THAT(r.status().message(), HasSubstr("asked for 3.91 KiB (4000 bytes)"));
  EXPECT_THAT(r.status().message(), HasSubstr("owner 'session-7'"));
  EXPECT_THAT(r.status().message(), HasSubstr("in use 1.00 KiB (1024 bytes) in 1 blocks"));
  EXPECT_THAT(r.status().message(),
              HasSubstr("cached 1.00 KiB (1024 bytes) (handed back to the device, then "
                        "retried)"));
  EXPECT_THAT(r.status().message(), HasSubstr("fake device: out of memory"));
  EXPECT_EQ(a.Stats().oom_trims, 1);
  EXPECT_EQ(backend.held(), 1024u);  // only the block in use
  // With nothing cached there is no retry.
  r = a.Allocate(4000, kS1, "s");
  EXPECT_TRUE(absl::IsResourceExhausted(r.status()));
  EXPECT_THAT(r.status().message(), HasSubstr("cached 0 bytes;"));
  EXPECT_EQ(a.Stats().oom_trims, 1);
  ASSERT_TRUE(a.Free(kept, kS1).ok());
}

TEST(CachingAllocatorTest, OtherBackendErrorsPassThroughWithoutATrim) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  ASSERT_TRUE(a.Free(Alloc(a, 100, kS1), kS1).ok());
  backend.FailNextMalloc(absl::InternalError("illegal address"));
  absl::StatusOr<void*> r = a.Allocate(100000, kS1, "");
  EXPECT_TRUE(absl::IsInternal(r.status())) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("illegal address"));
  EXPECT_EQ(a.Stats().oom_trims, 0);
  EXPECT_EQ(a.Stats().blocks_cached, 1u);
}

TEST(CachingAllocatorTest, AccountsBytesInUseAndPeakPerOwner) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  void* a1 = Alloc(a, 1000, kS1, "a");
  void* a2 = Alloc(a, 2000, kS1, "a");
  void* b1 = Alloc(a, 10, kS2, "b");
  AllocatorStats stats = a.Stats();
  EXPECT_EQ(stats.owners["a"].bytes_in_use, 3072u);
  EXPECT_EQ(stats.owners["a"].blocks_in_use, 2u);
  EXPECT_EQ(stats.owners["b"].bytes_in_use, 512u);
  EXPECT_EQ(stats.bytes_in_use, 3584u);
  ASSERT_TRUE(a.Free(a1, kS1).ok());
  // a's freed block serves b: the cache is shared, the charge follows the new
  // owner.
  EXPECT_EQ(Alloc(a, 600, kS1, "b"), a1);
  stats = a.Stats();
  EXPECT_EQ(stats.owners["a"].bytes_in_use, 2048u);
  EXPECT_EQ(stats.owners["a"].peak_bytes_in_use, 3072u);
  EXPECT_EQ(stats.owners["b"].bytes_in_use, 1536u);
  EXPECT_EQ(stats.peak_bytes_in_use, 3584u);

  absl::Status leak = a.ReleaseOwner("a");
  EXPECT_TRUE(absl::IsFailedPrecondition(leak)) << leak;
  EXPECT_THAT(leak.message(), HasSubstr("owner 'a'"));
  EXPECT_THAT(leak.message(), HasSubstr("1 blocks (2.00 KiB (2048 bytes)) still in use"));
  EXPECT_EQ(a.Stats().owners.count("a"), 1u);
  ASSERT_TRUE(a.Free(a2, kS1).ok());
  EXPECT_TRUE(a.ReleaseOwner("a").ok());
  EXPECT_EQ(a.Stats().owners.count("a"), 0u);
  EXPECT_TRUE(a.ReleaseOwner("never-seen").ok());
  ASSERT_TRUE(a.Free(b1, kS2).ok());
  ASSERT_TRUE(a.Free(a1, kS1).ok());
  EXPECT_TRUE(a.ReleaseOwner("b").ok());
  EXPECT_TRUE(a.Stats().owners.empty());
}

TEST(CachingAllocatorTest, TrimReturnsEveryCachedByteToTheBackend) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  std::vector<std::pair<void*, Stream>> live;
  for (int i = 0; i < 30; ++i) {
    Stream s = (i % 3 == 0) ? kS1 : (i % 3 == 1) ? kS2 : kS3;
    live.emplace_back(Alloc(a, 700 * (i + 1), s, i % 2 ? "x" : "y"), s);
  }
  // Free half on other streams, leaving pending events on some cached blocks.
  for (size_t i = 0; i < live.size(); ++i) {
    ASSERT_TRUE(a.Free(live[i].first, i % 2 ? kS1 : live[i].second).ok());
  }
  Alloc(a, 700, kS2, "z");  // records events on S1/S3 blocks, none complete
  EXPECT_GT(backend.live_events(), 0u);
  const size_t cached = a.Stats().bytes_cached;
  EXPECT_EQ(a.Trim(), cached);
  AllocatorStats stats = a.Stats();
  EXPECT_EQ(stats.bytes_cached, 0u);
  EXPECT_EQ(stats.bytes_backend, stats.bytes_in_use);
  EXPECT_EQ(backend.held(), stats.bytes_in_use);
  EXPECT_EQ(backend.live_events(), 0u);
  EXPECT_EQ(a.Trim(), 0u);
}

TEST(CachingAllocatorTest, AfterAllFreesAndTrimTheBackendHoldsNothing) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  std::vector<void*> ptrs;
  for (int i = 1; i <= 20; ++i) ptrs.push_back(Alloc(a, i * 1500, i % 2 ? kS1 : kS2, "s"));
  for (size_t i = 0; i < ptrs.size(); ++i) ASSERT_TRUE(a.Free(ptrs[i], kS3).ok());
  EXPECT_TRUE(a.ReleaseOwner("s").ok());
  a.Trim();
  EXPECT_EQ(backend.held(), 0u);
  EXPECT_EQ(backend.mallocs(), backend.frees());
  AllocatorStats stats = a.Stats();
  EXPECT_EQ(stats.bytes_backend, 0u);
  EXPECT_EQ(stats.blocks_in_use + stats.blocks_cached, 0u);
}

TEST(CachingAllocatorTest, DestructorHandsTheCacheBack) {
  FakeBackend backend;
  {
    CachingAllocator a(&backend);
    ASSERT_TRUE(a.Free(Alloc(a, 5000, kS1), kS1).ok());
    ASSERT_TRUE(a.Free(Alloc(a, 5000, kS2), kS2).ok());
    Alloc(a, 5000, kS3);  // records events, then allocates fresh
    // The block in use at destruction is left to the backend (documented).
  }
  EXPECT_EQ(backend.held(), 5120u);
  EXPECT_EQ(backend.live_events(), 0u);
}

TEST(CachingAllocatorTest, UnknownPointerAndDoubleFreeAreInvalidArguments) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  EXPECT_TRUE(a.Free(nullptr, kS1).ok());
  int not_device = 0;
  absl::Status s = a.Free(&not_device, kS1);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("did not hand out"));
  void* p = Alloc(a, 100, kS1);
  ASSERT_TRUE(a.Free(p, kS2).ok());
  s = a.Free(p, kS1);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("double free"));
  EXPECT_THAT(s.message(), HasSubstr("freed before on stream 0x22"));
  a.Trim();
  s = a.Free(p, kS1);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("trimmed already"));
  EXPECT_EQ(a.Stats().bytes_in_use, 0u);  // failed frees changed nothing
}

TEST(CachingAllocatorTest, AFailedEventRecordKeepsTheBlockOnItsStream) {
  FakeBackend backend;
  CachingAllocator a(&backend);
  void* p = Alloc(a, 1000, kS1);
  ASSERT_TRUE(a.Free(p, kS1).ok());
  backend.set_fail_record(true);
  EXPECT_NE(Alloc(a, 1000, kS2), p);
  EXPECT_EQ(Alloc(a, 1000, kS1), p);
}

TEST(CachingAllocatorTest, ConcurrentAllocateAndFreeFromManyThreads) {
  FakeBackend backend;
  backend.set_auto_complete(true);
  CachingAllocator a(&backend);
  absl::Mutex mu;
  std::set<void*> live;  // no pointer may be handed out twice while live
  int duplicates = 0;
  constexpr int kThreads = 8, kIters = 3000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      const Stream stream = 0x100 + t % 3;
      const std::string owner = "session-" + std::to_string(t % 4);
      std::vector<void*> mine;
      for (int i = 0; i < kIters; ++i) {
        if (mine.size() < 6 && (mine.empty() || rng() % 2)) {
          absl::StatusOr<void*> p = a.Allocate(1 + rng() % 20000, stream, owner);
          ASSERT_TRUE(p.ok()) << p.status();
          absl::MutexLock lock(&mu);
          if (!live.insert(*p).second) ++duplicates;
          mine.push_back(*p);
        } else {
          void* p = mine[rng() % mine.size()];
          mine.erase(std::find(mine.begin(), mine.end(), p));
          {
            absl::MutexLock lock(&mu);
            live.erase(p);
          }
          ASSERT_TRUE(a.Free(p, stream).ok());
        }
        if (i % 500 == 0 && t == 0) a.Trim();
      }
      for (void* p : mine) {
        {
          absl::MutexLock lock(&mu);
          live.erase(p);
        }
        ASSERT_TRUE(a.Free(p, stream).ok());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(duplicates, 0);
  AllocatorStats stats = a.Stats();
  EXPECT_EQ(stats.bytes_in_use, 0u);
  EXPECT_GT(stats.cache_hits, 0);
  for (const auto& [owner, o] : stats.owners) {
    EXPECT_EQ(o.bytes_in_use, 0u) << owner;
    EXPECT_GT(o.peak_bytes_in_use, 0u) << owner;
    EXPECT_TRUE(a.ReleaseOwner(owner).ok());
  }
  a.Trim();
  EXPECT_EQ(backend.held(), 0u);
  EXPECT_EQ(backend.live_events(), 0u);
}

}  // namespace
}  // namespace graphd::executor::gpu
