// FusedElementwise (core/ops/elementwise_program.h): the program runs over blocks of
// kBlock elements; each instruction is one loop over the block (vectorised, with
// AVX-512 or AVX2 where the CPU has them), writing a scratch buffer that stays in
// L1/L2 (buffers are reused once their value is dead), the last instruction writing
// the output. Large tensors are split by blocks across the OpenMP team (the threads
// oneDNN primitives use, TeamThreads), smaller ones run on the calling thread. The
// inputs reach the output unchanged, as scalars or by a channel broadcast (a batch
// norm's per-channel operands: spread into a scratch block first; channels-last ones
// once per thread, blocks then being multiples of the channel count). The
// functions are those of the unfused kernels: the same arithmetic for Neg, Abs,
// Square, Sqrt, Rsqrt, Reciprocal, Relu, Add, Sub, Mul, Div, Maximum, Minimum; exp,
// log, tanh and sigmoid from fast_math.h (within ~1.5 ulp of the C library; the
// unfused kernels use oneDNN's versions on large tensors, a few ulp off).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/ops/elementwise_program.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/nan_min_max.h"
#include "executor/cpu/fast_math.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

using ops::EwOp;
using ops::EwOperand;

constexpr int64_t kBlock = 1024;
// Work (elements times the program's cost, ~1 per cheap op) a thread should get before
// splitting pays: tens of microseconds, well above waking the OpenMP team.
constexpr int64_t kParallelWork = int64_t{1} << 18;
constexpr int64_t kBlocksPerCancellationCheck = 64;

// One operand as the loops read it: a pointer to kBlock values, or one value.
struct Src {
  const float* p = nullptr;
  float v = 0.f;
};

template <typename F>
__attribute__((always_inline)) inline void Binary(F f, Src a, Src b, float* __restrict d, int64_t m) {
  if (a.p != nullptr && b.p != nullptr) {
    const float* pa = a.p;
    const float* pb = b.p;
    for (int64_t i = 0; i < m; ++i) d[i] = f(pa[i], pb[i]);
  } else if (a.p != nullptr) {
    const float* pa = a.p;
    const float vb = b.v;
    for (int64_t i = 0; i < m; ++i) d[i] = f(pa[i], vb);
  } else if (b.p != nullptr) {
    const float va = a.v;
    const float* pb = b.p;
    for (int64_t i = 0; i < m; ++i) d[i] = f(va, pb[i]);
  } else {
    std::fill(d, d + m, f(a.v, b.v));
  }
}

// Unary ops run as Binary(f, a, a) with f ignoring its second argument. `d` never
// overlaps an operand (see the slot assignment).
// Compiled three times: AVX-512 (x86-64-v4), AVX2 and the baseline (SSE2), picked at
// load time. The file is compiled with -ffp-contract=off, so all give the same values.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void Run(EwOp op, Src a, Src b, float* d, int64_t m) {
  namespace fm = fast_math;
  switch (op) {
    case EwOp::kNeg: return Binary([](float x, float) { return -x; }, a, a, d, m);
    case EwOp::kAbs: return Binary([](float x, float) { return std::abs(x); }, a, a, d, m);
    case EwOp::kSquare: return Binary([](float x, float) { return x * x; }, a, a, d, m);
    case EwOp::kExp: return Binary([](float x, float) { return fm::Exp(x); }, a, a, d, m);
    case EwOp::kLog: return Binary([](float x, float) { return fm::Log(x); }, a, a, d, m);
    case EwOp::kSqrt: return Binary([](float x, float) { return std::sqrt(x); }, a, a, d, m);
    case EwOp::kRsqrt: return Binary([](float x, float) { return 1.f / std::sqrt(x); }, a, a, d, m);
    case EwOp::kReciprocal: return Binary([](float x, float) { return 1.f / x; }, a, a, d, m);
    case EwOp::kTanh: return Binary([](float x, float) { return fm::Tanh(x); }, a, a, d, m);
    case EwOp::kSigmoid: return Binary([](float x, float) { return fm::Sigmoid(x); }, a, a, d, m);
    case EwOp::kRelu: return Binary([](float x, float) { return x > 0.f ? x : 0.f; }, a, a, d, m);
    case EwOp::kErf: return Binary([](float x, float) { return fm::Erf(x); }, a, a, d, m);
    case EwOp::kAdd: return Binary([](float x, float y) { return x + y; }, a, b, d, m);
    case EwOp::kSub: return Binary([](float x, float y) { return x - y; }, a, b, d, m);
    case EwOp::kMul: return Binary([](float x, float y) { return x * y; }, a, b, d, m);
    case EwOp::kDiv: return Binary([](float x, float y) { return x / y; }, a, b, d, m);
    case EwOp::kMax: return Binary([](float x, float y) { return MaxNaN(x, y); }, a, b, d, m);
    case EwOp::kMin: return Binary([](float x, float y) { return MinNaN(x, y); }, a, b, d, m);
  }
}

