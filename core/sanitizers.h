// GRAPHD_SANITIZED_MALLOC is defined (as 1) when a sanitizer's own allocator serves
// malloc (ASan, TSan, MSan; with gcc or clang): glibc's is then never set up, and
// code that keeps freed memory for reuse would hide use-after-free from it.
#ifndef GRAPHD_CORE_SANITIZERS_H_
#define GRAPHD_CORE_SANITIZERS_H_

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GRAPHD_SANITIZED_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#ifndef GRAPHD_SANITIZED_MALLOC
#define GRAPHD_SANITIZED_MALLOC 1
#endif
#endif

#endif  // GRAPHD_CORE_SANITIZERS_H_
