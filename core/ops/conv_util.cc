#include "core/ops/conv_util.h"

#include <algorithm>

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
  if ((*list)[1] < 1 || (*list)[2] < 1) {
    return errors::InvalidArgument(absl::StrCat("attribute '", name, "' [", absl::StrJoin(*list, ","),
                                                "] must be >= 1"));
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
      if ((*p)[2 + i] < 0) return errors::InvalidArgument("explicit_paddings must be >= 0");
      a.explicit_pad[i] = (*p)[2 + i];
    }
  }
  return a;
}

StatusOr<Window> ComputeWindow(int64_t in, int64_t window, int64_t stride, int64_t dilation,
                               const std::string& padding, int64_t explicit_before,
                               int64_t explicit_after) {
  Window w;
  const int64_t effective = (window - 1) * dilation + 1;
  if (padding == "SAME") {
    w.out = (in + stride - 1) / stride;
    int64_t total = std::max<int64_t>((w.out - 1) * stride + effective - in, 0);
    w.pad_before = total / 2;
    w.pad_after = total - w.pad_before;
    return w;
  }
  if (padding == "EXPLICIT") {
    w.pad_before = explicit_before;
    w.pad_after = explicit_after;
  }
  int64_t padded = in + w.pad_before + w.pad_after;
  if (padded < effective - stride) {
    return errors::InvalidArgument(absl::StrCat("the window (effective size ", effective,
                                                ") is larger than the padded input (", padded, ")"));
  }
  w.out = (padded - effective + stride) / stride;
  return w;
}

}  // namespace graphd::ops