// Uninitialised buffers of `size` floats for the program's values, 64-byte aligned.
class Scratch {
 public:
  Scratch(int slots, int64_t size)
      : size_(size), stride_((size + 15) / 16 * 16), data_(new float[slots * stride_ + 16]) {}
  float* slot(int i) {
    auto base = reinterpret_cast<uintptr_t>(data_.get());
    return reinterpret_cast<float*>((base + 63) / 64 * 64) + i * stride_;
  }
  int64_t size() const { return size_; }
  // Whether the channel inputs' slots hold their values for every block already.
  bool spread = false;

 private:
  int64_t size_;
  int64_t stride_;
  std::unique_ptr<float[]> data_;
};

class FusedElementwiseKernel : public OpKernel {
 public:
  explicit FusedElementwiseKernel(ops::ElementwiseProgram program) : program_(std::move(program)) {
    // Scratch buffers: instruction j's value lives in slot_[j] until its last use.
    const int n = static_cast<int>(program_.instrs.size());
    std::vector<int> last_use(n, -1);
    for (int j = 0; j < n; ++j) {
      for (const EwOperand& o : program_.instrs[j].operands) {
        if (o.kind == EwOperand::Kind::kTemp) last_use[o.index] = j;
      }
    }
    for (const ops::EwInstr& in : program_.instrs) {
      const bool transcendental = in.op == EwOp::kExp || in.op == EwOp::kLog || in.op == EwOp::kTanh ||
                                  in.op == EwOp::kSigmoid || in.op == EwOp::kErf;
      cost_ += transcendental ? 8 : 1;
    }
    slot_.assign(n, -1);
    std::vector<int> free;
    for (int j = 0; j + 1 < n; ++j) {
      // A fresh slot (never an operand's: in-place loops fail GCC's run-time alias
      // check and run unvectorised), then the operands that die here free theirs.
      if (free.empty()) {
        slot_[j] = num_slots_++;
      } else {
        slot_[j] = free.back();
        free.pop_back();
      }
      for (const EwOperand& o : program_.instrs[j].operands) {
        if (o.kind == EwOperand::Kind::kTemp && last_use[o.index] == j &&
            std::find(free.begin(), free.end(), slot_[o.index]) == free.end()) {
          free.push_back(slot_[o.index]);
        }
      }
    }
  }

