// TensorArrayWrite, the sequence ops and OptionalGetElement on the CPU (see
// core/ops/tensor_array_ops.cc for the (values, shapes) representation of a sequence).
#include <cstring>

#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/strided_copy.h"

namespace graphd::executor::cpu {
namespace {

int64_t IntScalar(const Tensor& t) {
  return t.dtype() == DType::kInt32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
}

Status WriteFn(KernelContext& ctx) {
  const Tensor& buffer = ctx.input(0);
  const Tensor& index = ctx.input(1);
  const Tensor& value = ctx.input(2);
  int64_t i = IntScalar(index);
  if (i < 0) return ctx.Error(absl::StrCat("TensorArray index ", i, " is negative"));
  const bool empty = buffer.shape().rank() <= 1 && buffer.num_elements() == 0;
  int64_t rows = empty ? 0 : buffer.shape().dim(0);
  if (!empty) {
    std::vector<int64_t> elem(buffer.shape().dims().begin() + 1, buffer.shape().dims().end());
    if (elem != value.shape().dims()) {
      return ctx.Error("TensorArray elements have shape " + Shape(elem).ToString() + ", cannot write " +
                       value.shape().ToString());
    }
  }
  std::vector<int64_t> dims = {std::max(rows, i + 1)};
  dims.insert(dims.end(), value.shape().dims().begin(), value.shape().dims().end());
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(dims)));
  const int64_t row = value.num_elements();
  if (value.dtype() == DType::kString) {
    auto* o = out->data<std::string>();
    for (int64_t k = 0; k < rows * row; ++k) o[k] = buffer.data<std::string>()[k];
    for (int64_t k = 0; k < row; ++k) o[i * row + k] = value.data<std::string>()[k];
    return absl::OkStatus();
  }
  const size_t elem = DTypeSize(value.dtype());
  auto* o = static_cast<char*>(out->raw_data());
  std::memset(o, 0, out->bytes());
  if (rows > 0) std::memcpy(o, buffer.raw_data(), static_cast<size_t>(rows * row) * elem);
  if (row > 0) std::memcpy(o + static_cast<size_t>(i * row) * elem, value.raw_data(), static_cast<size_t>(row) * elem);
  return absl::OkStatus();
}

// TensorArrayWriteGrad(dy, buffer_shape, index) -> (d buffer, d value): the value's
// gradient is row `index` of dy; the buffer's is dy cut to the buffer's rows with that
// row zeroed, shaped [0] for the empty buffer (shape [0]) and [rows, element...]
// otherwise (buffer_shape may be just [rows]: a loop's gradient keeps only that).
Status WriteGradFn(KernelContext& ctx) {
  const Tensor& dy = ctx.input(0);
  const Tensor& shape = ctx.input(1);
  const int64_t i = IntScalar(ctx.input(2));
  if (dy.shape().rank() < 1 || i < 0 || i >= dy.shape().dim(0)) {
    return ctx.Error(absl::StrCat("row ", i, " is not in the gradient ", dy.shape().ToString()));
  }
  if (shape.shape().rank() != 1 || shape.num_elements() < 1) return ctx.Error("the buffer's shape must be a vector");
  const int64_t rows = shape.dtype() == DType::kInt32 ? shape.data<int32_t>()[0] : shape.data<int64_t>()[0];
  if (rows < 0 || rows > dy.shape().dim(0)) {
    return ctx.Error(absl::StrCat("a buffer of ", rows, " rows does not fit the gradient ", dy.shape().ToString()));
  }
  const std::vector<int64_t> elem(dy.shape().dims().begin() + 1, dy.shape().dims().end());
  std::vector<int64_t> buffer_dims = {rows};
  if (rows > 0 || shape.num_elements() > 1) buffer_dims.insert(buffer_dims.end(), elem.begin(), elem.end());
  ASSIGN_OR_RETURN(Tensor * d_buffer, ctx.AllocateOutput(0, Shape(buffer_dims)));
  ASSIGN_OR_RETURN(Tensor * d_value, ctx.AllocateOutput(1, Shape(elem)));
  const int64_t row = d_value->num_elements();
  const size_t size = DTypeSize(dy.dtype());
  if (row == 0) return absl::OkStatus();  // empty elements: nothing to copy
  auto* b = static_cast<char*>(d_buffer->raw_data());
  if (rows > 0) std::memcpy(b, dy.raw_data(), static_cast<size_t>(rows * row) * size);
  if (i < rows) std::memset(b + static_cast<size_t>(i * row) * size, 0, static_cast<size_t>(row) * size);
  std::memcpy(d_value->raw_data(), static_cast<const char*>(dy.raw_data()) + static_cast<size_t>(i * row) * size,
              static_cast<size_t>(row) * size);
  return absl::OkStatus();
}

