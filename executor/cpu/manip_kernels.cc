// Transpose (a view when only size-1 axes move; register shuffles when a short axis
// moves to or from the innermost position, channel_interleave.h; 8x8 tiles when no
// run moves together, tile_transpose.h; a oneDNN reorder for other large float32
// tensors unless it keeps long runs together), Tile, ReverseV2,
// ReverseSequence and Pad, all as strided box copies (strided_copy.h) otherwise.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "core/dim_math.h"
#include "executor/cpu/channel_interleave.h"
#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/strided_copy.h"
#include "executor/cpu/tile_transpose.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kDnnlMinElements = 4096;

// Transposes that keep runs of at least this many elements together are copies of
// those runs (strided_copy.h), faster than a oneDNN reorder below kMaxRunCopyElements
// (kernels_bench BM_Transpose); beyond, the reorder's threads win.
constexpr int64_t kMinCopyRun = 16;
constexpr int64_t kMaxRunCopyElements = int64_t{1} << 18;

// Whether `perm` moves only axes of size 1: the other axes keep their order, so the
// output holds the input's elements in the input's order.
bool MovesOnlyUnitAxes(const Shape& shape, const IntList& perm) {
  int64_t last = -1;
  for (int64_t axis : perm) {
    if (shape.dim(static_cast<int>(axis)) == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

// Elements the transpose copies as one contiguous run: the trailing input axes (sizes
// 1 aside) that stay trailing and in order in the output.
int64_t ContiguousRun(const Shape& shape, const IntList& perm) {
  int64_t run = 1;
  int in_axis = shape.rank() - 1;
  for (int i = static_cast<int>(perm.size()) - 1; i >= 0; --i) {
    const int axis = static_cast<int>(perm[i]);
    if (shape.dim(axis) == 1) continue;
    while (in_axis >= 0 && shape.dim(in_axis) == 1) --in_axis;
    if (axis != in_axis) break;
    run *= shape.dim(axis);
    --in_axis;
  }
  return run;
}

class TransposeKernel : public OpKernel {
 public:
  explicit TransposeKernel(std::optional<IntList> perm) : perm_(std::move(perm)) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const int rank = x.shape().rank();
    IntList perm;
    if (perm_) {
      perm = *perm_;
    } else {
      for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
    }
    if (static_cast<int>(perm.size()) != rank) {
      return ctx.Error(absl::StrCat("perm [", absl::StrJoin(perm, ","), "] has ", perm.size(),
                                    " entries but the input ", x.shape().ToString(),
                                    " has rank ", rank));
    }
    std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dims());
    Box box;
    for (int i = 0; i < rank; ++i) {
      box.shape.push_back(x.shape().dim(static_cast<int>(perm[i])));
      box.src_strides.push_back(in_strides[perm[i]]);
    }
    box.dst_strides = RowMajorStrides(box.shape);
    if (MovesOnlyUnitAxes(x.shape(), perm)) {  // the same elements in the same order: a view
      auto view = x.Reshaped(Shape(box.shape));
      if (!view.ok()) return ctx.Error(view.status());
      ctx.set_output(0, *std::move(view));
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(box.shape)));
    if (CopyChannelInterleave(x, *out, box)) return absl::OkStatus();
    const bool runs = ContiguousRun(x.shape(), perm) >= kMinCopyRun && x.num_elements() < kMaxRunCopyElements;
    if (!runs) {
      if (std::optional<Status> tiled = CopyTransposedTiles(x, *out, box, &ctx.cancellation())) return *tiled;
    }
    if (x.dtype() == DType::kFloat32 && x.num_elements() >= kDnnlMinElements && rank <= DNNL_MAX_NDIMS && !runs) {
      RunReorder(x, *out, box);
      return absl::OkStatus();
    }
    return CopyBox(x, *out, std::move(box), &ctx.cancellation());
  }

 private:
  // A reorder from the input viewed in output order (permuted strides) to plain.
  void RunReorder(const Tensor& x, Tensor& out, const Box& box) {
    dnnl::memory::dims dims(box.shape.begin(), box.shape.end());
    dnnl::memory::desc src(dims, dnnl::memory::data_type::f32,
                           dnnl::memory::dims(box.src_strides.begin(), box.src_strides.end()));
    dnnl::memory::desc dst = PlainDesc(dims);
    std::vector<int64_t> key = box.shape;
    key.insert(key.end(), box.src_strides.begin(), box.src_strides.end());
    dnnl::reorder prim = cache_.Get(key, [&] {
      return dnnl::reorder(
          dnnl::reorder::primitive_desc(Engine(), src, Engine(), dst, PrimitiveAttr()));
    });
    RunPrimitive(prim, {{DNNL_ARG_FROM, Wrap(src, x)}, {DNNL_ARG_TO, Wrap(dst, out)}},
                 2 * out.num_elements());  // reads a box of out's size
  }

  std::optional<IntList> perm_;
  PrimitiveCache<dnnl::reorder> cache_;
};

