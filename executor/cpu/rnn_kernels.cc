// RNN, GRU and LSTM over a whole sequence. Per direction, the input projection of
// every time step is one matrix product (X [T*batch, I] x W^T); each step then adds the
// recurrence product (h [batch, H] x R^T, oneDNN sgemm for float32) and applies the
// gates row by row. A row whose sequence has ended keeps its state and writes zeros.
// Reverse directions walk each sequence from its own last step. A float32 LSTM with
// default activations and a small batch runs its recurrence on lstm_sequence.h's team.

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/gemm.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/lstm_cell.h"
#include "executor/cpu/lstm_sequence.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/rnn_activation.h"

namespace graphd::executor::cpu {
namespace {

enum class Cell { kRnn, kGru, kLstm };

struct RnnConfig {
  Cell cell;
  int gates;
  int64_t hidden;
  std::string direction;
  std::vector<RnnActivation> acts;  // per direction: 1 (RNN), 2 (GRU), 3 (LSTM)
  double clip;                      // 0: none
  bool linear_before_reset;
};

// The inputs of one direction and the state it updates.
template <typename T>
struct DirectionRun {
  const T* xw;        // [T*batch, G*H]: x W^T + biases (GRU's h gate: input bias only)
  const T* r;         // [G*H, H]
  const T* rb;        // [G*H] recurrence bias, or nullptr
  const T* p;         // [3H] peepholes (i, o, f), or nullptr
  const RnnActivation* act;
  T* h;               // [batch, H]
  T* c;               // [batch, H] (LSTM)
  T* y;               // Y at this direction: [T, D, batch, H] with the d offset applied
  int64_t y_step;     // D * batch * H
};

// An LSTM direction with ONNX's default activations and no clip: the vectorised cell.
bool DefaultLstm(const RnnConfig& cfg, const RnnActivation* act) {
  using K = RnnActivation::Kind;
  return cfg.cell == Cell::kLstm && cfg.clip <= 0 && act[0].kind() == K::kSigmoid && act[1].kind() == K::kTanh &&
         act[2].kind() == K::kTanh;
}

template <typename T>
Status RunDirection(KernelContext& ctx, const RnnConfig& cfg, const DirectionRun<T>& run, int64_t steps,
                    int64_t batch, const std::vector<int64_t>& lens, bool reverse) {
  const int64_t h = cfg.hidden, gh = cfg.gates * h;
  std::vector<T> hr(batch * gh), rh(batch * h), hr_h(batch * h);
  auto clip = [&](double v) { return cfg.clip > 0 ? std::clamp(v, -cfg.clip, cfg.clip) : v; };
  const RnnActivation& f = run.act[0];
  for (int64_t s = 0; s < steps; ++s) {
    RETURN_IF_ERROR(ctx.cancellation().Check());
    if (cfg.cell == Cell::kGru && !cfg.linear_before_reset) {
      // z and r from h R_zr^T; the h gate from (r . h) R_h^T once r is known.
      Gemm<T>(false, true, batch, 2 * h, h, run.h, run.r, T(0), hr.data());
    } else {
      Gemm<T>(false, true, batch, gh, h, run.h, run.r, T(0), hr.data());
    }
    const int64_t ld = cfg.cell == Cell::kGru && !cfg.linear_before_reset ? 2 * h : gh;
    if (cfg.cell == Cell::kGru) {
      for (int64_t b = 0; b < batch; ++b) {
        if (s >= lens[b]) continue;
        const int64_t t = reverse ? lens[b] - 1 - s : s;
        const T* xw = run.xw + (t * batch + b) * gh;
        for (int64_t j = 0; j < h; ++j) {
          const double r = f(clip(double(xw[h + j]) + hr[b * ld + h + j]));
          const double rbh = run.rb ? double(run.rb[2 * h + j]) : 0.0;
          if (cfg.linear_before_reset) {
            hr_h[b * h + j] = static_cast<T>(r * (double(hr[b * ld + 2 * h + j]) + rbh));
          } else {
            rh[b * h + j] = static_cast<T>(r * run.h[b * h + j]);
          }
        }
      }
      if (!cfg.linear_before_reset) Gemm<T>(false, true, batch, h, h, rh.data(), run.r + 2 * h * h, T(0), hr_h.data());
    }
    for (int64_t b = 0; b < batch; ++b) {
      if (s >= lens[b]) continue;
      const int64_t t = reverse ? lens[b] - 1 - s : s;
      const T* xw = run.xw + (t * batch + b) * gh;
      const T* rr = hr.data() + b * ld;
      T* hb = run.h + b * h;
      T* yb = run.y + t * run.y_step + b * h;
      switch (cfg.cell) {
        case Cell::kRnn:
          for (int64_t j = 0; j < h; ++j) hb[j] = static_cast<T>(f(clip(double(xw[j]) + rr[j])));
          break;
        case Cell::kGru: {
          const RnnActivation& g = run.act[1];
          for (int64_t j = 0; j < h; ++j) {
            const double z = f(clip(double(xw[j]) + rr[j]));
            double pre = double(xw[2 * h + j]) + hr_h[b * h + j];
            if (!cfg.linear_before_reset && run.rb) pre += run.rb[2 * h + j];
            const double hh = g(clip(pre));
            hb[j] = static_cast<T>((1 - z) * hh + z * hb[j]);
          }
          break;
        }
        case Cell::kLstm: {
          if constexpr (std::is_same_v<T, float>) {
            if (DefaultLstm(cfg, run.act)) {
              LstmCellF32(h, h, xw, rr, run.p, run.c + b * h, hb);
              break;
            }
          }
          const RnnActivation& g = run.act[1];
          const RnnActivation& hact = run.act[2];
          T* cb = run.c + b * h;
          for (int64_t j = 0; j < h; ++j) {
            const double c_prev = cb[j];
            const double pi = run.p ? double(run.p[j]) : 0.0, po = run.p ? double(run.p[h + j]) : 0.0,
                         pf = run.p ? double(run.p[2 * h + j]) : 0.0;
            const double i = f(clip(double(xw[j]) + rr[j] + pi * c_prev));
            const double fg = f(clip(double(xw[2 * h + j]) + rr[2 * h + j] + pf * c_prev));
            const double cc = g(clip(double(xw[3 * h + j]) + rr[3 * h + j]));
            const double c_new = fg * c_prev + i * cc;
            const double o = f(clip(double(xw[h + j]) + rr[h + j] + po * c_new));
            cb[j] = static_cast<T>(c_new);
            hb[j] = static_cast<T>(o * hact(c_new));
          }
          break;
        }
      }
      std::copy(hb, hb + h, yb);
    }
  }
  return absl::OkStatus();
}

// A constant R (a Const node's value) and its directions packed for lstm_sequence.h.
struct ConstantRecurrence {
  Tensor value;
  std::vector<PackedRecurrence> packed;  // per direction
};

template <typename T>
Status Recurrent(KernelContext& ctx, const RnnConfig& cfg, const ConstantRecurrence* constant) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor& r = ctx.input(2);
  const Tensor& bias = ctx.input(3);
  const Tensor& seq = ctx.input(4);
  const Tensor& h0 = ctx.input(5);
  const bool lstm = cfg.cell == Cell::kLstm;
  const int64_t dirs = cfg.direction == "bidirectional" ? 2 : 1;
  const int64_t h = cfg.hidden, gh = cfg.gates * h;
  if (x.shape().rank() != 3) return ctx.Error(absl::StrCat("X must be [T, batch, input], got ", x.shape().ToString()));
  const int64_t steps = x.shape().dim(0), batch = x.shape().dim(1), in = x.shape().dim(2);
  auto check = [&](const Tensor& t, std::vector<int64_t> dims, const char* what, bool optional) -> Status {
    if (optional && t.num_elements() == 0) return absl::OkStatus();
    if (t.shape() != Shape(dims)) {
      return ctx.Error(absl::StrCat(what, " has shape ", t.shape().ToString(), ", expected ", Shape(dims).ToString()));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(check(w, {dirs, gh, in}, "W", false));
  RETURN_IF_ERROR(check(r, {dirs, gh, h}, "R", false));
  RETURN_IF_ERROR(check(bias, {dirs, 2 * gh}, "B", true));
  RETURN_IF_ERROR(check(seq, {batch}, "sequence_lens", true));
  RETURN_IF_ERROR(check(h0, {dirs, batch, h}, "initial_h", true));
  if (lstm) {
    RETURN_IF_ERROR(check(ctx.input(6), {dirs, batch, h}, "initial_c", true));
    RETURN_IF_ERROR(check(ctx.input(7), {dirs, 3 * h}, "P", true));
  }
  std::vector<int64_t> lens(batch, steps);
  if (seq.num_elements() > 0) {
    for (int64_t b = 0; b < batch; ++b) {
      lens[b] = seq.dtype() == DType::kInt32 ? int64_t{seq.data<int32_t>()[b]} : seq.data<int64_t>()[b];
      if (lens[b] < 0 || lens[b] > steps) {
        return ctx.Error(absl::StrCat("sequence_lens[", b, "] = ", lens[b], " is outside [0, ", steps, "]"));
      }
    }
  }
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, Shape({steps, dirs, batch, h})));
  ASSIGN_OR_RETURN(Tensor * yh, ctx.AllocateOutput(1, Shape({dirs, batch, h})));
  Tensor* yc = nullptr;
  if (lstm) {
    ASSIGN_OR_RETURN(yc, ctx.AllocateOutput(2, Shape({dirs, batch, h})));
  }
  // Steps past a row's sequence length stay zero; every other element is written.
  if (std::any_of(lens.begin(), lens.end(), [&](int64_t len) { return len < steps; })) {
    std::fill_n(y->data<T>(), y->num_elements(), T(0));
  }
  std::vector<T> xw;
  const std::vector<PackedRecurrence>* packed = nullptr;
  if (constant != nullptr && r.raw_data() == constant->value.raw_data()) packed = &constant->packed;
  const int threads = TeamThreads();  // the calling thread's team (team.h)
  const size_t per_dir = cfg.acts.size() / dirs;
  for (int64_t d = 0; d < dirs; ++d) {
    const T* bd = bias.num_elements() > 0 ? bias.data<T>() + d * 2 * gh : nullptr;
    T* hstate = yh->data<T>() + d * batch * h;
    if (h0.num_elements() > 0) {
      std::copy_n(h0.data<T>() + d * batch * h, batch * h, hstate);
    } else {
      std::fill_n(hstate, batch * h, T(0));
    }
    T* cstate = nullptr;
    if (lstm) {
      cstate = yc->data<T>() + d * batch * h;
      const Tensor& c0 = ctx.input(6);
      if (c0.num_elements() > 0) {
        std::copy_n(c0.data<T>() + d * batch * h, batch * h, cstate);
      } else {
        std::fill_n(cstate, batch * h, T(0));
      }
    }
    const Tensor* p = lstm && ctx.input(7).num_elements() > 0 ? &ctx.input(7) : nullptr;
    const bool reverse = cfg.direction == "reverse" || d == 1;
    if constexpr (std::is_same_v<T, float>) {
      if (DefaultLstm(cfg, cfg.acts.data() + d * per_dir) &&
          LstmSequenceFits(batch, h, threads, /*packed=*/packed != nullptr)) {
        const LstmSequence seq{.steps = steps,
                               .batch = batch,
                               .hidden = h,
                               .input = in,
                               .x = x.data<float>(),
                               .w = w.data<float>() + d * gh * in,
                               .bias = bd,
                               .r = r.data<float>() + d * gh * h,
                               .packed = packed != nullptr ? &(*packed)[d] : nullptr,
                               .p = p ? p->data<float>() + d * 3 * h : nullptr,
                               .lens = lens.data(),
                               .reverse = reverse,
                               .h = hstate,
                               .c = cstate,
                               .y = y->data<float>() + d * batch * h,
                               .y_step = dirs * batch * h};
        RETURN_IF_ERROR(RunLstmSequence(seq, threads, ctx.cancellation()));
        continue;
      }
    }
    xw.resize(steps * batch * gh);
    Gemm<T>(false, true, steps * batch, gh, in, x.data<T>(), w.data<T>() + d * gh * in, T(0), xw.data());
    if (bd != nullptr) {
      // Input and recurrence biases folded in, but for GRU's h gate the recurrence
      // bias, which the reset gate may scale (added per step instead).
      const int64_t fold_r = cfg.cell == Cell::kGru ? 2 * h : gh;
      for (int64_t row = 0; row < steps * batch; ++row) {
        T* dst = xw.data() + row * gh;
        for (int64_t j = 0; j < gh; ++j) dst[j] = static_cast<T>(dst[j] + bd[j] + (j < fold_r ? bd[gh + j] : T(0)));
      }
    }
    DirectionRun<T> run{.xw = xw.data(),
                        .r = r.data<T>() + d * gh * h,
                        .rb = cfg.cell == Cell::kGru && bd != nullptr ? bd + gh : nullptr,
                        .p = p ? p->data<T>() + d * 3 * h : nullptr,
                        .act = cfg.acts.data() + d * per_dir,
                        .h = hstate,
                        .c = cstate,
                        .y = y->data<T>() + d * batch * h,
                        .y_step = dirs * batch * h};
    RETURN_IF_ERROR(RunDirection<T>(ctx, cfg, run, steps, batch, lens, reverse));
  }
  return absl::OkStatus();
}

// R packed once when it is a Const float32 [D, 4H, H] of an LSTM that runs on
// lstm_sequence.h's path; else null.
std::shared_ptr<const ConstantRecurrence> PackConstantRecurrence(const Node& node, const RnnConfig& cfg) {
  const Tensor* constant_r = ConstInput(node, 2);
  if (cfg.cell != Cell::kLstm || constant_r == nullptr ||
      !LstmSequenceFits(1, cfg.hidden, std::max(IntraOpThreads(), TeamThreads()), /*packed=*/true)) {
    return nullptr;
  }
  const Tensor& r = *constant_r;
  const int64_t dirs = cfg.direction == "bidirectional" ? 2 : 1, h = cfg.hidden;
  if (r.dtype() != DType::kFloat32 || r.shape() != Shape({dirs, 4 * h, h})) return nullptr;
  auto constant = std::make_shared<ConstantRecurrence>();
  constant->value = r;
  for (int64_t d = 0; d < dirs; ++d) {
    if (!DefaultLstm(cfg, cfg.acts.data() + d * (cfg.acts.size() / dirs))) return nullptr;
    constant->packed.emplace_back(r.data<float>() + d * 4 * h * h, h);
  }
  return constant;
}

KernelFactory RecurrentFactory(Cell cell) {
  return [cell](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    RnnConfig cfg{.cell = cell,
                  .gates = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4,
                  .hidden = AttrOr<int64_t>(node, "hidden_size", 1),
                  .direction = AttrOr<std::string>(node, "direction", "forward"),
                  .acts = {},
                  .clip = AttrOr<float>(node, "clip", 0.f),
                  .linear_before_reset = AttrOr<bool>(node, "linear_before_reset", false)};
    const int dirs = cfg.direction == "bidirectional" ? 2 : 1;
    StringList names = AttrOr<StringList>(node, "activations", {});
    if (names.empty()) {
      const StringList defaults = cell == Cell::kRnn   ? StringList{"Tanh"}
                                  : cell == Cell::kGru ? StringList{"Sigmoid", "Tanh"}
                                                       : StringList{"Sigmoid", "Tanh", "Tanh"};
      for (int d = 0; d < dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
    }
    cfg.acts = RnnActivation::FromNames(names, AttrOr<FloatList>(node, "activation_alpha", {}),
                                        AttrOr<FloatList>(node, "activation_beta", {}));
    std::shared_ptr<const ConstantRecurrence> constant = PackConstantRecurrence(node, cfg);
    return std::make_unique<FnKernel>([cfg, constant](KernelContext& ctx) -> Status {
      if (ctx.input(0).dtype() == DType::kFloat64) return Recurrent<double>(ctx, cfg, nullptr);
      return Recurrent<float>(ctx, cfg, constant.get());
    });
  };
}

}  // namespace

void RegisterRnnKernels(KernelRegistry& r) {
  r.Register("RNN", kCpu, {DType::kFloat32, DType::kFloat64}, RecurrentFactory(Cell::kRnn));
  r.Register("GRU", kCpu, {DType::kFloat32, DType::kFloat64}, RecurrentFactory(Cell::kGru));
  r.Register("LSTM", kCpu, {DType::kFloat32, DType::kFloat64}, RecurrentFactory(Cell::kLstm));
}

}  // namespace graphd::executor::cpu