// ---- sequences ----

// Copies `count` elements from src[src_at] to dst[dst_at] (same dtype).
void CopyElements(const Tensor& src, int64_t src_at, Tensor& dst, int64_t dst_at, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DType::kString) {
    for (int64_t k = 0; k < count; ++k) dst.data<std::string>()[dst_at + k] = src.data<std::string>()[src_at + k];
    return;
  }
  const size_t size = DTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + dst_at * size,
              static_cast<const char*>(src.raw_data()) + src_at * size, static_cast<size_t>(count) * size);
}

// A sequence's elements as shapes and offsets into its values.
struct Elements {
  std::vector<Shape> shapes;
  std::vector<int64_t> offsets;  // size n + 1
  int64_t rank = 0;
  int64_t size() const { return static_cast<int64_t>(shapes.size()); }
};

StatusOr<Elements> ReadSequence(KernelContext& ctx, int first) {
  const Tensor& values = ctx.input(first);
  const Tensor& shapes = ctx.input(first + 1);
  if (shapes.shape().rank() != 2) return ctx.Error("sequence shapes must be a matrix");
  Elements e;
  const int64_t n = shapes.shape().dim(0);
  e.rank = shapes.shape().dim(1);
  e.offsets.push_back(0);
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> dims(shapes.data<int64_t>() + k * e.rank, shapes.data<int64_t>() + (k + 1) * e.rank);
    for (int64_t d : dims) {
      if (d < 0) return ctx.Error("sequence shapes hold a negative dimension");
    }
    e.shapes.emplace_back(std::move(dims));
    e.offsets.push_back(e.offsets.back() + e.shapes.back().num_elements());
  }
  if (values.num_elements() != e.offsets.back()) {
    return ctx.Error(absl::StrCat("sequence values have ", values.num_elements(), " elements, its shapes say ",
                                  e.offsets.back()));
  }
  return e;
}

// Writes the sequence of `parts` (tensor, start offset in it, shape) to outputs 0 and 1.
struct Part {
  const Tensor* tensor;
  int64_t at;
  Shape shape;
};

Status WriteSequence(KernelContext& ctx, const std::vector<Part>& parts, int64_t rank) {
  int64_t total = 0;
  for (const Part& p : parts) {
    if (p.shape.rank() != rank) {
      return ctx.Error(absl::StrCat("sequence elements must share a rank: ", p.shape.ToString(), " in a sequence of rank ",
                                    rank));
    }
    total += p.shape.num_elements();
  }
  const int64_t n = static_cast<int64_t>(parts.size());
  ASSIGN_OR_RETURN(Tensor * values, ctx.AllocateOutput(0, Shape({total})));
  ASSIGN_OR_RETURN(Tensor * shapes, ctx.AllocateOutput(1, Shape({n, rank})));
  int64_t at = 0;
  for (int64_t k = 0; k < n; ++k) {
    const Part& p = parts[k];
    CopyElements(*p.tensor, p.at, *values, at, p.shape.num_elements());
    at += p.shape.num_elements();
    for (int64_t d = 0; d < rank; ++d) shapes->data<int64_t>()[k * rank + d] = p.shape.dim(static_cast<int>(d));
  }
  return absl::OkStatus();
}

std::vector<Part> PartsOf(const Tensor& values, const Elements& e) {
  std::vector<Part> parts;
  for (int64_t k = 0; k < e.size(); ++k) parts.push_back({&values, e.offsets[k], e.shapes[k]});
  return parts;
}

