#include "core/tensor.h"

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd {
namespace {

using ::testing::HasSubstr;

bool Aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kTensorAlignment == 0; }

TEST(DTypeTest, SizesAndNames) {
  EXPECT_EQ(DTypeSize(DType::kFloat32), 4u);
  EXPECT_EQ(DTypeSize(DType::kFloat64), 8u);
  EXPECT_EQ(DTypeSize(DType::kInt64), 8u);
  EXPECT_EQ(DTypeSize(DType::kBool), 1u);
  EXPECT_EQ(DTypeSize(DType::kString), sizeof(std::string));
  EXPECT_EQ(DTypeSize(DType::kInvalid), 0u);
  EXPECT_EQ(DTypeName(DType::kInt32), "int32");
  EXPECT_EQ(*DTypeFromName("float64"), DType::kFloat64);
  EXPECT_FALSE(DTypeFromName("float128").ok());
  EXPECT_FALSE(DTypeFromName("invalid").ok());
  EXPECT_FALSE(IsValidDType(0));
  EXPECT_TRUE(IsValidDType(11));
  EXPECT_TRUE(IsValidDType(14));
  EXPECT_FALSE(IsValidDType(15));
  EXPECT_EQ(DTypeName(DType::kUInt32), "uint32");
  EXPECT_EQ(*DTypeFromName("uint64"), DType::kUInt64);
  EXPECT_EQ(DTypeSize(DType::kUInt16), 2u);
  EXPECT_EQ(DTypeSize(DType::kUInt64), 8u);
  EXPECT_TRUE(IsInteger(DType::kUInt64));
  EXPECT_TRUE(IsUnsigned(DType::kUInt32));
  EXPECT_FALSE(IsUnsigned(DType::kInt32));
  EXPECT_TRUE(IsFloating(DType::kBFloat16));
  EXPECT_FALSE(IsInteger(DType::kBool));
  EXPECT_TRUE(IsNumeric(DType::kUInt8));
  EXPECT_FALSE(IsNumeric(DType::kString));
}

TEST(TensorTest, DefaultIsInvalid) {
  Tensor t;
  EXPECT_FALSE(t.valid());
  EXPECT_EQ(t.raw_data(), nullptr);
}

TEST(TensorTest, AllocateIsAligned) {
  for (int64_t n : {0, 1, 3, 17, 1000}) {
    for (DType d : {DType::kFloat32, DType::kInt8, DType::kFloat64, DType::kBool}) {
      auto t = Tensor::Allocate(d, Shape({n}));
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_TRUE(t->valid());
      ASSERT_NE(t->raw_data(), nullptr);
      EXPECT_TRUE(Aligned(t->raw_data())) << DTypeName(d) << " n=" << n;
      EXPECT_EQ(t->num_elements(), n);
      EXPECT_EQ(t->bytes(), static_cast<size_t>(n) * DTypeSize(d));
      EXPECT_EQ(t->buffer()->bytes(), t->bytes());
    }
  }
}

TEST(TensorTest, AllocateRejectsInvalidDTypeAndNegativeDims) {
  auto bad = Tensor::Allocate(DType::kInvalid, Shape({2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  auto neg = Tensor::Allocate(DType::kFloat32, Shape({2, -3}));
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TensorTest, MaxTensorBytesIsEnforcedBeforeAllocating) {
  const int64_t saved = MaxTensorBytes();
  SetMaxTensorBytes(4096);
  EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, Shape({1024})).ok());  // exactly 4096 bytes
  auto over = Tensor::Allocate(DType::kFloat32, Shape({1025}));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.status().message(), HasSubstr("4096 bytes"));
  SetMaxTensorBytes(saved);
  EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, Shape({1025})).ok());
}

TEST(TensorTest, AllocateHugeFailsCleanly) {
  // 2^50 floats: the element count fits in int64 but the bytes exceed the limit.
  auto huge = Tensor::Allocate(DType::kFloat32, Shape({int64_t{1} << 25, int64_t{1} << 25}));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(huge.status().message(), HasSubstr("exceeds the limit"));
  // Element count times element size overflows int64.
  auto overflow = Tensor::Allocate(DType::kFloat64, Shape({int64_t{1} << 61}));
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().code(), absl::StatusCode::kResourceExhausted);
  // The element count itself overflows.
  auto count = Tensor::Allocate(DType::kInt8, Shape({int64_t{1} << 40, int64_t{1} << 40}));
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
  // Huge string tensors fail before constructing any element.
  auto strings = Tensor::Allocate(DType::kString, Shape({int64_t{1} << 45}));
  EXPECT_FALSE(strings.ok());
}

TEST(TensorTest, ScalarAndFromVector) {
  Tensor s = Tensor::Scalar<int64_t>(42);
  EXPECT_EQ(s.dtype(), DType::kInt64);
  EXPECT_EQ(s.shape().rank(), 0);
  EXPECT_EQ(s.data<int64_t>()[0], 42);

  std::vector<float> values = {1, 2, 3, 4, 5, 6};
  auto t = Tensor::FromVector<float>(Shape({2, 3}), values);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  EXPECT_EQ(t->DebugString(), "float32[2,3]");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->flat<float>()[i], values[i]);

  auto wrong = Tensor::FromVector<float>(Shape({4}), values);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.status().message(), HasSubstr("expected 4 values"));
}

