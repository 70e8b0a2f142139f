#include "server/malloc_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Under a sanitizer its own allocator serves malloc, and glibc's is never set up:
// malloc_trim then initialises glibc's arenas lazily, without a lock, and two threads
// trimming at once crashed an ASan server (a null arena in mtrim). There is nothing
// of glibc's to tune or trim.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GRAPHD_SANITIZED_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GRAPHD_SANITIZED_MALLOC 1
#endif

namespace graphd::server {

bool TuneMalloc(int arenas) {
#if defined(__GLIBC__) && !defined(GRAPHD_SANITIZED_MALLOC)
  bool ok = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kKeepBlockBytes)) == 1;
  ok = mallopt(M_MMAP_MAX, 0) == 1 && ok;
  ok = mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimThresholdBytes)) == 1 && ok;
  if (arenas > 0) ok = mallopt(M_ARENA_MAX, arenas) == 1 && ok;
  return ok;
#else
  (void)arenas;
  return false;
#endif
}

void ReleaseFreeMemory() {
#if defined(__GLIBC__) && !defined(GRAPHD_SANITIZED_MALLOC)
  malloc_trim(0);
#endif
}

}  // namespace graphd::server