// The position tensor's value (negative counts from the end) checked against [0, limit].
StatusOr<int64_t> Position(KernelContext& ctx, const Tensor& position, int64_t n, int64_t limit) {
  if (position.num_elements() != 1) {
    return ctx.Error(absl::StrCat("the position must hold one value, got shape ", position.shape().ToString()));
  }
  int64_t pos = IntScalar(position);
  if (pos < 0) pos += n;
  if (pos < 0 || pos > limit) {
    return ctx.Error(absl::StrCat("position ", pos < 0 ? pos - n : pos, " is out of range for a sequence of ",
                                  n, " tensors"));
  }
  return pos;
}

Status ConstructFn(KernelContext& ctx) {
  std::vector<Part> parts;
  for (int i = 0; i < ctx.num_inputs(); ++i) parts.push_back({&ctx.input(i), 0, ctx.input(i).shape()});
  return WriteSequence(ctx, parts, parts.empty() ? 0 : parts[0].shape.rank());
}

Status InsertFn(KernelContext& ctx) {
  ASSIGN_OR_RETURN(Elements e, ReadSequence(ctx, 0));
  const Tensor& x = ctx.input(2);
  int64_t pos = e.size();
  if (ctx.num_inputs() > 3) {
    ASSIGN_OR_RETURN(pos, Position(ctx, ctx.input(3), e.size(), e.size()));
  }
  std::vector<Part> parts = PartsOf(ctx.input(0), e);
  parts.insert(parts.begin() + pos, Part{&x, 0, x.shape()});
  return WriteSequence(ctx, parts, x.shape().rank());
}

Status EraseFn(KernelContext& ctx) {
  ASSIGN_OR_RETURN(Elements e, ReadSequence(ctx, 0));
  if (e.size() == 0) return ctx.Error("cannot erase from an empty sequence");
  int64_t pos = e.size() - 1;
  if (ctx.num_inputs() > 2) {
    ASSIGN_OR_RETURN(pos, Position(ctx, ctx.input(2), e.size(), e.size() - 1));
  }
  std::vector<Part> parts = PartsOf(ctx.input(0), e);
  parts.erase(parts.begin() + pos);
  return WriteSequence(ctx, parts, e.rank);
}

Status AtFn(KernelContext& ctx) {
  ASSIGN_OR_RETURN(Elements e, ReadSequence(ctx, 0));
  ASSIGN_OR_RETURN(int64_t pos, Position(ctx, ctx.input(2), e.size(), e.size() - 1));
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, e.shapes[pos]));
  CopyElements(ctx.input(0), e.offsets[pos], *out, 0, e.shapes[pos].num_elements());
  return absl::OkStatus();
}

Status SplitToSequenceFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int rank = x.shape().rank();
  int64_t axis = AttrOr<int64_t>(ctx.node(), "axis", 0);
  if (axis < 0) axis += rank;
  const bool keepdims = AttrOr<int64_t>(ctx.node(), "keepdims", 1) != 0;
  const int64_t dim = x.shape().dim(static_cast<int>(axis));
  std::vector<int64_t> sizes;
  bool drop_axis = false;
  if (ctx.num_inputs() < 2) {
    sizes.assign(dim, 1);
    drop_axis = !keepdims;
  } else {
    const Tensor& split = ctx.input(1);
    auto at = [&](int64_t k) {
      return split.dtype() == DType::kInt32 ? split.data<int32_t>()[k] : split.data<int64_t>()[k];
    };
    if (split.shape().rank() == 0) {
      const int64_t step = at(0);
      if (step <= 0) return ctx.Error("split must be positive");
      for (int64_t s = 0; s < dim; s += step) sizes.push_back(std::min(step, dim - s));
    } else {
      int64_t sum = 0;
      for (int64_t k = 0; k < split.num_elements(); ++k) {
        if (at(k) < 0) return ctx.Error("split sizes must not be negative");
        sizes.push_back(at(k));
        sum += at(k);
      }
      if (sum != dim) return ctx.Error(absl::StrCat("split sizes sum to ", sum, ", the axis has ", dim));
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
  int64_t total = x.num_elements();
  const int64_t n = static_cast<int64_t>(sizes.size());
  const int64_t out_rank = drop_axis ? rank - 1 : rank;
  ASSIGN_OR_RETURN(Tensor * values, ctx.AllocateOutput(0, Shape({total})));
  ASSIGN_OR_RETURN(Tensor * shapes, ctx.AllocateOutput(1, Shape({n, out_rank})));
  int64_t start = 0, at = 0;
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> dims = x.shape().dims();
    dims[axis] = sizes[k];
    Box box{.shape = dims, .src_strides = strides, .dst_strides = RowMajorStrides(dims),
            .src_offset = start * strides[axis], .dst_offset = at};
    const int64_t count = Shape(dims).num_elements();
    if (count > 0) RETURN_IF_ERROR(CopyBox(x, *values, std::move(box), &ctx.cancellation()));
    if (drop_axis) dims.erase(dims.begin() + axis);
    for (int64_t d = 0; d < out_rank; ++d) shapes->data<int64_t>()[k * out_rank + d] = dims[d];
    start += sizes[k];
    at += count;
  }
  return absl::OkStatus();
}