TEST(TensorTest, CopySharesBuffer) {
  Tensor a = Tensor::FromVector<int32_t>(Shape({3}), std::vector<int32_t>{1, 2, 3}).value();
  Tensor b = a;
  EXPECT_EQ(a.raw_data(), b.raw_data());
  b.data<int32_t>()[0] = 9;
  EXPECT_EQ(a.data<int32_t>()[0], 9);
}

TEST(TensorTest, ReshapedSharesBuffer) {
  std::vector<int32_t> v(12);
  std::iota(v.begin(), v.end(), 0);
  Tensor a = Tensor::FromVector<int32_t>(Shape({3, 4}), v).value();
  auto r = a.Reshaped(Shape({2, 6}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->shape(), Shape({2, 6}));
  EXPECT_EQ(r->dtype(), DType::kInt32);
  EXPECT_EQ(r->raw_data(), a.raw_data());
  EXPECT_EQ(r->buffer(), a.buffer());
  r->data<int32_t>()[5] = -1;
  EXPECT_EQ(a.data<int32_t>()[5], -1);
  EXPECT_EQ(a.shape(), Shape({3, 4}));  // the original keeps its shape

  auto bad = a.Reshaped(Shape({5}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("cannot reshape [3,4]"));
  EXPECT_FALSE(a.Reshaped(Shape({-3, -4})).ok());
}

TEST(TensorTest, CloneDeepCopies) {
  std::vector<double> v = {1.5, -2.5, 3.25};
  Tensor a = Tensor::FromVector<double>(Shape({3}), v).value();
  auto c = a.Clone();
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c->raw_data(), a.raw_data());
  EXPECT_TRUE(Aligned(c->raw_data()));
  EXPECT_EQ(c->shape(), a.shape());
  EXPECT_EQ(c->dtype(), DType::kFloat64);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(c->data<double>()[i], v[i]);
  a.data<double>()[0] = 100;
  EXPECT_EQ(c->data<double>()[0], 1.5);

  Tensor empty = Tensor::Allocate(DType::kFloat32, Shape({0, 4})).value();
  auto ce = empty.Clone();
  ASSERT_TRUE(ce.ok());
  EXPECT_EQ(ce->shape(), Shape({0, 4}));
}

TEST(TensorTest, StringTensors) {
  auto t = Tensor::Allocate(DType::kString, Shape({2, 2}));
  ASSERT_TRUE(t.ok());
  for (const std::string& s : t->flat<std::string>()) EXPECT_TRUE(s.empty());
  std::string long_value(1000, 'x');
  t->data<std::string>()[0] = "a";
  t->data<std::string>()[3] = long_value;
  auto c = t->Clone();
  ASSERT_TRUE(c.ok());
  t->data<std::string>()[0] = "changed";
  EXPECT_EQ(c->data<std::string>()[0], "a");
  EXPECT_EQ(c->data<std::string>()[1], "");
  EXPECT_EQ(c->data<std::string>()[3], long_value);

  Tensor s = Tensor::Scalar<std::string>("hello");
  EXPECT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(s.flat<std::string>()[0], "hello");
  auto r = c->Reshaped(Shape({4}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data<std::string>()[3], long_value);
}

TEST(TensorTest, AdoptedBufferReleasedOnceWithLastReference) {
  struct Log {
    int calls = 0;
    void* data = nullptr;
    size_t bytes = 0;
  } log;
  static char storage[64];
  auto release = [](void* ctx, void* data, size_t bytes) {
    auto* l = static_cast<Log*>(ctx);
    ++l->calls;
    l->data = data;
    l->bytes = bytes;
  };
  {
    auto buffer = Buffer::Adopt(storage, sizeof(storage), /*memory_space=*/0, release, &log);
    EXPECT_FALSE(buffer->on_host());
    auto t = Tensor::FromBuffer(DType::kFloat32, Shape({4, 4}), buffer);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->memory_space(), 0);
    EXPECT_FALSE(t->on_host());
    auto r = t->Reshaped(Shape({16}));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->raw_data(), storage);
    // Host-side deep copies of device memory are refused, not silently read.
    EXPECT_EQ(t->Clone().status().code(), absl::StatusCode::kFailedPrecondition);
    // Too small a buffer for the shape.
    EXPECT_EQ(Tensor::FromBuffer(DType::kFloat32, Shape({17}), buffer).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(log.calls, 0);
  }
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, storage);
  EXPECT_EQ(log.bytes, sizeof(storage));
  EXPECT_TRUE(Tensor::Scalar<float>(1.0f).on_host());
  EXPECT_TRUE(Tensor().on_host());
}

}  // namespace
}  // namespace graphd
