#include "core/buffer_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "core/memory_account.h"
#include "core/sanitizers.h"
#include "core/tensor.h"

namespace graphd {
namespace {

constexpr size_t kBlock = size_t{64} << 10;

// Each test starts from an empty cache of `capacity` bytes and leaves the default.
class BufferCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(GRAPHD_SANITIZED_MALLOC)
    GTEST_SKIP() << "the cache is off under the sanitizers (they must see every free)";
#endif
    FlushBufferCache();
    SetBufferCacheCapacity(kDefaultBufferCacheBytes);
  }
  void TearDown() override {
    FlushBufferCache();
    SetBufferCacheCapacity(kDefaultBufferCacheBytes);
  }
};

TEST_F(BufferCacheTest, AFreedBlockComesBackForTheNextOfItsSizeLastFreedFirst) {
  void* a = TakeHostBlock(kBlock);
  void* b = TakeHostBlock(kBlock);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % kTensorAlignment, 0u);
  ReturnHostBlock(a, kBlock);
  ReturnHostBlock(b, kBlock);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(2 * kBlock));
  EXPECT_EQ(TakeHostBlock(kBlock), b);
  EXPECT_EQ(TakeHostBlock(kBlock), a);
  EXPECT_EQ(BufferCacheBytes(), 0);
  ReturnHostBlock(a, kBlock);
  ReturnHostBlock(b, kBlock);
}

// The tests below take kMaxBlockOversize as 4.
static_assert(kMaxBlockOversize == 4);

TEST_F(BufferCacheTest, ASmallerBlockOrOneOverFourTimesTheSizeIsNeverHandedOut) {
  void* a = TakeHostBlock(4 * kBlock);
  ReturnHostBlock(a, 4 * kBlock);
  void* bigger = TakeHostBlock(8 * kBlock);
  EXPECT_NE(bigger, a);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(4 * kBlock));  // a still waits
  std::memset(bigger, 1, 8 * kBlock);                                 // all of it is ours
  ReturnHostBlock(bigger, 8 * kBlock);
  void* small = TakeHostBlock(kBlock - 4096);  // may take up to 4 * kBlock - 16 KB: neither
  EXPECT_NE(small, a);
  EXPECT_NE(small, bigger);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(12 * kBlock));
  ReturnHostBlock(small, kBlock - 4096);
}

TEST_F(BufferCacheTest, WithoutItsSizeAnAllocationTakesTheLatestReturnedUpToFourTimesItsSize) {
  constexpr size_t kAsked = kBlock / 2 - 4096, kMid = kBlock + kBlock / 2;
  void* a = TakeHostBlock(kBlock);
  void* b = TakeHostBlock(4 * kBlock);
  void* c = TakeHostBlock(kMid);
  ReturnHostBlock(b, 4 * kBlock);
  ReturnHostBlock(a, kBlock);
  ReturnHostBlock(c, kMid);
  // kAsked may take a block of up to 4 * kAsked: a or c (b is larger); c came back last.
  void* x = TakeHostBlock(kAsked);
  EXPECT_EQ(x, c);
  // a and b, and c's surplus while it is out.
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(kBlock + 4 * kBlock + (kMid - kAsked)));
  std::memset(x, 1, kAsked);
  ReturnHostBlock(x, kAsked);  // back at its real size
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(kBlock + 4 * kBlock + kMid));
  // A block of the size asked for comes first, though c came back later.
  EXPECT_EQ(TakeHostBlock(kBlock), a);
  EXPECT_EQ(TakeHostBlock(kMid), c);
  EXPECT_EQ(TakeHostBlock(kBlock), b);  // none of its size left: b, four times as large
  std::memset(b, 1, kBlock);
  ReturnHostBlock(a, kBlock);
  ReturnHostBlock(c, kMid);
  ReturnHostBlock(b, kBlock);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(kBlock + 4 * kBlock + kMid));
}

TEST_F(BufferCacheTest, TheSurplusOfABlockHandedOutCountsAgainstTheCapacity) {
  SetBufferCacheCapacity(2 * kBlock);
  void* b = TakeHostBlock(2 * kBlock);
  ReturnHostBlock(b, 2 * kBlock);
  void* x = TakeHostBlock(kBlock);
  EXPECT_EQ(x, b);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(kBlock));  // the surplus
  void* y = TakeHostBlock(2 * kBlock);
  ReturnHostBlock(y, 2 * kBlock);  // with the surplus over the capacity: freed again
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(kBlock));
  ReturnHostBlock(x, kBlock);  // b, whole, fits
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(2 * kBlock));
  EXPECT_EQ(TakeHostBlock(2 * kBlock), b);
  ReturnHostBlock(b, 2 * kBlock);
}

