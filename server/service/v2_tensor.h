// KServe v2 tensors independent of the transport: a declared input (name, datatype,
// shape) checked and allocated, and the "raw" byte form of a tensor's elements
// (little-endian, row-major; BYTES elements each as a 4-byte little-endian length and
// its bytes), which both the gRPC raw contents and the HTTP binary-data extension use.
// Everything is checked before anything is allocated: the datatype, the rank, non-
// negative dims, the element count against --max-tensor-bytes.
#ifndef GRAPHD_SERVER_SERVICE_V2_TENSOR_H_
#define GRAPHD_SERVER_SERVICE_V2_TENSOR_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor.h"

namespace graphd::server {

// Most inputs one request may carry, and most dims of one.
inline constexpr int kMaxV2Inputs = 1024;
inline constexpr int kMaxV2Rank = 32;

// InvalidArgument "input 'NAME': PROBLEM".
Status BadInput(absl::string_view name, absl::string_view problem);

// An uninitialised tensor for input `name` of `datatype` and `shape`, all checked.
StatusOr<Tensor> AllocateV2Input(absl::string_view name, absl::string_view datatype, absl::Span<const int64_t> shape);

// Fills `t` (from AllocateV2Input) from its raw form; the byte count must be exact.
Status FillFromRaw(absl::string_view name, absl::string_view raw, Tensor& t);

// The raw form of `t` (a host tensor).
std::string RawBytes(const Tensor& t);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_V2_TENSOR_H_
