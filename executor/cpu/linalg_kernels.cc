// BatchMatMulV2 (one product per broadcast batch index, float32 through oneDNN's sgemm,
// small products split across the OpenMP team by batch)
// and Einsum: two-operand contractions as packed matrix products (einsum_contract.h),
// anything else (diagonals, broadcast ellipsis dims, sums within one operand, three or
// more operands) as a direct loop over every label combination, operands addressed
// through per-label strides.
#include <type_traits>
#include <vector>

#include "core/ops/einsum_spec.h"
#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/einsum_contract.h"
#include "executor/cpu/gemm.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/wrap_math.h"

namespace graphd::executor::cpu {
namespace {

// float32 batches of products below this many multiply-adds each are split across the
// OpenMP team, whole products per thread, instead of one sgemm after another each
// forking the team: attention's per-head products (a transformer encoder's 4 heads of
// 64x64x64, ViT's 12 of 197x64x197) are far too small for a fork each.
constexpr int64_t kBatchSplitMacs = int64_t{1} << 22;

// Row-major strides of `dims`.
std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

KernelFactory BatchMatMulFactory() {
  return [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const bool adj_x = AttrOr<bool>(node, "adj_x", false), adj_y = AttrOr<bool>(node, "adj_y", false);
    return std::make_unique<FnKernel>([=](KernelContext& ctx) -> Status {
      const Tensor& a = ctx.input(0);
      const Tensor& b = ctx.input(1);
      const int ra = a.shape().rank(), rb = b.shape().rank();
      if (ra < 2 || rb < 2) return ctx.Error("inputs must have rank >= 2");
      const int64_t m = a.shape().dim(adj_x ? ra - 1 : ra - 2), k = a.shape().dim(adj_x ? ra - 2 : ra - 1);
      const int64_t k2 = b.shape().dim(adj_y ? rb - 1 : rb - 2), n = b.shape().dim(adj_y ? rb - 2 : rb - 1);
      if (k != k2) {
        return ctx.Error(absl::StrCat("inner dimensions differ: ", a.shape().ToString(), " x ", b.shape().ToString()));
      }
      // Batch dims right-aligned to the output's; stride 0 where an operand broadcasts.
      const int rank = std::max(ra, rb) - 2;
      std::vector<int64_t> out_dims(rank), sa(rank, 0), sb(rank, 0);
      int64_t stride_a = m * k, stride_b = k * n;
      for (int i = rank - 1; i >= 0; --i) {
        const int ia = i - (rank - (ra - 2)), ib = i - (rank - (rb - 2));
        const int64_t da = ia >= 0 ? a.shape().dim(ia) : 1, db = ib >= 0 ? b.shape().dim(ib) : 1;
        if (da != db && da != 1 && db != 1) {
          return ctx.Error(absl::StrCat("batch dims do not broadcast: ", a.shape().ToString(), " x ",
                                        b.shape().ToString()));
        }
        out_dims[i] = std::max(da, db);
        if (da == 0 || db == 0) out_dims[i] = 0;
        sa[i] = da == 1 ? 0 : stride_a;
        sb[i] = db == 1 ? 0 : stride_b;
        stride_a *= da;
        stride_b *= db;
      }
      std::vector<int64_t> dims = out_dims;
      dims.push_back(m);
      dims.push_back(n);
      ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(dims)));
      int64_t batches = 1;
      for (int64_t d : out_dims) batches *= d;
      return DispatchNumeric(a.dtype(), [&]<typename T>() -> Status {
        if constexpr (std::is_same_v<T, bool>) {
          return ctx.Error("bool is not supported");
        } else {
          // Product bi: its operands' offsets from bi unravelled over out_dims.
          auto product = [&](int64_t bi) {
            int64_t oa = 0, ob = 0;
            int64_t left = bi;
            for (int i = rank - 1; i >= 0; --i) {
              const int64_t p = left % out_dims[i];
              left /= out_dims[i];
              oa += p * sa[i];
              ob += p * sb[i];
            }
            Gemm<T>(adj_x, adj_y, m, n, k, a.data<T>() + oa, b.data<T>() + ob, T(0), out->data<T>() + bi * m * n);
          };
          if constexpr (std::is_same_v<T, float>) {
            const int threads = TeamThreads();
            if (batches >= 2 && threads > 1 && m * n * k < kBatchSplitMacs) {
              // Whole products per thread: sgemm runs single-threaded inside the team.
              RETURN_IF_ERROR(ctx.cancellation().Check());
#pragma omp parallel for num_threads(threads) schedule(static)
              for (int64_t bi = 0; bi < batches; ++bi) product(bi);
              return absl::OkStatus();
            }
          }
          for (int64_t bi = 0; bi < batches; ++bi) {
            RETURN_IF_ERROR(ctx.cancellation().Check());
            product(bi);
          }
          return absl::OkStatus();
        }
      });
    });
  };
}

