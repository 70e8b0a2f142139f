// Trilu on any dtype: copies x and zeroes the entries outside the kept triangle of each
// innermost [rows, cols] matrix (elements moved as same-size integers, dispatch.h).
#include <algorithm>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

// The k operand as an int64 (absent: 0).
StatusOr<int64_t> ReadK(KernelContext& ctx) {
  if (ctx.num_inputs() < 2) return 0;
  const Tensor& k = ctx.input(1);
  if (k.num_elements() != 1) {
    return ctx.Error(absl::StrCat("k must be a scalar, got shape ", k.shape().ToString()));
  }
  if (k.dtype() == DType::kInt32) return int64_t{k.data<int32_t>()[0]};
  return k.data<int64_t>()[0];
}

KernelFactory TriluFactory() {
  return [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const bool upper = AttrOr<bool>(node, "upper", true);
    return std::make_unique<FnKernel>([upper](KernelContext& ctx) -> Status {
      const Tensor& x = ctx.input(0);
      ASSIGN_OR_RETURN(int64_t k, ReadK(ctx));
      const Shape& s = x.shape();
      ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, s));
      const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
      k = std::clamp<int64_t>(k, -rows - 1, cols + 1);  // same result, no overflow below
      if (x.num_elements() == 0) return absl::OkStatus();
      const int64_t batch = x.num_elements() / (rows * cols);
      return DispatchElement(x.dtype(), [&]<typename T>() -> Status {
        const T* in = x.data<T>();
        T* out = y->data<T>();
        for (int64_t b = 0; b < batch; ++b) {
          RETURN_IF_ERROR(ctx.cancellation().Check());
          for (int64_t i = 0; i < rows; ++i) {
            const int64_t row = (b * rows + i) * cols;
            // Kept columns: [max(0, i + k), cols) when upper, [0, i + k] when lower.
            const int64_t edge = std::clamp<int64_t>(upper ? i + k : i + k + 1, 0, cols);
            for (int64_t j = 0; j < cols; ++j) {
              const bool keep = upper ? j >= edge : j < edge;
              out[row + j] = keep ? in[row + j] : T();
            }
          }
        }
        return absl::OkStatus();
      });
    });
  };
}

}  // namespace

void RegisterMatrixKernels(KernelRegistry& r) {
  // Moves elements and writes zeros: every dtype (DType::kInvalid).
  r.Register("Trilu", kCpu, DType::kInvalid, TriluFactory());
}

}  // namespace graphd::executor::cpu
