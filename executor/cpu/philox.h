// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"), the
// counter-based generator behind the stateless random ops: block i of a stream is a
// pure function of (key, counter = i), so the same seed gives the same values on every
// run, thread and device.
#ifndef GRAPHD_EXECUTOR_CPU_PHILOX_H_
#define GRAPHD_EXECUTOR_CPU_PHILOX_H_

#include <array>
#include <cstdint>

namespace graphd::executor::cpu {

using PhiloxBlock = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

inline PhiloxBlock Philox4x32(PhiloxBlock counter, PhiloxKey key) {
  constexpr uint32_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57;
  constexpr uint32_t kW0 = 0x9E3779B9, kW1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kM0} * counter[0];
    const uint64_t p1 = uint64_t{kM1} * counter[2];
    counter = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ key[0], static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += kW0;
    key[1] += kW1;
  }
  return counter;
}

// A float in [0, 1) from the top 24 bits of `x`.
inline float Uint32ToFloat(uint32_t x) { return static_cast<float>(x >> 8) * 0x1p-24f; }

// A double in [0, 1) from the top 53 bits of (hi, lo).
inline double Uint64ToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (uint64_t{hi} << 32) | lo;
  return static_cast<double>(bits >> 11) * 0x1p-53;
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_PHILOX_H_