Status EinsumFn(KernelContext& ctx, const std::string& equation) {
  const int count = ctx.num_inputs();
  std::vector<int> ranks;
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < count; ++i) {
    ranks.push_back(ctx.input(i).shape().rank());
    dims.push_back(ctx.input(i).shape().dims());
  }
  auto spec = ops::ParseEinsum(equation, ranks);
  if (!spec.ok()) return ctx.Error(spec.status());
  auto sizes_or = ops::EinsumLabelSizes(*spec, dims);
  if (!sizes_or.ok()) return ctx.Error(sizes_or.status());
  const std::vector<int64_t>& sizes = *sizes_or;
  const int labels = spec->num_labels;
  // strides[i][l]: how far operand i moves per step of label l (summed over repeats,
  // which walks a diagonal; 0 where the operand broadcasts a size-1 dim).
  std::vector<std::vector<int64_t>> strides(count, std::vector<int64_t>(labels, 0));
  for (int i = 0; i < count; ++i) {
    std::vector<int64_t> s = Strides(dims[i]);
    for (size_t d = 0; d < dims[i].size(); ++d) {
      if (dims[i][d] != 1 || sizes[spec->inputs[i][d]] == 1) strides[i][spec->inputs[i][d]] += s[d];
    }
  }
  // Loop order: output labels (outer, row-major), then the summed ones.
  std::vector<int> order = spec->output;
  std::vector<bool> in_out(labels, false);
  for (int l : spec->output) in_out[l] = true;
  for (int l = 0; l < labels; ++l) {
    if (!in_out[l]) order.push_back(l);
  }
  std::vector<int64_t> out_dims;
  for (int l : spec->output) out_dims.push_back(sizes[l]);
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(out_dims)));
  if (count == 2 && CanContractPair(*spec, sizes, ctx.input(0), ctx.input(1))) {
    RETURN_IF_ERROR(ctx.cancellation().Check());
    Status st = ContractPair(*spec, sizes, ctx.input(0), ctx.input(1), *out);
    return st.ok() ? st : ctx.Error(st);
  }
  int64_t summed = 1;
  for (size_t j = spec->output.size(); j < order.size(); ++j) summed *= sizes[order[j]];
  const int64_t outputs = out->num_elements();
  return DispatchNumeric(out->dtype(), [&]<typename T>() -> Status {
    if constexpr (std::is_same_v<T, bool>) {
      return ctx.Error("bool is not supported");
    } else {
      std::vector<const T*> data;
      for (int i = 0; i < count; ++i) data.push_back(ctx.input(i).data<T>());
      std::vector<int64_t> pos(order.size(), 0), offset(count, 0);
      T* o = out->data<T>();
      for (int64_t oi = 0; oi < outputs; ++oi) {
        if (oi % 4096 == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
        T acc{};
        for (int64_t si = 0; si < summed; ++si) {
          T prod = T(1);
          for (int i = 0; i < count; ++i) prod = WrapMul(prod, data[i][offset[i]]);
          acc = WrapAdd(acc, prod);
          // Odometer step over all labels, innermost last; offsets follow.
          for (int j = static_cast<int>(order.size()) - 1; j >= 0; --j) {
            const int l = order[j];
            for (int i = 0; i < count; ++i) offset[i] += strides[i][l];
            if (++pos[j] < sizes[l]) break;
            for (int i = 0; i < count; ++i) offset[i] -= strides[i][l] * sizes[l];
            pos[j] = 0;
          }
        }
        o[oi] = acc;
        if (summed == 0) {  // no summed combination moved the odometer: step an output label
          for (int j = static_cast<int>(spec->output.size()) - 1; j >= 0; --j) {
            const int l = order[j];
            for (int i = 0; i < count; ++i) offset[i] += strides[i][l];
            if (++pos[j] < sizes[l]) break;
            for (int i = 0; i < count; ++i) offset[i] -= strides[i][l] * sizes[l];
            pos[j] = 0;
          }
        }
      }
      return absl::OkStatus();
    }
  });
}

}  // namespace

void RegisterLinalgKernels(KernelRegistry& r) {
  r.Register("BatchMatMulV2", kCpu, kArithmeticDTypes, BatchMatMulFactory());
  r.Register("Einsum", kCpu, kArithmeticDTypes, [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const std::string equation = AttrOr<std::string>(node, "equation", "");
    return std::make_unique<FnKernel>([equation](KernelContext& ctx) { return EinsumFn(ctx, equation); });
  });
}

}  // namespace graphd::executor::cpu
