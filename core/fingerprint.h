// A 128-bit content fingerprint, for content-addressed caches (compiler/cache): two
// independent 64-bit absl hash chains over the bytes added, in order, with each
// piece's length. absl's hash is seeded per process, so a client cannot craft two
// different contents with one fingerprint; a fingerprint is not stable across
// processes and must never be stored or sent.
//
// Not thread-safe (a builder is a value); Fingerprint is a plain value.
#ifndef GRAPHD_CORE_FINGERPRINT_H_
#define GRAPHD_CORE_FINGERPRINT_H_

#include <cstdint>
#include <string>

#include "absl/hash/hash.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace graphd {

struct Fingerprint {
  uint64_t hi = 0, lo = 0;

  bool operator==(const Fingerprint&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const Fingerprint& f) {
    return H::combine(std::move(h), f.hi, f.lo);
  }
  std::string ToString() const { return absl::StrFormat("%016x%016x", hi, lo); }
};

class Fingerprinter {
 public:
  Fingerprinter() = default;
  // Continues from `start` (a fingerprint of what came before).
  explicit Fingerprinter(const Fingerprint& start) : hi_(start.hi), lo_(start.lo) {}

  Fingerprinter& Add(absl::string_view bytes) {
    hi_ = absl::HashOf(hi_, bytes);
    lo_ = absl::HashOf(bytes.size(), lo_ ^ kSalt, bytes);
    return *this;
  }
  Fingerprinter& AddInt(int64_t v) {
    hi_ = absl::HashOf(hi_, v, uint8_t{1});
    lo_ = absl::HashOf(v, lo_ ^ kSalt, uint8_t{2});
    return *this;
  }
  Fingerprinter& AddFingerprint(const Fingerprint& f) { return AddInt(static_cast<int64_t>(f.hi)).AddInt(static_cast<int64_t>(f.lo)); }
  Fingerprint Finish() const { return {hi_, lo_}; }

 private:
  static constexpr uint64_t kSalt = 0x9e3779b97f4a7c15ull;
  uint64_t hi_ = 0x243f6a8885a308d3ull, lo_ = 0x13198a2e03707344ull;
};

}  // namespace graphd

#endif  // GRAPHD_CORE_FINGERPRINT_H_
