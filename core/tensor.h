// Tensor: a dtype, a known shape and a reference-counted, 64-byte aligned buffer.
// Copying a Tensor shares the buffer (cheap); buffers are immutable once a kernel has
// published them as outputs, except variables' buffers which VariableStore guards.
// Thread safety: const methods are safe from many threads; writing into a buffer
// shared with another thread is the caller's responsibility.
#ifndef GRAPHD_CORE_TENSOR_H_
#define GRAPHD_CORE_TENSOR_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/status.h"

namespace graphd {

inline constexpr size_t kTensorAlignment = 64;

// The largest single tensor buffer the process allocates (a server flag). Requests
// beyond it fail with ResourceExhausted before allocating. Thread-safe.
void SetMaxTensorBytes(int64_t bytes);
int64_t MaxTensorBytes();

// Where a buffer's bytes live: host memory (kHostMemory), readable through data() by
// any code, or the memory of device N (N >= 0, e.g. a GPU ordinal), which only that
// device's kernels and copies may touch.
inline constexpr int kHostMemory = -1;

// Owns `bytes` of storage: aligned host memory from Allocate (for string tensors it
// also constructs and destroys the std::string elements), or storage adopted from a
// device allocator, handed back to it through `release` with the last reference.
// Allocate charges the calling thread's MemoryAccount (core/memory_account.h) before
// taking the memory and credits it back when the buffer is freed.
class MemoryAccount;
class Buffer {
 public:
  // Called once with (context, data, bytes) when an adopted buffer is destroyed; must
  // not throw. Runs on whichever thread drops the last reference.
  using Release = void (*)(void* context, void* data, size_t bytes);

  static StatusOr<std::shared_ptr<Buffer>> Allocate(DType dtype, int64_t num_elements);
  // Adopts `bytes` at `data` in `memory_space` (never kHostMemory strings). `release`
  // may be null (storage owned elsewhere and outliving the buffer).
  static std::shared_ptr<Buffer> Adopt(void* data, size_t bytes, int memory_space, Release release,
                                       void* context);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  int memory_space() const { return memory_space_; }
  bool on_host() const { return memory_space_ == kHostMemory; }

 private:
  Buffer(void* data, size_t bytes, DType dtype, int64_t n)
      : data_(data), bytes_(bytes), dtype_(dtype), num_elements_(n) {}
  void* data_;
  size_t bytes_;
  DType dtype_;
  int64_t num_elements_;
  int memory_space_ = kHostMemory;
  MemoryAccount* account_ = nullptr;  // charged for host buffers from Allocate
  Release release_ = nullptr;  // set for adopted buffers
  void* release_context_ = nullptr;
  bool adopted_ = false;
};

class Tensor {
 public:
  Tensor() = default;  // invalid (dtype kInvalid); used for empty slots

  // Allocates an uninitialised tensor (strings are empty). Fails on overflow or when
  // the size exceeds what may be allocated.
  static StatusOr<Tensor> Allocate(DType dtype, const Shape& shape);
  // A scalar of type T.
  template <typename T>
  static Tensor Scalar(T value);
  // A tensor from a flat vector of T with `shape`; requires a matching element count.
  template <typename T>
  static StatusOr<Tensor> FromVector(const Shape& shape, std::span<const T> values);
  // A tensor over an existing buffer (e.g. device memory from Buffer::Adopt);
  // InvalidArgument when the buffer is smaller than dtype x shape.
  static StatusOr<Tensor> FromBuffer(DType dtype, const Shape& shape, std::shared_ptr<Buffer> buffer);

  bool valid() const { return dtype_ != DType::kInvalid; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t bytes() const { return static_cast<size_t>(num_elements()) * DTypeSize(dtype_); }
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  // Where the elements live (kHostMemory for host tensors and for invalid ones).
  int memory_space() const { return buffer_ ? buffer_->memory_space() : kHostMemory; }
  bool on_host() const { return memory_space() == kHostMemory; }

  void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  template <typename T>
  T* data() const { return static_cast<T*>(raw_data()); }
  template <typename T>
  std::span<T> flat() const { return {data<T>(), static_cast<size_t>(num_elements())}; }

  // Same buffer, another shape with the same element count (any memory space).
  StatusOr<Tensor> Reshaped(const Shape& shape) const;
  // A deep copy (new host buffer); FailedPrecondition for a tensor in device memory
  // (the device copies those).
  StatusOr<Tensor> Clone() const;
  // "float32[2,3]"
  std::string DebugString() const;

 private:
  Tensor(DType dtype, Shape shape, std::shared_ptr<Buffer> buffer)
      : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {}

  DType dtype_ = DType::kInvalid;
  Shape shape_;
  std::shared_ptr<Buffer> buffer_;
};

template <typename T>
Tensor Tensor::Scalar(T value) {
  Tensor t = Allocate(DTypeOf<T>::value, Shape()).value();
  t.data<T>()[0] = std::move(value);
  return t;
}

template <typename T>
StatusOr<Tensor> Tensor::FromVector(const Shape& shape, std::span<const T> values) {
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    return errors::InvalidArgument(absl::StrCat("expected ", shape.num_elements(),
                                                " values for shape ", shape.ToString(),
                                                ", got ", values.size()));
  }
  ASSIGN_OR_RETURN(Tensor t, Allocate(DTypeOf<T>::value, shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

}  // namespace graphd

#endif  // GRAPHD_CORE_TENSOR_H_
