// TensorFlow's StridedSlice semantics (begin/end/strides with begin_mask, end_mask,
// ellipsis_mask, new_axis_mask, shrink_axis_mask), shared by inference and kernels:
// tensor indexing such as x[1:, None, ::2, 3] becomes one StridedSlice.
#ifndef GRAPHD_CORE_OPS_STRIDED_SLICE_H_
#define GRAPHD_CORE_OPS_STRIDED_SLICE_H_

#include <vector>

#include "core/attr_value.h"

namespace graphd::ops {

struct StridedSliceAttrs {
  IntList begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;
};

// Reads and checks the attributes: begin, end, strides of one length (<= 64 entries),
// at most one ellipsis bit. Errors carry no node prefix.
StatusOr<StridedSliceAttrs> ParseStridedSliceAttrs(const AttrMap& attrs);

// The slice of an input of a given shape, one entry per input dimension: element j of
// the processing result along dim d reads input index begin[d] + j * strides[d].
struct StridedSlicePlan {
  std::vector<int64_t> begin, strides;
  std::vector<int64_t> processing_shape;  // per input dim; kUnknownDim where unknown
  std::vector<int64_t> final_shape;       // the output shape (new axes, shrunk dims gone)
};

// `input` must have a known rank. Unknown dims give unknown sizes (shrunk ones are 1).
// InvalidArgument for zero strides, out-of-bounds shrink indices, and too many indices.
StatusOr<StridedSlicePlan> PlanStridedSlice(const PartialShape& input,
                                            const StridedSliceAttrs& attrs);

}  // namespace graphd::ops

#endif  // GRAPHD_CORE_OPS_STRIDED_SLICE_H_