  Status Compute(KernelContext& ctx) override {
    const int num_inputs = ctx.num_inputs();
    ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, shape));
    const int64_t n = y->num_elements();
    if (n == 0) return absl::OkStatus();
    Inputs in;
    in.src.resize(num_inputs);
    in.channel_of.assign(num_inputs, -1);
    for (int i = 0; i < num_inputs; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.shape().rank() == 0) {
        in.src[i].v = t.data<float>()[0];
      } else if (t.shape() == shape) {
        in.src[i].p = t.data<float>();
      } else {  // checked by OutputShape
        const ops::ChannelBroadcast b = *ops::ChannelBroadcastOf(t.shape().dims(), shape.dims());
        in.channel_of[i] = static_cast<int>(in.channels.size());
        in.channels.push_back({.data = t.data<float>(), .channels = b.channels, .inner = b.inner});
      }
    }
    const int slots = num_slots_ + static_cast<int>(in.channels.size());
    float* out = y->data<float>();
    const int64_t block = BlockFor(in);
    const int64_t blocks = (n + block - 1) / block;
    const int team = TeamThreads();
    const int threads = static_cast<int>(std::min<int64_t>(team, n * cost_ / kParallelWork));
    if (threads > 1) {
#pragma omp parallel num_threads(threads)
      {
        Scratch scratch(slots, block);
#pragma omp for schedule(static)
        for (int64_t b = 0; b < blocks; ++b) RunBlock(in, b * block, std::min(block, n - b * block), out, scratch);
      }
      return absl::OkStatus();
    }
    Scratch scratch(slots, std::min(block, n));
    for (int64_t b = 0; b < blocks; ++b) {
      if (b % kBlocksPerCancellationCheck == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
      RunBlock(in, b * block, std::min(block, n - b * block), out, scratch);
    }
    return absl::OkStatus();
  }

 private:
  // An input broadcast per channel (ops::ChannelBroadcastOf): each block gets its
  // values spread into a scratch slot of its own.
  struct Channel {
    const float* data;
    int64_t channels, inner;
  };
  struct Inputs {
    std::vector<Src> src;         // scalars and full-shape inputs
    std::vector<Channel> channels;
    std::vector<int> channel_of;  // by input: its index in `channels`, or -1
    // Every channel input is channels-last (inner 1) with the same channel count, and
    // blocks start at multiples of it: each block's spread values are the same.
    bool periodic = false;
  };

  // The block length: a multiple of the channel count when every channel input is
  // channels-last with one count (then `in.periodic` is set), else kBlock.
  static int64_t BlockFor(Inputs& in) {
    if (in.channels.empty()) return kBlock;
    const int64_t c = in.channels[0].channels;
    for (const Channel& ch : in.channels) {
      if (ch.inner != 1 || ch.channels != c) return kBlock;
    }
    if (c > 4 * kBlock) return kBlock;
    in.periodic = true;
    return c * std::max<int64_t>(1, kBlock / c);
  }

  // The output's shape: that of the inputs of rank > 0 when they share one, else their
  // broadcast, which each must reach by a channel broadcast.
  static StatusOr<Shape> OutputShape(KernelContext& ctx) {
    const Tensor* shaped = nullptr;
    bool same = true;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != DType::kFloat32) return ctx.Error(absl::StrCat("input ", i, " is not float32"));
      if (t.shape().rank() == 0) continue;
      if (shaped == nullptr) {
        shaped = &t;
      } else {
        same = same && t.shape() == shaped->shape();
      }
    }
    if (shaped == nullptr) return Shape({});
    if (same) return shaped->shape();
    PartialShape out(std::vector<int64_t>{});
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      auto b = BroadcastShapes(out, PartialShape(ctx.input(i).shape()));
      if (!b.ok()) return ctx.Error(absl::StrCat("input ", i, " has shape ", ctx.input(i).shape().ToString(),
                                                 ", which does not broadcast with the others"));
      out = *b;
    }
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Shape& s = ctx.input(i).shape();
      if (s.rank() > 0 && !ops::ChannelBroadcastOf(s.dims(), out.dims()).has_value()) {
        return ctx.Error(absl::StrCat("input ", i, " has shape ", s.ToString(), ", which does not reach the output's ",
                                      out.ToString(), " by a channel broadcast (only those and scalars broadcast)"));
      }
    }
    return Shape(out.dims());
  }

  // Element i of the block at `start` gets data[((start + i) / inner) % channels].
  static void Spread(const Channel& c, int64_t start, int64_t m, float* d) {
    if (c.inner == 1) {  // channels last: the values repeat with period `channels`
      int64_t r = start % c.channels;
      for (int64_t i = 0; i < m;) {
        const int64_t run = std::min(m - i, c.channels - r);
        std::copy(c.data + r, c.data + r + run, d + i);
        i += run;
        r = 0;
      }
      return;
    }
    int64_t i = 0;
    while (i < m) {
      const int64_t q = (start + i) / c.inner;
      const int64_t run = std::min(m - i, (q + 1) * c.inner - (start + i));
      std::fill(d + i, d + i + run, c.data[q % c.channels]);
      i += run;
    }
  }

  void RunBlock(const Inputs& inputs, int64_t start, int64_t m, float* out, Scratch& scratch) const {
    const int n = static_cast<int>(program_.instrs.size());
    if (!(inputs.periodic && scratch.spread)) {
      // Periodic: once per scratch, as long as any block it will serve.
      const int64_t from = inputs.periodic ? 0 : start, length = inputs.periodic ? scratch.size() : m;
      for (size_t k = 0; k < inputs.channels.size(); ++k) {
        Spread(inputs.channels[k], from, length, scratch.slot(num_slots_ + static_cast<int>(k)));
      }
      scratch.spread = inputs.periodic;
    }
    auto operand = [&](const EwOperand& o) -> Src {
      switch (o.kind) {
        case EwOperand::Kind::kInput: {
          if (const int k = inputs.channel_of[o.index]; k >= 0) return Src{.p = scratch.slot(num_slots_ + k)};
          const Src& s = inputs.src[o.index];
          return s.p == nullptr ? s : Src{.p = s.p + start};
        }
        case EwOperand::Kind::kTemp: return Src{.p = scratch.slot(slot_[o.index])};
        case EwOperand::Kind::kConst: return Src{.v = o.value};
      }
      return Src{};
    };
    for (int j = 0; j < n; ++j) {
      const ops::EwInstr& instr = program_.instrs[j];
      const Src a = operand(instr.operands[0]);
      const Src b = instr.operands.size() > 1 ? operand(instr.operands[1]) : a;
      float* d = j + 1 == n ? out + start : scratch.slot(slot_[j]);
      Run(instr.op, a, b, d, m);
    }
  }

  ops::ElementwiseProgram program_;
  std::vector<int> slot_;
  int num_slots_ = 0;
  int64_t cost_ = 0;
};

}  // namespace

void RegisterFusedElementwiseKernels(KernelRegistry& r) {
  r.Register("FusedElementwise", kCpu, {DType::kFloat32},
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               auto it = node.attrs().find("program");
               if (it == node.attrs().end() || !std::holds_alternative<std::string>(it->second)) {
                 return errors::InvalidArgument(absl::StrCat(node.name(), ": FusedElementwise needs a string program"));
               }
               const std::string& text = std::get<std::string>(it->second);
               ASSIGN_OR_RETURN(ops::ElementwiseProgram program,
                                ops::ParseElementwiseProgram(text, static_cast<int>(node.inputs().size())));
               return std::make_unique<FusedElementwiseKernel>(std::move(program));
             });
}

}  // namespace graphd::executor::cpu
