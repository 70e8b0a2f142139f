#include "server/malloc_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/buffer_cache.h"
#include "core/sanitizers.h"

// Under a sanitizer its own allocator serves malloc (core/sanitizers.h), and glibc's is
// never set up: malloc_trim then initialises glibc's arenas lazily, without a lock, and
// two threads trimming at once crashed an ASan server (a null arena in mtrim). There
// is nothing of glibc's to tune or trim.
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
  FlushBufferCache();
#if defined(__GLIBC__) && !defined(GRAPHD_SANITIZED_MALLOC)
  malloc_trim(0);
#endif
}

}  // namespace graphd::server
