// DepthToSpace and SpaceToDepth (core/ops/space_ops.cc) in NHWC or NCHW on any
// dtype: each output element is copied from the input element it maps to.
#include "executor/cpu/dispatch.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

// A rank-4 tensor's dims by role, and the flat offset of (n, h, w, c) in its layout.
struct Layout {
  bool nchw;
  int64_t n, h, w, c;
  int64_t Offset(int64_t in, int64_t ih, int64_t iw, int64_t ic) const {
    return nchw ? ((in * c + ic) * h + ih) * w + iw : ((in * h + ih) * w + iw) * c + ic;
  }
};

Layout LayoutOf(const Shape& s, bool nchw) {
  return nchw ? Layout{true, s.dim(0), s.dim(2), s.dim(3), s.dim(1)}
              : Layout{false, s.dim(0), s.dim(1), s.dim(2), s.dim(3)};
}

KernelFactory SpaceFactory(bool to_space) {
  return [to_space](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const int64_t b = AttrOr<int64_t>(node, "block_size", 1);
    const bool nchw = AttrOr<std::string>(node, "data_format", "NHWC") == "NCHW";
    const bool crd = AttrOr<std::string>(node, "mode", "DCR") == "CRD";
    return std::make_unique<FnKernel>([=](KernelContext& ctx) -> Status {
      const Tensor& x = ctx.input(0);
      if (x.shape().rank() != 4) {
        return ctx.Error(absl::StrCat("input must have rank 4, got ", x.shape().ToString()));
      }
      const Layout in = LayoutOf(x.shape(), nchw);
      Layout out = in;
      if (to_space) {
        if (in.c % (b * b) != 0) return ctx.Error("channels are not divisible by block_size^2");
        out.h *= b, out.w *= b, out.c /= b * b;
      } else {
        if (in.h % b != 0 || in.w % b != 0) {
          return ctx.Error("height and width must be divisible by block_size");
        }
        out.h /= b, out.w /= b, out.c *= b * b;
      }
      Shape shape =
          nchw ? Shape({out.n, out.c, out.h, out.w}) : Shape({out.n, out.h, out.w, out.c});
      ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, shape));
      return DispatchElement(x.dtype(), [&]<typename T>() -> Status {
        const T* src = x.data<T>();
        T* dst = y->data<T>();
        for (int64_t n = 0; n < out.n; ++n) {
          RETURN_IF_ERROR(ctx.cancellation().Check());
          for (int64_t h = 0; h < out.h; ++h) {
            for (int64_t w = 0; w < out.w; ++w) {
              for (int64_t c = 0; c < out.c; ++c) {
                int64_t from;
                if (to_space) {
                  const int64_t i = h % b, j = w % b;
                  const int64_t ic = crd ? c * b * b + i * b + j : (i * b + j) * out.c + c;
                  from = in.Offset(n, h / b, w / b, ic);
                } else {
                  const int64_t block = c / in.c;
                  from = in.Offset(n, h * b + block / b, w * b + block % b, c % in.c);
                }
                dst[out.Offset(n, h, w, c)] = src[from];
              }
            }
          }
        }
        return absl::OkStatus();
      });
    });
  };
}

}  // namespace

void RegisterSpaceKernels(KernelRegistry& r) {
  r.Register("DepthToSpace", kCpu, DType::kInvalid, SpaceFactory(true));
  r.Register("SpaceToDepth", kCpu, DType::kInvalid, SpaceFactory(false));
}

}  // namespace graphd::executor::cpu
