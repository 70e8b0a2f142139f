#include "executor/cpu/strided_copy.h"

#include <cstring>
#include <type_traits>

#include "executor/cpu/dispatch.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kCheckEvery = int64_t{1} << 16;

// Drops size-1 dimensions and merges neighbours that are contiguous in both tensors,
// so most copies become a few long runs. Returns false when the box is empty.
bool Simplify(Box& box) {
  Box out;
  out.src_offset = box.src_offset;
  out.dst_offset = box.dst_offset;
  for (size_t d = 0; d < box.shape.size(); ++d) {
    int64_t n = box.shape[d];
    if (n == 0) return false;
    if (n == 1) continue;
    if (!out.shape.empty() && out.src_strides.back() == box.src_strides[d] * n &&
        out.dst_strides.back() == box.dst_strides[d] * n) {
      out.shape.back() *= n;
      out.src_strides.back() = box.src_strides[d];
      out.dst_strides.back() = box.dst_strides[d];
      continue;
    }
    out.shape.push_back(n);
    out.src_strides.push_back(box.src_strides[d]);
    out.dst_strides.push_back(box.dst_strides[d]);
  }
  if (out.shape.empty()) {  // a single element
    out.shape = {1};
    out.src_strides = {1};
    out.dst_strides = {1};
  }
  box = std::move(out);
  return true;
}

template <typename T>
Status Copy(const T* src, T* dst, const Box& box, const CancellationToken* token) {
  const int rank = static_cast<int>(box.shape.size());
  const int64_t inner = box.shape[rank - 1];
  const int64_t si = box.src_strides[rank - 1], di = box.dst_strides[rank - 1];
  std::vector<int64_t> index(rank - 1, 0);
  int64_t s = box.src_offset, d = box.dst_offset, since_check = 0;
  while (true) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      if (si == 1 && di == 1) {
        std::memcpy(dst + d, src + s, static_cast<size_t>(inner) * sizeof(T));
      } else {
        for (int64_t i = 0; i < inner; ++i) dst[d + i * di] = src[s + i * si];
      }
    } else {
      for (int64_t i = 0; i < inner; ++i) dst[d + i * di] = src[s + i * si];
    }
    since_check += inner;
    if (token != nullptr && since_check >= kCheckEvery) {
      RETURN_IF_ERROR(token->Check());
      since_check = 0;
    }
    int k = rank - 2;
    for (; k >= 0; --k) {  // odometer over the outer dimensions
      s += box.src_strides[k];
      d += box.dst_strides[k];
      if (++index[k] < box.shape[k]) break;
      s -= box.src_strides[k] * box.shape[k];
      d -= box.dst_strides[k] * box.shape[k];
      index[k] = 0;
    }
    if (k < 0) return absl::OkStatus();
  }
}

}  // namespace

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

Status CopyBox(const Tensor& src, Tensor& dst, Box box, const CancellationToken* token) {
  if (!Simplify(box)) return absl::OkStatus();
  return DispatchElement(src.dtype(), [&]<typename T>() -> Status {
    return Copy<T>(src.data<T>(), dst.data<T>(), box, token);
  });
}

Status CopyAll(const Tensor& src, Tensor& dst) {
  int64_t n = src.num_elements();
  return CopyBox(src, dst, Box{.shape = {n}, .src_strides = {1}, .dst_strides = {1}}, nullptr);
}

}  // namespace graphd::executor::cpu
