#include "core/ops/window_nd.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "core/dim_math.h"
#include "core/ops/conv_util.h"

namespace graphd::ops {
namespace {

// The list attribute `name` with `count` entries >= `min`, or `count` copies of
// `fallback` when absent.
StatusOr<IntList> ReadList(const AttrMap& attrs, absl::string_view name, size_t count,
                           int64_t min, int64_t fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return IntList(count, fallback);
  const IntList* list = std::get_if<IntList>(&it->second);
  if (list == nullptr || list->size() != count) {
    return errors::InvalidArgument(
        absl::StrCat("attribute '", name, "' must be a list of ", count, " ints"));
  }
  for (int64_t v : *list) {
    if (v < min || v > kMaxWindowAttr) {
      return errors::InvalidArgument(absl::StrCat("attribute '", name, "' [", absl::StrJoin(*list, ","),
                                                  "] must be between ", min, " and ", kMaxWindowAttr));
    }
  }
  return *list;
}

}  // namespace

StatusOr<WindowNd> ParseWindowNd(const AttrMap& attrs, int dims, bool pool) {
  if (dims < 1 || dims > kMaxWindowDims) {
    return errors::InvalidArgument(
        absl::StrCat("the input must have 1 to 3 spatial dims (rank 3 to 5), got ", dims));
  }
  WindowNd w;
  w.dims = dims;
  const size_t n = static_cast<size_t>(dims);
  if (pool) {
    if (!attrs.contains("kernel_shape")) return errors::InvalidArgument("missing attribute 'kernel_shape'");
    ASSIGN_OR_RETURN(w.kernel, ReadList(attrs, "kernel_shape", n, 1, 1));
    auto it = attrs.find("ceil_mode");
    if (it != attrs.end()) {
      const bool* b = std::get_if<bool>(&it->second);
      if (b == nullptr) return errors::InvalidArgument("attribute 'ceil_mode' must be a bool");
      w.ceil_mode = *b;
    }
  }
  ASSIGN_OR_RETURN(w.strides, ReadList(attrs, "strides", n, 1, 1));
  ASSIGN_OR_RETURN(w.dilations, ReadList(attrs, "dilations", n, 1, 1));
  ASSIGN_OR_RETURN(IntList pads, ReadList(attrs, "pads", 2 * n, 0, 0));
  w.pads_begin.assign(pads.begin(), pads.begin() + dims);
  w.pads_end.assign(pads.begin() + dims, pads.end());
  ASSIGN_OR_RETURN(w.output_padding, ReadList(attrs, "output_padding", n, 0, 0));
  return w;
}

StatusOr<int64_t> WindowOutDim(const WindowNd& w, int i, int64_t in, int64_t kernel) {
  // Attributes are at most kMaxWindowAttr; input dims up to 2^63: checked arithmetic.
  ASSIGN_OR_RETURN(int64_t span, CheckedMul(kernel - 1, w.dilations[i], "the window's effective size"));
  const int64_t effective = span + 1;
  ASSIGN_OR_RETURN(int64_t padded, CheckedAdd(in, w.pads_begin[i], "the padded input size"));
  ASSIGN_OR_RETURN(padded, CheckedAdd(padded, w.pads_end[i], "the padded input size"));
  if (padded < effective) {
    return errors::InvalidArgument(absl::StrCat("the window (effective size ", effective,
                                                ") is larger than the padded input (", padded,
                                                ") in spatial dim ", i));
  }
  const int64_t s = w.strides[i];
  int64_t out = (padded - effective) / s + 1;
  if (w.ceil_mode && (padded - effective) % s != 0) {
    ++out;
    // A last window that would start inside the end padding is dropped.
    if ((out - 1) * s >= in + w.pads_begin[i]) --out;
  }
  return out;
}

StatusOr<int64_t> TransposedOutDim(const WindowNd& w, int i, int64_t in, int64_t kernel) {
  ASSIGN_OR_RETURN(int64_t out, CheckedMul(w.strides[i], in - 1, "the transposed output size"));
  ASSIGN_OR_RETURN(int64_t span, CheckedMul(kernel - 1, w.dilations[i], "the window's effective size"));
  ASSIGN_OR_RETURN(out, CheckedAdd(out, w.output_padding[i] + span + 1, "the transposed output size"));
  out -= w.pads_begin[i] + w.pads_end[i];
  if (out < 0) {
    return errors::InvalidArgument(
        absl::StrCat("the output size of spatial dim ", i, " would be negative (", out, ")"));
  }
  return out;
}

std::vector<int64_t> ToChannelsFirst(std::vector<int64_t> dims) {
  if (dims.size() >= 3) std::rotate(dims.begin() + 1, dims.end() - 1, dims.end());
  return dims;
}

std::vector<int64_t> ToChannelsLast(std::vector<int64_t> dims) {
  if (dims.size() >= 3) std::rotate(dims.begin() + 1, dims.begin() + 2, dims.end());
  return dims;
}

}  // namespace graphd::ops
