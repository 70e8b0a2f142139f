#include "core/ops/conv_util.h"

#include <algorithm>

#include "core/dim_math.h"

namespace graphd::ops {
namespace {

template <typename T>
const T* Find(const AttrMap& attrs, absl::string_view name) {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : std::get_if<T>(&it->second);
}

// A 4-entry NHWC list with 1 in the batch and channel slots; `present` false when absent.
Status Read4(const AttrMap& attrs, absl::string_view name, bool required, int64_t* h,
             int64_t* w) {
  auto it = attrs.find(name);
  if (it == attrs.end()) {
    if (required) return errors::InvalidArgument(absl::StrCat("missing attribute '", name, "'"));
    return absl::OkStatus();
  }
  const IntList* list = std::get_if<IntList>(&it->second);
  if (list == nullptr || list->size() != 4) {
    return errors::InvalidArgument(
        absl::StrCat("attribute '", name, "' must be a list of 4 ints (NHWC)"));
  }
  if ((*list)[0] != 1 || (*list)[3] != 1) {
    return errors::InvalidArgument(absl::StrCat("attribute '", name, "' [", absl::StrJoin(*list, ","),
                                                "] must be 1 in the batch and channel dimensions"));
  }
  if ((*list)[1] < 1 || (*list)[2] < 1 || (*list)[1] > kMaxWindowAttr || (*list)[2] > kMaxWindowAttr) {
    return errors::InvalidArgument(absl::StrCat("attribute '", name, "' [", absl::StrJoin(*list, ","),
                                                "] must be between 1 and ", kMaxWindowAttr));
  }
  *h = (*list)[1];
  *w = (*list)[2];
  return absl::OkStatus();
}

}  // namespace

StatusOr<Conv2DAttrs> ParseConv2DAttrs(const AttrMap& attrs, bool pool) {
  Conv2DAttrs a;
  if (const std::string* f = Find<std::string>(attrs, "data_format"); f && *f != "NHWC") {
    return errors::InvalidArgument(
        absl::StrCat("data_format '", *f, "' is not supported; only NHWC"));
  }
  RETURN_IF_ERROR(Read4(attrs, "strides", true, &a.stride_h, &a.stride_w));
  if (pool) {
    RETURN_IF_ERROR(Read4(attrs, "ksize", true, &a.window_h, &a.window_w));
  } else {
    RETURN_IF_ERROR(Read4(attrs, "dilations", false, &a.dilation_h, &a.dilation_w));
  }
  const std::string* padding = Find<std::string>(attrs, "padding");
  if (padding == nullptr) return errors::InvalidArgument("missing string attribute 'padding'");
  a.padding = *padding;
  if (a.padding != "SAME" && a.padding != "VALID" && (pool || a.padding != "EXPLICIT")) {
    return errors::InvalidArgument(absl::StrCat("padding '", a.padding, "' must be SAME, VALID",
                                                pool ? "" : " or EXPLICIT"));
  }
  if (a.padding == "EXPLICIT") {
    const IntList* p = Find<IntList>(attrs, "explicit_paddings");
    if (p == nullptr || p->size() != 8) {
      return errors::InvalidArgument("padding EXPLICIT needs explicit_paddings with 8 entries");
    }
    if ((*p)[0] != 0 || (*p)[1] != 0 || (*p)[6] != 0 || (*p)[7] != 0) {
      return errors::InvalidArgument("explicit_paddings must be 0 in the batch and channel dimensions");
    }
    for (int i = 0; i < 4; ++i) {
      if ((*p)[2 + i] < 0 || (*p)[2 + i] > kMaxWindowAttr) {
        return errors::InvalidArgument(absl::StrCat("explicit_paddings must be between 0 and ", kMaxWindowAttr));
      }
      a.explicit_pad[i] = (*p)[2 + i];
    }
  }
  return a;
}

StatusOr<Window> ComputeWindow(int64_t in, int64_t window, int64_t stride, int64_t dilation,
                               const std::string& padding, int64_t explicit_before,
                               int64_t explicit_after) {
  // Sizes from attributes (at most kMaxWindowAttr each) and input dims (up to 2^63):
  // every step checked, never wrapped.
  Window w;
  ASSIGN_OR_RETURN(int64_t span, CheckedMul(window - 1, dilation, "the window's effective size"));
  const int64_t effective = span + 1;
  if (padding == "SAME") {
    w.out = in / stride + (in % stride != 0 ? 1 : 0);
    ASSIGN_OR_RETURN(int64_t covered, CheckedMul(std::max<int64_t>(w.out - 1, 0), stride, "the padded size"));
    ASSIGN_OR_RETURN(covered, CheckedAdd(covered, effective, "the padded size"));
    const int64_t total = std::max<int64_t>(covered - in, 0);
    w.pad_before = total / 2;
    w.pad_after = total - w.pad_before;
    return w;
  }
  if (padding == "EXPLICIT") {
    w.pad_before = explicit_before;
    w.pad_after = explicit_after;
  }
  ASSIGN_OR_RETURN(int64_t padded, CheckedAdd(in, w.pad_before, "the padded input size"));
  ASSIGN_OR_RETURN(padded, CheckedAdd(padded, w.pad_after, "the padded input size"));
  if (padded < effective - stride) {
    return errors::InvalidArgument(absl::StrCat("the window (effective size ", effective,
                                                ") is larger than the padded input (", padded, ")"));
  }
  w.out = padded < effective ? 0 : (padded - effective) / stride + 1;
  return w;
}

}  // namespace graphd::ops
