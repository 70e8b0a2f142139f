// The fingerprint of a large byte string (a model's bytes) hashed in fixed blocks, so
// that bytes arriving in pieces (a chunked upload) can be hashed as they come, with
// the same result as hashing them all at once: the blocks, not the pieces, decide
// what goes into each step.
//
// Not thread-safe (a value).
#ifndef GRAPHD_CORE_BLOCK_FINGERPRINT_H_
#define GRAPHD_CORE_BLOCK_FINGERPRINT_H_

#include <cstddef>

#include "absl/strings/string_view.h"
#include "core/fingerprint.h"

namespace graphd {

class BlockFingerprinter {
 public:
  static constexpr size_t kBlockBytes = size_t{1} << 20;

  // Hashes the blocks of `bytes` that are complete and not hashed yet. Every call
  // must see the bytes of the one before, and more (a buffer that grows).
  void Advance(absl::string_view bytes) {
    while (bytes.size() - hashed_ >= kBlockBytes) {
      f_.Add(bytes.substr(hashed_, kBlockBytes));
      hashed_ += kBlockBytes;
    }
  }
  // Hashes the rest of `bytes`, which are complete, and returns the fingerprint.
  Fingerprint Finish(absl::string_view bytes) {
    Advance(bytes);
    f_.Add(bytes.substr(hashed_)).AddInt(static_cast<int64_t>(bytes.size()));
    hashed_ = bytes.size();
    return f_.Finish();
  }

 private:
  Fingerprinter f_;
  size_t hashed_ = 0;
};

// All of `bytes` at once.
inline Fingerprint BlockFingerprint(absl::string_view bytes) { return BlockFingerprinter().Finish(bytes); }

}  // namespace graphd

#endif  // GRAPHD_CORE_BLOCK_FINGERPRINT_H_
