#include "server/malloc_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace graphd::server {

bool TuneMalloc(int arenas) {
#if defined(__GLIBC__)
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
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace graphd::server
