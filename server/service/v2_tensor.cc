#include "server/service/v2_tensor.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "server/models/datatypes.h"

namespace graphd::server {

Status BadInput(absl::string_view name, absl::string_view problem) {
  return errors::InvalidArgument(absl::StrCat("input '", name, "': ", problem));
}

StatusOr<V2Input> CheckV2Input(absl::string_view name, absl::string_view datatype, absl::Span<const int64_t> shape) {
  V2Input in;
  ASSIGN_OR_RETURN(in.dtype, models::DTypeFromV2(datatype, absl::StrCat("input '", name, "'")));
  if (shape.size() > kMaxV2Rank) return BadInput(name, absl::StrCat("more than ", kMaxV2Rank, " dimensions"));
  const int64_t limit = MaxTensorBytes() / static_cast<int64_t>(DTypeSize(in.dtype));
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0) return BadInput(name, absl::StrCat("dims must be at least 0, got ", d));
    if (d > 0 && elements > limit / d) {
      return BadInput(name, absl::StrCat("more elements than --max-tensor-bytes (", MaxTensorBytes(), ") allows"));
    }
    elements *= d;
  }
  ASSIGN_OR_RETURN(in.shape, Shape::Make(std::vector<int64_t>(shape.begin(), shape.end())));
  in.elements = elements;
  return in;
}

Status CheckRawSize(absl::string_view name, const V2Input& in, size_t raw_bytes) {
  const absl::string_view type = models::V2DataType(in.dtype);
  if (in.dtype == DType::kString) {
    if (raw_bytes / 4 < static_cast<size_t>(in.elements)) {
      return BadInput(name, absl::StrCat("raw BYTES of ", raw_bytes, " bytes cannot hold ", in.elements,
                                         " elements (each needs a 4-byte length)"));
    }
    return absl::OkStatus();
  }
  size_t want = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(in.elements), DTypeSize(in.dtype), &want)) {
    return BadInput(name, absl::StrCat(type, in.shape.ToString(), " is more bytes than a size can hold"));
  }
  if (raw_bytes != want) {
    return BadInput(name, absl::StrCat(type, in.shape.ToString(), " is ", want, " bytes; its raw contents have ",
                                       raw_bytes));
  }
  return absl::OkStatus();
}

StatusOr<Tensor> AllocateV2Input(const V2Input& in) { return Tensor::Allocate(in.dtype, in.shape); }

Status FillFromRaw(absl::string_view name, absl::string_view raw, Tensor& t) {
  if (t.dtype() != DType::kString) {
    if (raw.size() != t.bytes()) {
      return BadInput(name, absl::StrCat(models::V2DataType(t.dtype()), t.shape().ToString(), " is ", t.bytes(),
                                         " bytes; its raw contents have ", raw.size()));
    }
    std::memcpy(t.raw_data(), raw.data(), raw.size());
    if (t.dtype() == DType::kBool) {
      for (int64_t i = 0; i < t.num_elements(); ++i) t.data<bool>()[i] = raw[i] != 0;
    }
    return absl::OkStatus();
  }
  size_t at = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (raw.size() - at < 4) return BadInput(name, absl::StrCat("raw BYTES end before element ", i));
    uint32_t n;
    std::memcpy(&n, raw.data() + at, 4);  // little-endian hosts only (x86-64, aarch64)
    at += 4;
    if (raw.size() - at < n) return BadInput(name, absl::StrCat("raw BYTES element ", i, " runs past the end"));
    t.data<std::string>()[i].assign(raw.data() + at, n);
    at += n;
  }
  if (at != raw.size()) return BadInput(name, "raw BYTES hold more elements than its shape");
  return absl::OkStatus();
}

std::string RawBytes(const Tensor& t) {
  if (t.dtype() != DType::kString) return std::string(static_cast<const char*>(t.raw_data()), t.bytes());
  std::string raw;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const std::string& s = t.data<std::string>()[i];
    const uint32_t n = static_cast<uint32_t>(s.size());
    raw.append(reinterpret_cast<const char*>(&n), 4);
    raw.append(s);
  }
  return raw;
}

}  // namespace graphd::server