Status TileFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const IntList multiples = AttrOr<IntList>(ctx.node(), "multiples", {});
  const int rank = x.shape().rank();
  if (static_cast<int>(multiples.size()) != rank) {
    return ctx.Error(absl::StrCat("multiples has ", multiples.size(), " entries but the input ",
                                  x.shape().ToString(), " has rank ", rank));
  }
  std::vector<int64_t> out_dims(rank);
  for (int i = 0; i < rank; ++i) {
    if (multiples[i] < 0) return ctx.Error(absl::StrCat("multiples must be >= 0, got ", multiples[i]));
    auto size = CheckedMul(x.shape().dim(i), multiples[i], "the output size");
    if (!size.ok()) return ctx.Error(size.status().message());
    out_dims[i] = *size;
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(out_dims)));
  // View the output as [m0, d0, m1, d1, ...]: repeat r of dim k starts at r * d_k.
  std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dims());
  std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  Box box;
  for (int i = 0; i < rank; ++i) {
    box.shape.insert(box.shape.end(), {multiples[i], x.shape().dim(i)});
    box.src_strides.insert(box.src_strides.end(), {0, in_strides[i]});
    box.dst_strides.insert(box.dst_strides.end(),
                           {x.shape().dim(i) * out_strides[i], out_strides[i]});
  }
  return CopyBox(x, *out, std::move(box), &ctx.cancellation());
}

Status ReverseFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int rank = x.shape().rank();
  std::vector<bool> reversed(rank, false);
  for (int64_t a : AttrOr<IntList>(ctx.node(), "axis", {})) {
    if (a < -rank || a >= rank) {
      return ctx.Error(absl::StrCat("axis ", a, " is out of range for a tensor of rank ", rank));
    }
    reversed[Canonical(a, rank)] = true;
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, x.shape()));
  Box box{.shape = x.shape().dims(), .src_strides = RowMajorStrides(x.shape().dims())};
  box.dst_strides = box.src_strides;
  for (int i = 0; i < rank; ++i) {
    if (reversed[i] && box.shape[i] > 0) {
      box.src_offset += (box.shape[i] - 1) * box.src_strides[i];
      box.src_strides[i] = -box.src_strides[i];
    }
  }
  return CopyBox(x, *out, std::move(box), &ctx.cancellation());
}

// ReverseSequence: per batch entry b, two boxes: the first seq_lengths[b] slices along
// seq_dim read backwards, the rest as they are.
Status ReverseSequenceFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& lengths = ctx.input(1);
  const std::vector<int64_t>& dims = x.shape().dims();
  const int rank = x.shape().rank();
  const int seq = Canonical(AttrOr<int64_t>(ctx.node(), "seq_dim", 0), rank);
  const int batch = Canonical(AttrOr<int64_t>(ctx.node(), "batch_dim", 0), rank);
  if (lengths.num_elements() != dims[batch]) {
    return ctx.Error(absl::StrCat("seq_lengths has ", lengths.num_elements(),
                                  " entries but batch_dim has ", dims[batch]));
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, x.shape()));
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  for (int64_t b = 0; b < dims[batch]; ++b) {
    const int64_t len = lengths.dtype() == DType::kInt32 ? lengths.data<int32_t>()[b]
                                                         : lengths.data<int64_t>()[b];
    if (len < 0 || len > dims[seq]) {
      return ctx.Error(absl::StrCat("seq_lengths[", b, "] = ", len, " is outside [0, ", dims[seq],
                                    "]"));
    }
    Box box{.shape = dims, .src_strides = strides, .dst_strides = strides};
    box.shape[batch] = 1;
    box.src_offset = box.dst_offset = b * strides[batch];
    Box rest = box;
    box.shape[seq] = len;
    if (len > 0) {
      box.src_offset += (len - 1) * strides[seq];
      box.src_strides[seq] = -strides[seq];
      RETURN_IF_ERROR(CopyBox(x, *out, std::move(box), &ctx.cancellation()));
    }
    rest.shape[seq] = dims[seq] - len;
    rest.src_offset += len * strides[seq];
    rest.dst_offset += len * strides[seq];
    RETURN_IF_ERROR(CopyBox(x, *out, std::move(rest), &ctx.cancellation()));
  }
  return absl::OkStatus();
}

