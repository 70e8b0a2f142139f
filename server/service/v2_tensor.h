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

// A declared input, checked (datatype, rank, dims, size), nothing allocated yet.
struct V2Input {
  DType dtype = DType::kInvalid;
  Shape shape;
  int64_t elements = 0;
};
StatusOr<V2Input> CheckV2Input(absl::string_view name, absl::string_view datatype, absl::Span<const int64_t> shape);
// Whether `raw_bytes` of raw contents can hold `in`: exactly its bytes, or for BYTES
// at least 4 per element (each one's length). Checked before allocating, so a small
// request cannot make the server allocate a large tensor.
Status CheckRawSize(absl::string_view name, const V2Input& in, size_t raw_bytes);
// The (uninitialised) tensor for a checked input; allocate only once the contents are
// known to fill it.
StatusOr<Tensor> AllocateV2Input(const V2Input& in);

// Fills `t` (from AllocateV2Input) from its raw form; the byte count must be exact.
Status FillFromRaw(absl::string_view name, absl::string_view raw, Tensor& t);

// The raw form of `t` (a host tensor).
std::string RawBytes(const Tensor& t);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_V2_TENSOR_H_