TEST_F(BufferCacheTest, SmallBlocksAreFreedAtOnce) {
  const size_t small = kMinCachedBytes - kTensorAlignment;
  ReturnHostBlock(TakeHostBlock(small), small);
  EXPECT_EQ(BufferCacheBytes(), 0);
  ReturnHostBlock(TakeHostBlock(kMinCachedBytes), kMinCachedBytes);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(kMinCachedBytes));
}

TEST_F(BufferCacheTest, PastTheCapacityTheBlocksFreedLongestAgoGo) {
  SetBufferCacheCapacity(3 * kBlock);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(TakeHostBlock(kBlock));
  void* other = TakeHostBlock(2 * kBlock);
  ReturnHostBlock(other, 2 * kBlock);  // oldest: goes first
  for (void* b : blocks) ReturnHostBlock(b, kBlock);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(3 * kBlock));
  // The three kept are the last three returned, newest first; blocks[0] went.
  EXPECT_EQ(TakeHostBlock(kBlock), blocks[3]);
  EXPECT_EQ(TakeHostBlock(kBlock), blocks[2]);
  EXPECT_EQ(TakeHostBlock(kBlock), blocks[1]);
  EXPECT_EQ(BufferCacheBytes(), 0);
  for (int i = 1; i < 4; ++i) ReturnHostBlock(blocks[i], kBlock);

  // A block larger than the whole capacity is not kept at all.
  ReturnHostBlock(TakeHostBlock(4 * kBlock), 4 * kBlock);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(3 * kBlock));
  // Lowering the capacity frees what no longer fits; 0 keeps nothing.
  SetBufferCacheCapacity(kBlock);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(kBlock));
  SetBufferCacheCapacity(0);
  EXPECT_EQ(BufferCacheBytes(), 0);
  ReturnHostBlock(TakeHostBlock(kBlock), kBlock);
  EXPECT_EQ(BufferCacheBytes(), 0);
}

TEST_F(BufferCacheTest, FlushFreesEverything) {
  ReturnHostBlock(TakeHostBlock(kBlock), kBlock);
  ReturnHostBlock(TakeHostBlock(3 * kBlock), 3 * kBlock);
  EXPECT_EQ(BufferCacheBytes(), static_cast<int64_t>(4 * kBlock));
  FlushBufferCache();
  EXPECT_EQ(BufferCacheBytes(), 0);
  EXPECT_EQ(BufferCacheCapacity(), kDefaultBufferCacheBytes);  // a flush keeps the capacity
}

TEST_F(BufferCacheTest, TensorsReuseTheStorageOfTheirSizeAndAccountsAreCreditedAtFree) {
  MemoryAccount account("test", 0);
  ScopedMemoryAccount scope(&account);
  const void* first;
  {
    Tensor t = Tensor::Allocate(DType::kFloat32, Shape({128, 128})).value();
    first = t.raw_data();
    EXPECT_EQ(account.used(), 128 * 128 * 4);
  }
  EXPECT_EQ(account.used(), 0);  // cached storage is charged to nobody
  Tensor again = Tensor::Allocate(DType::kInt32, Shape({16384})).value();  // same bytes, another dtype
  EXPECT_EQ(again.raw_data(), first);
  // Strings are constructed in reused storage too.
  Tensor strings = Tensor::Allocate(DType::kString, Shape({2048})).value();
  for (const std::string& s : strings.flat<std::string>()) EXPECT_TRUE(s.empty());
}

TEST_F(BufferCacheTest, ThreadsTakingAndReturningAtOnceStayWithinTheCapacity) {
  SetBufferCacheCapacity(8 * kBlock);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 2000; ++i) {
        const size_t bytes = kBlock * (1 + (i + t) % 3);
        auto* p = static_cast<unsigned char*>(TakeHostBlock(bytes));
        p[0] = p[bytes - 1] = static_cast<unsigned char>(i);
        ReturnHostBlock(p, bytes);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(BufferCacheBytes(), static_cast<int64_t>(8 * kBlock));
  EXPECT_GT(BufferCacheBytes(), 0);
}

}  // namespace
}  // namespace graphd
