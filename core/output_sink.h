// Text a run prints (tf.print and runtime print), kept per call and returned to the
// client with the call's result. Thread-safe.
#ifndef GRAPHD_CORE_OUTPUT_SINK_H_
#define GRAPHD_CORE_OUTPUT_SINK_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace graphd {

class OutputSink {
 public:
  enum class Stream { kStdout, kStderr };

  void Write(Stream stream, absl::string_view text) {
    absl::MutexLock lock(&mu_);
    (stream == Stream::kStdout ? stdout_ : stderr_).append(text.data(), text.size());
  }
  std::string TakeStdout() {
    absl::MutexLock lock(&mu_);
    return std::move(stdout_);
  }
  std::string TakeStderr() {
    absl::MutexLock lock(&mu_);
    return std::move(stderr_);
  }

 private:
  absl::Mutex mu_;
  std::string stdout_ ABSL_GUARDED_BY(mu_);
  std::string stderr_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphd

#endif  // GRAPHD_CORE_OUTPUT_SINK_H_
