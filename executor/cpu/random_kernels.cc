// StatelessRandomUniform ([0, 1)) and StatelessRandomNormal (Box-Muller) from Philox
// 4x32-10. The seed's first int is the key; block b of the output uses the counter
// (b, seed[1]). float32 takes one 32-bit word per uniform, float64 two.
// RandomUniform and RandomStandardNormal (stateful) do the same from a block offset
// that each run advances past the blocks it used, so every run draws new numbers
// (one stream per kernel, shared by the sessions running its plan; runs reserve their
// blocks atomically). A seed of [0, 0] takes one from the system's random device.
#include <atomic>
#include <cmath>
#include <numbers>
#include <random>

#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/philox.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kBlocksPerCheck = int64_t{1} << 14;

class RandomKernel : public OpKernel {
 public:
  RandomKernel(bool normal, bool stateful, Shape shape, IntList seed)
      : normal_(normal), stateful_(stateful), shape_(std::move(shape)) {
    unseeded_ = stateful && seed[0] == 0 && seed[1] == 0;
    if (unseeded_) {
      std::random_device device;
      seed = {static_cast<int64_t>((uint64_t{device()} << 32) | device()), static_cast<int64_t>(device())};
    }
    const uint64_t s0 = static_cast<uint64_t>(seed[0]), s1 = static_cast<uint64_t>(seed[1]);
    key_ = {static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32)};
    stream_ = {static_cast<uint32_t>(s1), static_cast<uint32_t>(s1 >> 32)};
  }

  Status Compute(KernelContext& ctx) override {
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, shape_));
    const int64_t n = out->num_elements();
    const bool f32 = out->dtype() == DType::kFloat32;
    const int64_t per_block = f32 ? 4 : 2;  // values one Philox block yields
    const uint64_t blocks = static_cast<uint64_t>((n + per_block - 1) / per_block);
    // A stateful op's stream position (and an unseeded one's key) belong to the
    // session running it: the plan may be shared by many.
    uint64_t first = 0;
    PhiloxKey key = key_;
    if (stateful_ && ctx.variable_store() != nullptr) {
      first = ctx.variable_store()->TakeRandomBlocks(id_, blocks);
      if (unseeded_) {
        const uint64_t salt = ctx.variable_store()->random_salt();
        key = {key_[0] ^ static_cast<uint32_t>(salt), key_[1] ^ static_cast<uint32_t>(salt >> 32)};
      }
    } else if (stateful_) {
      first = next_block_.fetch_add(blocks, std::memory_order_relaxed);
    }
    for (int64_t b = 0; b * per_block < n; ++b) {
      if (b % kBlocksPerCheck == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
      const uint64_t ub = first + static_cast<uint64_t>(b);
      PhiloxBlock r = Philox4x32(
          {static_cast<uint32_t>(ub), static_cast<uint32_t>(ub >> 32), stream_[0], stream_[1]}, key);
      double u[4];
      if (f32) {
        for (int i = 0; i < 4; ++i) u[i] = Uint32ToFloat(r[i]);
      } else {
        u[0] = Uint64ToDouble(r[0], r[1]);
        u[1] = Uint64ToDouble(r[2], r[3]);
      }
      if (normal_) {
        for (int i = 0; i < per_block; i += 2) {  // Box-Muller; 1 - u is in (0, 1]
          const double radius = std::sqrt(-2.0 * std::log(1.0 - u[i]));
          const double theta = 2.0 * std::numbers::pi * u[i + 1];
          u[i] = radius * std::cos(theta);
          u[i + 1] = radius * std::sin(theta);
        }
      }
      const int64_t count = std::min(per_block, n - b * per_block);
      for (int64_t i = 0; i < count; ++i) {
        if (f32) {
          out->data<float>()[b * 4 + i] = static_cast<float>(u[i]);
        } else {
          out->data<double>()[b * 2 + i] = u[i];
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool normal_;
  bool stateful_;
  Shape shape_;
  PhiloxKey key_;
  std::array<uint32_t, 2> stream_;
  bool unseeded_ = false;
  std::atomic<uint64_t> next_block_{0};  // stateful, run without a session: the next run's first block
  const uint64_t id_ = NextId();         // names its stream in each session's VariableStore

  static uint64_t NextId() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
};

KernelFactory Factory(bool normal, bool stateful) {
  return [normal, stateful](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::make_unique<RandomKernel>(normal, stateful, Shape(AttrOr<IntList>(node, "shape", {})),
                                          AttrOr<IntList>(node, "seed", {0, 0}));
  };
}

}  // namespace

void RegisterRandomKernels(KernelRegistry& r) {
  const auto dtypes = {DType::kFloat32, DType::kFloat64};
  r.Register("StatelessRandomUniform", kCpu, dtypes, Factory(false, false));
  r.Register("StatelessRandomNormal", kCpu, dtypes, Factory(true, false));
  r.Register("RandomUniform", kCpu, dtypes, Factory(false, true));
  r.Register("RandomStandardNormal", kCpu, dtypes, Factory(true, true));
}

}  // namespace graphd::executor::cpu