Status ConcatFromSequenceFn(KernelContext& ctx) {
  ASSIGN_OR_RETURN(Elements e, ReadSequence(ctx, 0));
  if (e.size() == 0) return ctx.Error("cannot concatenate an empty sequence");
  const bool new_axis = AttrOr<int64_t>(ctx.node(), "new_axis", 0) != 0;
  const int out_rank = static_cast<int>(e.rank) + (new_axis ? 1 : 0);
  int64_t axis = AttrOr<int64_t>(ctx.node(), "axis", 0);
  if (axis < 0) axis += out_rank;
  // Each element as a block of the output: with new_axis, a 1 inserted at `axis`.
  std::vector<std::vector<int64_t>> blocks;
  for (const Shape& s : e.shapes) {
    std::vector<int64_t> dims = s.dims();
    if (new_axis) dims.insert(dims.begin() + axis, 1);
    blocks.push_back(std::move(dims));
  }
  std::vector<int64_t> out_dims = blocks[0];
  out_dims[axis] = 0;
  for (const auto& b : blocks) {
    for (int d = 0; d < out_rank; ++d) {
      if (d != axis && b[d] != out_dims[d]) {
        return ctx.Error(absl::StrCat("sequence elements ", e.shapes[0].ToString(), " and ", Shape(b).ToString(),
                                      " differ outside the concatenation axis"));
      }
    }
    out_dims[axis] += b[axis];
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(out_dims)));
  const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  int64_t along = 0;
  for (int64_t k = 0; k < e.size(); ++k) {
    Box box{.shape = blocks[k], .src_strides = RowMajorStrides(blocks[k]), .dst_strides = out_strides,
            .src_offset = e.offsets[k], .dst_offset = along * out_strides[axis]};
    if (Shape(blocks[k]).num_elements() > 0) {
      RETURN_IF_ERROR(CopyBox(ctx.input(0), *out, std::move(box), &ctx.cancellation()));
    }
    along += blocks[k][axis];
  }
  return absl::OkStatus();
}

Status OptionalGetFn(KernelContext& ctx) {
  if (!ctx.input(0).data<bool>()[0]) return ctx.Error("the optional is empty: it holds no element to get");
  for (int i = 1; i < ctx.num_inputs(); ++i) ctx.set_output(i - 1, ctx.input(i));
  return absl::OkStatus();
}

}  // namespace

void RegisterTensorArrayKernels(KernelRegistry& r) {
  r.Register("TensorArrayWrite", kCpu, DType::kInvalid, FnKernel::Factory(WriteFn));
  r.Register("TensorArrayWriteGrad", kCpu, {DType::kFloat32, DType::kFloat64},
             FnKernel::Factory(WriteGradFn));
  r.Register("SequenceConstruct", kCpu, DType::kInvalid, FnKernel::Factory(ConstructFn));
  r.Register("SequenceInsert", kCpu, DType::kInvalid, FnKernel::Factory(InsertFn));
  r.Register("SequenceErase", kCpu, DType::kInvalid, FnKernel::Factory(EraseFn));
  r.Register("SequenceAt", kCpu, DType::kInvalid, FnKernel::Factory(AtFn));
  r.Register("SplitToSequence", kCpu, DType::kInvalid, FnKernel::Factory(SplitToSequenceFn));
  r.Register("ConcatFromSequence", kCpu, DType::kInvalid, FnKernel::Factory(ConcatFromSequenceFn));
  r.Register("OptionalGetElement", kCpu, DType::kInvalid, FnKernel::Factory(OptionalGetFn));
}

}  // namespace graphd::executor::cpu
