#include "core/tensor.h"

#include <atomic>
#include <cstdlib>
#include <new>

#include "core/buffer_cache.h"
#include "core/memory_account.h"

namespace graphd {
namespace {
std::atomic<int64_t> max_tensor_bytes{int64_t{1} << 40};

// A host block's size: `bytes` rounded up to the alignment, at least one unit.
size_t RoundedBytes(size_t bytes) {
  const size_t rounded = (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  return rounded == 0 ? kTensorAlignment : rounded;
}
}  // namespace

void SetMaxTensorBytes(int64_t bytes) { max_tensor_bytes.store(bytes, std::memory_order_relaxed); }
int64_t MaxTensorBytes() { return max_tensor_bytes.load(std::memory_order_relaxed); }

StatusOr<std::shared_ptr<Buffer>> Buffer::Allocate(DType dtype, int64_t num_elements) {
  size_t elem = DTypeSize(dtype);
  if (elem == 0) return errors::InvalidArgument("cannot allocate a tensor of dtype invalid");
  int64_t bytes;
  if (num_elements < 0 || __builtin_mul_overflow(num_elements, static_cast<int64_t>(elem), &bytes) ||
      bytes > MaxTensorBytes()) {
    return errors::ResourceExhausted(absl::StrCat(
        "a tensor of ", num_elements, " ", DTypeName(dtype), " elements exceeds the limit of ",
        MaxTensorBytes(), " bytes per tensor"));
  }
  const size_t rounded = RoundedBytes(static_cast<size_t>(bytes));
  MemoryAccount& account = CurrentMemoryAccount();
  RETURN_IF_ERROR(account.Charge(bytes));
  void* data = TakeHostBlock(rounded);
  if (data == nullptr) {
    account.Credit(bytes);
    return errors::ResourceExhausted(absl::StrCat("out of memory allocating ", bytes, " bytes"));
  }
  if (dtype == DType::kString) {
    auto* s = static_cast<std::string*>(data);
    for (int64_t i = 0; i < num_elements; ++i) new (s + i) std::string();
  }
  auto buffer = std::shared_ptr<Buffer>(new Buffer(data, static_cast<size_t>(bytes), dtype, num_elements));
  buffer->account_ = &account;
  return buffer;
}

std::shared_ptr<Buffer> Buffer::Adopt(void* data, size_t bytes, int memory_space, Release release,
                                      void* context) {
  auto buffer = std::shared_ptr<Buffer>(new Buffer(data, bytes, DType::kUInt8, static_cast<int64_t>(bytes)));
  buffer->memory_space_ = memory_space;
  buffer->release_ = release;
  buffer->release_context_ = context;
  buffer->adopted_ = true;
  return buffer;
}

Buffer::~Buffer() {
  if (adopted_) {
    if (release_ != nullptr) release_(release_context_, data_, bytes_);
    return;
  }
  if (dtype_ == DType::kString) {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) s[i].~basic_string();
  }
  ReturnHostBlock(data_, RoundedBytes(bytes_));
  if (account_ != nullptr) account_->Credit(static_cast<int64_t>(bytes_));
}

StatusOr<Tensor> Tensor::Allocate(DType dtype, const Shape& shape) {
  ASSIGN_OR_RETURN(Shape checked, Shape::Make(shape.dims()));
  ASSIGN_OR_RETURN(auto buffer, Buffer::Allocate(dtype, checked.num_elements()));
  return Tensor(dtype, std::move(checked), std::move(buffer));
}

StatusOr<Tensor> Tensor::FromBuffer(DType dtype, const Shape& shape, std::shared_ptr<Buffer> buffer) {
  ASSIGN_OR_RETURN(Shape checked, Shape::Make(shape.dims()));
  size_t need = 0;
  const bool too_large = __builtin_mul_overflow(static_cast<size_t>(checked.num_elements()), DTypeSize(dtype), &need);
  if (buffer == nullptr || too_large || buffer->bytes() < need || dtype == DType::kInvalid) {
    return errors::InvalidArgument(absl::StrCat("a buffer of ", buffer ? buffer->bytes() : 0,
                                                " bytes cannot hold ", DTypeName(dtype),
                                                checked.ToString()));
  }
  if (dtype == DType::kString && !buffer->on_host()) {
    return errors::InvalidArgument("string tensors live in host memory only");
  }
  return Tensor(dtype, std::move(checked), std::move(buffer));
}

StatusOr<Tensor> Tensor::Reshaped(const Shape& shape) const {
  ASSIGN_OR_RETURN(Shape checked, Shape::Make(shape.dims()));
  if (checked.num_elements() != num_elements()) {
    return errors::InvalidArgument(absl::StrCat("cannot reshape ", shape_.ToString(), " (",
                                                num_elements(), " elements) to ",
                                                checked.ToString()));
  }
  return Tensor(dtype_, std::move(checked), buffer_);
}

StatusOr<Tensor> Tensor::Clone() const {
  if (!on_host()) {
    return errors::FailedPrecondition(absl::StrCat("cannot copy ", DebugString(), " in the memory of device ",
                                                   memory_space(), " on the host side; the device copies it"));
  }
  ASSIGN_OR_RETURN(Tensor out, Allocate(dtype_, shape_));
  if (dtype_ == DType::kString) {
    for (int64_t i = 0; i < num_elements(); ++i) out.data<std::string>()[i] = data<std::string>()[i];
  } else if (bytes() > 0) {
    std::memcpy(out.raw_data(), raw_data(), bytes());
  }
  return out;
}

std::string Tensor::DebugString() const {
  return absl::StrCat(DTypeName(dtype_), shape_.ToString());
}

}  // namespace graphd
