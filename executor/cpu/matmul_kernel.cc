// MatMul(a, b[, bias]) with an optional fused activation (core/ops/math_ops.cc):
// oneDNN matmul for float32 (transposes expressed as strides, bias and activation as
// the primitive's bias and eltwise post-op), loops otherwise. When b is a Const
// (`constant_weights`, set by compiler/passes/matmul_fusion) the primitive takes b in
// the layout it prefers, reordered once and shared (packed_weights.h); only that
// Const's own value is packed (a value fed in its place runs unpacked). Small products
// run on one thread; mid-sized ones are split with a helper thread (matmul_helper.h),
// by columns when they have few rows, else by rows; large ones use oneDNN's OpenMP team.
// One row against large constant weights (a classifier head) reads them in place on
// the OpenMP team (gemv.h, kGemvWeights).
#include <omp.h>

#include <array>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/fused_activation.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/gemv.h"
#include "executor/cpu/matmul_helper.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/packed_weights.h"
#include "executor/cpu/team.h"
#include "executor/cpu/wrap_math.h"

namespace graphd::executor::cpu {
namespace {

using Activation = FusedActivation;  // applied after the bias


// Products below this many multiply-adds run on the calling thread alone: waking the
// OpenMP team (a futex wake when its helpers sleep) costs more than the second core
// saves. Measured on the MLP benchmark
// (2 cores): 1x256x512 .. 16x512x512 products took 1.3-2.5x longer with two threads.
constexpr int64_t kOneThreadMacs = int64_t{1} << 23;
// Products of at least this many multiply-adds (and more than one row, below
// kOneThreadMacs) are split by rows between the calling thread and the helper thread
// (matmul_helper.h): each half is then tens of microseconds, far above the hand-off.
constexpr int64_t kSplitMacs = int64_t{1} << 20;
// Products of 2 to kColumnSplitRows rows whose b holds at least kColumnSplitWeights
// values (a dense layer at a small batch) are split by columns instead: each core reads
// half of b, and oneDNN's GEMM for a few rows is much faster on half as many columns.
// Measured with kernels_bench's BM_DenseLayer (x[m, 512] * W[512, 512], W constant,
// 2 cores, AVX2): 4 rows 101 -> 47 us, 16 rows 177 -> 99 us against the row split (or
// one thread). One row (a matrix-vector product, bound by reading b) gains nothing.
// Halves start at a multiple of kColumnAlign.
constexpr int64_t kColumnSplitRows = 32;
constexpr int64_t kColumnSplitWeights = int64_t{1} << 16;
constexpr int64_t kColumnAlign = 16;
// A column half of at least this many multiply-adds (tens of microseconds) is worth
// waking a sleeping helper for; smaller ones go to it only while it is awake
// (matmul_helper.h). Row halves (kSplitMacs and up) always wake it.
constexpr int64_t kWakeMacs = int64_t{1} << 20;
// A single row against constant weights of at least this many elements (2 MB) runs
// gemv.h's loops over the weights as they are, in column blocks on the OpenMP team:
// bound by memory bandwidth, where a packed copy gains nothing and would double the
// model's memory. A classifier head after a CNN reads its weights from DRAM (the
// layers before it pushed them out of the caches), and two cores reading at once
// fetch them in about half the time: MobileNetV3's 576x1024 and 1024x1000 heads took
// 260-480 us on one thread (oneDNN, packed) and 160-280 us on two; EfficientNet's
// 1280x1000 190 -> 165-190 us against halves on the helper thread (model_bench
// --profile, 2 cores, AVX-512). The team is awake after the convolutions, so the
// fork costs little. Below this size (an MLP's 512x512, its weights in cache) one
// thread and the packed primitive stay faster.
constexpr int64_t kGemvWeights = int64_t{1} << 19;
// Columns per OpenMP work item in that product.
constexpr int64_t kGemvColumns = 64;

struct MatMulOptions {
  bool ta = false, tb = false;
  bool has_bias = false;
  Activation act;
  Tensor constant_b;  // b's Const value when `constant_weights`, else invalid
};

class MatMulKernel : public OpKernel {
 public:
  explicit MatMulKernel(MatMulOptions o) : o_(std::move(o)) {
    attr_.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // as PrimitiveAttr (a fresh handle)
    if (o_.act.kind != Activation::kNone) {
      dnnl::post_ops ops;
      o_.act.AppendTo(ops);
      attr_.set_post_ops(ops);
    }
  }

