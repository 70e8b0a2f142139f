// Window geometry shared by Conv2D / MaxPool / AvgPool inference and their kernels:
// attribute parsing and TensorFlow's output-size and padding rules.
#ifndef GRAPHD_CORE_OPS_CONV_UTIL_H_
#define GRAPHD_CORE_OPS_CONV_UTIL_H_

#include <string>

#include "core/attr_value.h"

namespace graphd::ops {

// NHWC spatial parameters of a 2-D window op.
struct Conv2DAttrs {
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t window_h = 0, window_w = 0;  // ksize (pools only)
  std::string padding;                 // "SAME", "VALID" or "EXPLICIT" (Conv2D only)
  int64_t explicit_pad[4] = {0, 0, 0, 0};  // top, bottom, left, right
};

// Reads strides (list of 4, batch and channel entries 1), padding, data_format (NHWC
// only), and for convolutions dilations and explicit_paddings (8 entries, NHWC pairs),
// for pools ksize. Errors are InvalidArgument without a node prefix.
StatusOr<Conv2DAttrs> ParseConv2DAttrs(const AttrMap& attrs, bool pool);

// One spatial dimension of a window op.
// The largest stride, dilation, window size or padding an attribute may give (TF's
// kernels take them as int32 too); larger ones are InvalidArgument, not overflows.
inline constexpr int64_t kMaxWindowAttr = (int64_t{1} << 31) - 1;

struct Window {
  int64_t out = 0;
  int64_t pad_before = 0, pad_after = 0;
};

// TensorFlow's output size for input size `in` (SAME: ceil(in / stride); VALID:
// ceil((in - effective_window + 1) / stride); EXPLICIT: with the given padding), and
// the padding SAME implies. InvalidArgument when the output would be negative.
StatusOr<Window> ComputeWindow(int64_t in, int64_t window, int64_t stride, int64_t dilation,
                               const std::string& padding, int64_t explicit_before,
                               int64_t explicit_after);

}  // namespace graphd::ops

#endif  // GRAPHD_CORE_OPS_CONV_UTIL_H_
