#include "server/malloc_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace graphd::server {
namespace {

#if defined(__GLIBC__)
// Heaps glibc reports in malloc_info (one per arena).
int ArenaCount() {
  char* text = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  malloc_info(0, f);
  std::fclose(f);
  std::string xml(text, size);
  std::free(text);
  int n = 0;
  for (size_t at = xml.find("<heap nr="); at != std::string::npos; at = xml.find("<heap nr=", at + 1)) ++n;
  return n;
}

// One test so that the process-wide settings apply from its start on.
TEST(MallocTuningTest, LargeBlocksStayInTheHeapAndArenasAreCapped) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan replaces glibc's malloc, whose settings this test checks";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "ASan replaces glibc's malloc, whose settings this test checks";
#endif
#endif
  ASSERT_TRUE(TuneMalloc(2));

  // A 9.6 MB block (a ResNet batch of 16) no longer gets its own mmap.
  int mmapped_before = mallinfo2().hblks;
  std::vector<char*> blocks;
  for (int i = 0; i < 3; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(9633792)));
    ASSERT_NE(blocks.back(), nullptr);
    blocks.back()[0] = 1;
  }
  EXPECT_EQ(mallinfo2().hblks, mmapped_before);
  for (char* b : blocks) std::free(b);

  // Many threads allocating at once share at most two arenas.
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 200; ++i) {
        void* p = std::malloc(1000 + i);
        std::this_thread::yield();
        std::free(p);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(ArenaCount(), 2);

  ReleaseFreeMemory();  // safe at any time
}
#else
TEST(MallocTuningTest, ReportsNotAppliedOutsideGlibc) { EXPECT_FALSE(TuneMalloc(2)); }
#endif

}  // namespace
}  // namespace graphd::server