// Pad: CONSTANT fills then copies the input into the interior; REFLECT, SYMMETRIC and EDGE
// map each output index to an input index per dimension.
Status PadFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Node& node = ctx.node();
  const IntList pads = AttrOr<IntList>(node, "paddings", {});
  const std::string mode = AttrOr<std::string>(node, "mode", "CONSTANT");
  const int rank = x.shape().rank();
  if (static_cast<int>(pads.size()) != 2 * rank) {
    return ctx.Error(absl::StrCat("paddings have ", pads.size(), " entries but the input ",
                                  x.shape().ToString(), " has rank ", rank));
  }
  std::vector<int64_t> out_dims(rank);
  for (int i = 0; i < rank; ++i) {
    int64_t d = x.shape().dim(i), limit = mode == "REFLECT" ? d - 1 : d;
    if (mode == "EDGE") limit = d > 0 ? std::numeric_limits<int64_t>::max() : 0;
    if (mode != "CONSTANT" && (pads[2 * i] > limit || pads[2 * i + 1] > limit)) {
      return ctx.Error(absl::StrCat(mode, " paddings of dimension ", i, " must be <= ", limit,
                                    " for size ", d));
    }
    auto padded = CheckedAdd(d, pads[2 * i], "the padded size");
    if (padded.ok()) padded = CheckedAdd(*padded, pads[2 * i + 1], "the padded size");
    if (!padded.ok()) return ctx.Error(padded.status().message());
    out_dims[i] = *padded;
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(out_dims)));
  std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dims());
  std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  if (mode == "CONSTANT") {
    if (x.dtype() == DType::kString) {
      std::fill(out->data<std::string>(), out->data<std::string>() + out->num_elements(),
                AttrOr<std::string>(node, "constant_values", ""));
    } else {
      RETURN_IF_ERROR(DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
        std::fill(out->data<T>(), out->data<T>() + out->num_elements(),
                  NumberAttrAs<T>(node, "constant_values", 0));
        return absl::OkStatus();
      }));
    }
    Box box{.shape = x.shape().dims(), .src_strides = in_strides, .dst_strides = out_strides};
    for (int i = 0; i < rank; ++i) box.dst_offset += pads[2 * i] * out_strides[i];
    return CopyBox(x, *out, std::move(box), &ctx.cancellation());
  }
  // Per-dimension source offsets of each output index.
  const bool reflect = mode == "REFLECT";
  std::vector<std::vector<int64_t>> source(rank);
  for (int k = 0; k < rank; ++k) {
    const int64_t d = x.shape().dim(k);
    for (int64_t o = 0; o < out_dims[k]; ++o) {
      int64_t i = o - pads[2 * k];
      if (mode == "EDGE") {
        i = std::clamp<int64_t>(i, 0, d - 1);
      } else {
        if (i < 0) i = reflect ? -i : -i - 1;
        if (i >= d) i = reflect ? 2 * (d - 1) - i : 2 * d - 1 - i;
      }
      source[k].push_back(i * in_strides[k]);
    }
  }
  if (out->num_elements() == 0) return absl::OkStatus();
  return DispatchElement(x.dtype(), [&]<typename T>() -> Status {
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    std::vector<int64_t> index(rank, 0);
    const int64_t n = out->num_elements();
    for (int64_t o = 0; o < n; ++o) {
      if (o % (int64_t{1} << 16) == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
      int64_t s = 0;
      for (int k = 0; k < rank; ++k) s += source[k][index[k]];
      dst[o] = src[s];
      for (int k = rank - 1; k >= 0; --k) {
        if (++index[k] < out_dims[k]) break;
        index[k] = 0;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterManipKernels(KernelRegistry& r) {
  r.Register("Transpose", kCpu, DType::kInvalid,
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               std::optional<IntList> perm;
               if (node.attrs().contains("perm")) perm = AttrOr<IntList>(node, "perm", {});
               return std::make_unique<TransposeKernel>(std::move(perm));
             });
  r.Register("Tile", kCpu, DType::kInvalid, FnKernel::Factory(TileFn));
  r.Register("ReverseV2", kCpu, DType::kInvalid, FnKernel::Factory(ReverseFn));
  r.Register("ReverseSequence", kCpu, DType::kInvalid, FnKernel::Factory(ReverseSequenceFn));
  std::vector<DType> pad_types(std::begin(kCastDTypes), std::end(kCastDTypes));
  pad_types.push_back(DType::kString);
  r.Register("Pad", kCpu, std::span<const DType>(pad_types), FnKernel::Factory(PadFn));
}

}  // namespace graphd::executor::cpu