  Status Compute(KernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.shape().rank() != 2 || b.shape().rank() != 2) {
      return ctx.Error(absl::StrCat("inputs must be matrices, got ", a.shape().ToString(),
                                    " and ", b.shape().ToString()));
    }
    int64_t m = a.shape().dim(o_.ta ? 1 : 0), k = a.shape().dim(o_.ta ? 0 : 1);
    int64_t k2 = b.shape().dim(o_.tb ? 1 : 0), n = b.shape().dim(o_.tb ? 0 : 1);
    if (k != k2) {
      return ctx.Error(absl::StrCat("inner dimensions differ: ", a.shape().ToString(), " x ",
                                    b.shape().ToString()));
    }
    const Tensor* bias = o_.has_bias ? &ctx.input(2) : nullptr;
    if (bias != nullptr && (bias->dtype() != a.dtype() || bias->num_elements() != n)) {
      return ctx.Error(absl::StrCat("bias must hold ", n, " ", DTypeName(a.dtype()), " values, got ",
                                    bias->DebugString()));
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape({m, n})));
    if (m == 0 || n == 0) return absl::OkStatus();
    if (a.dtype() == DType::kFloat32 && k > 0) return RunDnnl(a, b, bias, *out, m, k, n);
    return DispatchNumeric(a.dtype(), [&]<typename T>() -> Status {
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      const T* pbias = bias != nullptr ? bias->data<T>() : nullptr;
      T* po = out->data<T>();
      for (int64_t i = 0; i < m; ++i) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        for (int64_t j = 0; j < n; ++j) {
          T acc{};
          for (int64_t p = 0; p < k; ++p) {
            T x = o_.ta ? pa[p * m + i] : pa[i * k + p];
            T y = o_.tb ? pb[j * k + p] : pb[p * n + j];
            if constexpr (std::is_integral_v<T>) {
              acc = WrapAdd(acc, WrapMul(x, y));  // integer MatMul wraps as TensorFlow's
            } else {
              acc = static_cast<T>(acc + x * y);
            }
          }
          if constexpr (std::is_floating_point_v<T>) {
            if (pbias != nullptr) acc += pbias[j];
            acc = o_.act.Apply(acc);
          }
          po[i * n + j] = acc;
        }
      }
      return absl::OkStatus();
    });
  }

 private:
  // Memory objects for one run of a shape's primitive, pointed at each run's buffers
  // (cheaper than creating them per run), with the run's scratchpad. One per
  // concurrent run: a run takes one from its shape's spares and gives it back.
  struct Args {
    dnnl::memory src, weights, bias, dst;
    std::unordered_map<int, dnnl::memory> map;
  };

  // A block's shape: rows, k, cols, packed, first column, output width.
  using Key = std::array<int64_t, 7>;  // + the team size: oneDNN fixes it at creation
  // One block shape's primitive, descriptors and, for constant weights, b's block in
  // the primitive's layout.
  struct Prepared {
    Key key;
    dnnl::matmul prim;
    dnnl::memory::desc ad, bd, od, biasd, scratchpad;
    std::shared_ptr<const PackedWeights> packed;
    std::vector<std::unique_ptr<Args>> spares;  // guarded by the kernel's mu_
  };

  Status RunDnnl(const Tensor& a, const Tensor& b, const Tensor* bias, Tensor& out, int64_t m,
                 int64_t k, int64_t n) {
    const bool packed = o_.constant_b.valid() && b.buffer() == o_.constant_b.buffer();
    if (packed && m == 1 && !o_.ta && k * n >= kGemvWeights) return RunGemv(a, b, bias, out, k, n);
    const int64_t macs = m * k * n;
    static const bool multi_core = std::thread::hardware_concurrency() > 1;
    const Block all{.row = 0, .rows = m, .col = 0, .cols = n};
    if (macs >= kOneThreadMacs || !multi_core || TeamThreads() == 1) return RunBlock(a, b, bias, out, all, k, n, packed);
    if (m >= 2 && m <= kColumnSplitRows && k * n >= kColumnSplitWeights && n >= 2 * kColumnAlign) {
      const int64_t n0 = (n / 2 + kColumnAlign - 1) / kColumnAlign * kColumnAlign;
      const Block second{.row = 0, .rows = m, .col = n0, .cols = n - n0};
      return RunPair(a, b, bias, out, {.row = 0, .rows = m, .col = 0, .cols = n0}, second, k, n, packed,
                     /*wake=*/m * k * second.cols >= kWakeMacs);
    }
    if (o_.ta || m < 2 || macs < kSplitMacs) return RunBlock(a, b, bias, out, all, k, n, packed);
    // Rows [0, m0) here, [m0, m) on the helper thread (or here too when it is busy).
    const int64_t m0 = (m + 1) / 2;
    return RunPair(a, b, bias, out, {.row = 0, .rows = m0, .col = 0, .cols = n},
                   {.row = m0, .rows = m - m0, .col = 0, .cols = n}, k, n, packed, /*wake=*/true);
  }

  // One row against large constant weights (gemv.h): read in place, never packed,
  // in column blocks on the OpenMP team.
  Status RunGemv(const Tensor& a, const Tensor& b, const Tensor* bias, Tensor& out, int64_t k, int64_t n) {
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    const float* pbias = bias != nullptr ? bias->data<float>() : nullptr;
    float* po = out.data<float>();
    auto columns = [&](int64_t j0, int64_t j1) {
      GemvColumns(pa, pb, o_.tb, k, n, j0, j1, po);
      for (int64_t j = j0; j < j1; ++j) po[j] = o_.act.Apply(pbias != nullptr ? po[j] + pbias[j] : po[j]);
    };
    const int threads = TeamThreads();
    if (threads <= 1 || n < 2 * kColumnAlign) {
      columns(0, n);
      return absl::OkStatus();
    }
    const int64_t blocks = (n + kGemvColumns - 1) / kGemvColumns;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < blocks; ++i) columns(i * kGemvColumns, std::min(n, (i + 1) * kGemvColumns));
    return absl::OkStatus();
  }

  // A block of the output: rows [row, row + rows) and columns [col, col + cols).
  struct Block {
    int64_t row, rows, col, cols;
  };

  // `first` here, `second` on the helper thread (or here too when it is busy, or asleep
  // and not to be woken: RunPairWithHelper). In single-team mode (team.h) on the
  // thread that forks, the two blocks run on the OpenMP team instead, one each: its
  // helper spins between the kernels of a call, where the pair's helper thread would
  // be a third thread on two cores, waiting for one of them (the encoder's 64x256x256
  // output projection: 63-88 us with the helper thread, 46-62 us on one thread,
  // 36-49 us on the team; model_bench --profile, 2 cores).
  Status RunPair(const Tensor& a, const Tensor& b, const Tensor* bias, Tensor& out, const Block& first,
                 const Block& second, int64_t k, int64_t n, bool packed, bool wake) {
    if (SingleTeam() && TeamThreads() > 1) {
      Status done[2];
#pragma omp parallel for num_threads(2) schedule(static, 1)
      for (int i = 0; i < 2; ++i) {
        try {  // nothing may leave the parallel region
          done[i] = RunBlock(a, b, bias, out, i == 0 ? first : second, k, n, packed);
        } catch (const std::exception& e) {
          done[i] = errors::Internal(absl::StrCat("matrix product block failed: ", e.what()));
        }
      }
      RETURN_IF_ERROR(done[0]);
      return done[1];
    }
    Status s1, s2;
    RunPairWithHelper([&] { s1 = RunBlock(a, b, bias, out, first, k, n, packed); },
                      [&] { s2 = RunBlock(a, b, bias, out, second, k, n, packed); }, wake);
    RETURN_IF_ERROR(s1);
    return s2;
  }

  // One block of the product (all rows when a is transposed); n is the output's width.
  Status RunBlock(const Tensor& a, const Tensor& b, const Tensor* bias, Tensor& out, const Block& block,
                  int64_t k, int64_t n, bool packed) {
    const bool small = block.rows * k * block.cols < kOneThreadMacs;
    const Key key{block.rows, k, block.cols, packed ? 1 : 0, block.col, n, small ? 1 : omp_get_max_threads()};
    std::shared_ptr<Prepared> p;
    std::unique_ptr<Args> args;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ASSIGN_OR_RETURN(p, PrepareLocked(key));
      if (!p->spares.empty()) {
        args = std::move(p->spares.back());
        p->spares.pop_back();
      }
    }
    if (args == nullptr) args = MakeArgs(*p, bias != nullptr);
    args->src.set_data_handle(a.data<float>() + block.row * k);
    if (!packed) args->weights.set_data_handle(b.data<float>() + ColumnOffset(block.col, k));
    if (bias != nullptr) args->bias.set_data_handle(bias->data<float>() + block.col);
    args->dst.set_data_handle(out.data<float>() + block.row * n + block.col);
    {
      // Creation fixed the primitive's own thread count, but parts of its execution
      // (oneDNN's parallel(0, ...)) ask for the thread's current count: a small
      // product must not wake an OpenMP team there either.
      OneThreadScope one_thread(small);
      p->prim.execute(ThreadStream(), args->map);
      ThreadStream().wait();
    }
    std::lock_guard<std::mutex> lock(mu_);
    p->spares.push_back(std::move(args));
    return absl::OkStatus();
  }

  // Where column `col` of (the possibly transposed) b starts, in elements.
  int64_t ColumnOffset(int64_t col, int64_t k) const { return o_.tb ? col * k : col; }

  std::unique_ptr<Args> MakeArgs(const Prepared& p, bool has_bias) const {
    auto args = std::make_unique<Args>();
    args->src = dnnl::memory(p.ad, Engine(), DNNL_MEMORY_NONE);
    args->weights = p.packed ? p.packed->memory : dnnl::memory(p.bd, Engine(), DNNL_MEMORY_NONE);
    args->dst = dnnl::memory(p.od, Engine(), DNNL_MEMORY_NONE);
    args->map = {{DNNL_ARG_SRC, args->src}, {DNNL_ARG_WEIGHTS, args->weights}, {DNNL_ARG_DST, args->dst}};
    if (has_bias) {
      args->bias = dnnl::memory(p.biasd, Engine(), DNNL_MEMORY_NONE);
      args->map.emplace(DNNL_ARG_BIAS, args->bias);
    }
    // A scratchpad of its own (allocated by oneDNN): runs never share one.
    if (p.scratchpad.get_size() > 0) args->map.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(p.scratchpad, Engine()));
    return args;
  }

  // The entry for `key`, made on first use: the primitive and, when packed, the packed
  // copy of the constant b's columns.
  StatusOr<std::shared_ptr<Prepared>> PrepareLocked(const Key& key) {
    for (const std::shared_ptr<Prepared>& e : cache_) {
      if (e->key == key) return e;
    }
    const auto [m, k, cols, packed, col, n, team] = key;
    using dt = dnnl::memory::data_type;
    auto p = std::make_shared<Prepared>();
    p->key = key;
    p->ad = dnnl::memory::desc({m, k}, dt::f32, o_.ta ? dnnl::memory::dims{1, m} : dnnl::memory::dims{k, 1});
    p->bd = dnnl::memory::desc({k, cols}, dt::f32, o_.tb ? dnnl::memory::dims{1, k} : dnnl::memory::dims{n, 1});
    p->od = dnnl::memory::desc({m, cols}, dt::f32, dnnl::memory::dims{n, 1});
    if (o_.has_bias) p->biasd = dnnl::memory::desc({1, cols}, dt::f32, dnnl::memory::dims{cols, 1});
    dnnl::memory::desc wd = packed ? dnnl::memory::desc({k, cols}, dt::f32, dnnl::memory::format_tag::any) : p->bd;
    // oneDNN fixes a primitive's thread count when it is created.
    OneThreadScope one_thread(team == 1);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->ad, wd, p->biasd, p->od), attr_, Engine());
    p->prim = dnnl::matmul(pd);
    p->scratchpad = pd.scratchpad_desc();
    if (packed) {
      ASSIGN_OR_RETURN(p->packed,
                       GetPackedWeights(o_.constant_b, p->bd, pd.weights_desc(), ColumnOffset(col, k)));
    }
    if (cache_.size() >= kCacheCapacity) cache_.erase(cache_.begin());
    cache_.push_back(p);
    return p;
  }

  static constexpr size_t kCacheCapacity = 8;

  MatMulOptions o_;
  dnnl::primitive_attr attr_;  // PrimitiveAttr plus the fused activation
  std::mutex mu_;
  std::vector<std::shared_ptr<Prepared>> cache_;  // guarded by mu_, oldest first
};

StatusOr<std::unique_ptr<OpKernel>> MakeMatMul(const Node& node) {
  MatMulOptions o{.ta = AttrOr<bool>(node, "transpose_a", false),
                  .tb = AttrOr<bool>(node, "transpose_b", false),
                  .has_bias = node.inputs().size() > 2};
  if (AttrOr<bool>(node, "constant_weights", false)) {
    const Tensor* b = ConstInput(node, 1);
    if (b == nullptr) {
      return errors::InvalidArgument(absl::StrCat(node.name(), ": constant_weights is set but input 1 comes from ",
                                                  node.inputs()[1].node->op_name(), ", not a Const"));
    }
    o.constant_b = *b;
  }
  ASSIGN_OR_RETURN(o.act, FusedActivation::FromNode(node));
  return std::make_unique<MatMulKernel>(std::move(o));
}

}  // namespace

void RegisterMatMulKernels(KernelRegistry& r) {
  r.Register("MatMul", kCpu, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}, MakeMatMul);
}

}  // namespace graphd::executor::cpu
