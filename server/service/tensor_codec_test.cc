#include "server/service/tensor_codec.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::server {
namespace {

using ::testing::HasSubstr;

// A tensor of `dtype` and `shape` whose bytes are a deterministic pattern.
Tensor Patterned(DType dtype, const Shape& shape) {
  Tensor t = Tensor::Allocate(dtype, shape).value();
  if (dtype == DType::kString) {
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      t.data<std::string>()[i] =
          std::string(static_cast<size_t>(i), 'a' + static_cast<char>(i % 26));
    }
    if (t.num_elements() > 1) t.data<std::string>()[1] = std::string("\0bin\xff", 5);
  } else if (dtype == DType::kBool) {
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data<bool>()[i] = i % 3 == 0;
  } else {
    auto* bytes = static_cast<uint8_t*>(t.raw_data());
    for (size_t i = 0; i < t.bytes(); ++i) bytes[i] = static_cast<uint8_t>(i * 37 + 11);
  }
  return t;
}

void ExpectSameTensor(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  if (a.dtype() == DType::kString) {
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      EXPECT_EQ(a.data<std::string>()[i], b.data<std::string>()[i]) << i;
    }
  } else {
    ASSERT_EQ(a.bytes(), b.bytes());
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.bytes()), 0);
  }
}

TEST(TensorCodecTest, RoundTripEveryDType) {
  for (int d = 1; d < kNumDTypes; ++d) {
    DType dtype = static_cast<DType>(d);
    for (const Shape& shape : {Shape(), Shape({3}), Shape({2, 3, 2}), Shape({0, 4})}) {
      SCOPED_TRACE(absl::StrCat(DTypeName(dtype), shape.ToString()));
      Tensor t = Patterned(dtype, shape);
      v1::TensorProto proto;
      TensorToProto(t, &proto);
      EXPECT_EQ(static_cast<int>(proto.dtype()), d);
      EXPECT_EQ(proto.shape().dim_size(), shape.rank());
      EXPECT_FALSE(proto.shape().unknown_rank());
      if (dtype == DType::kString) {
        EXPECT_EQ(proto.string_val_size(), shape.num_elements());
        EXPECT_TRUE(proto.content().empty());
      } else {
        EXPECT_EQ(proto.content().size(), t.bytes());
      }
      // Through the wire format too.
      v1::TensorProto parsed;
      ASSERT_TRUE(parsed.ParseFromString(proto.SerializeAsString()));
      auto back = TensorFromProto(parsed, "feed 'x:0'");
      ASSERT_TRUE(back.ok()) << back.status();
      ExpectSameTensor(t, *back);
    }
  }
}

TEST(TensorCodecTest, DTypeMapping) {
  EXPECT_EQ(*DTypeFromProto(v1::DT_FLOAT), DType::kFloat32);
  EXPECT_EQ(*DTypeFromProto(v1::DT_STRING), DType::kString);
  EXPECT_EQ(DTypeToProto(DType::kInt64), v1::DT_INT64);
  EXPECT_EQ(DTypeToProto(DType::kBool), v1::DT_BOOL);
  EXPECT_FALSE(DTypeFromProto(v1::DT_INVALID).ok());
  EXPECT_FALSE(DTypeFromProto(static_cast<v1::DataType>(99)).ok());
}

v1::TensorProto FloatProto(std::vector<int64_t> dims, size_t content_bytes) {
  v1::TensorProto p;
  p.set_dtype(v1::DT_FLOAT);
  for (int64_t d : dims) p.mutable_shape()->add_dim(d);
  p.set_content(std::string(content_bytes, '\0'));
  return p;
}

void ExpectInvalid(const v1::TensorProto& proto, const std::string& text) {
  auto r = TensorFromProto(proto, "feed 'in:0'");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("feed 'in:0': "));
  EXPECT_THAT(r.status().message(), HasSubstr(text));
}

TEST(TensorCodecTest, ContentMustMatchShape) {
  ExpectInvalid(FloatProto({2, 3}, 20), "content has 20 bytes");
  ExpectInvalid(FloatProto({2, 3}, 28), "needs 6 elements");
  ExpectInvalid(FloatProto({2, 3}, 23), "content has 23 bytes");
  ExpectInvalid(FloatProto({}, 0), "needs 1 elements");
  EXPECT_TRUE(TensorFromProto(FloatProto({2, 3}, 24), "x").ok());
  EXPECT_TRUE(TensorFromProto(FloatProto({0}, 0), "x").ok());
  // string_val on a numeric tensor, content on a string tensor.
  v1::TensorProto extra = FloatProto({1}, 4);
  extra.add_string_val("s");
  ExpectInvalid(extra, "content has 4 bytes");
  v1::TensorProto strings;
  strings.set_dtype(v1::DT_STRING);
  strings.mutable_shape()->add_dim(2);
  strings.add_string_val("a");
  ExpectInvalid(strings, "needs 2 string values, got 1");
  strings.add_string_val("b");
  EXPECT_TRUE(TensorFromProto(strings, "x").ok());
  strings.set_content("zz");
  ExpectInvalid(strings, "string values");
}

TEST(TensorCodecTest, BadDTypeAndDims) {
  v1::TensorProto invalid = FloatProto({1}, 4);
  invalid.set_dtype(v1::DT_INVALID);
  ExpectInvalid(invalid, "invalid dtype 0");
  ExpectInvalid(FloatProto({2, -1}, 0), "negative dimension -1");
  const int64_t big = int64_t{1} << 40;
  ExpectInvalid(FloatProto({big, big}, 0), "more elements than fit in int64");
  // Huge but representable: refused on the content size, without allocating.
  ExpectInvalid(FloatProto({big, 1024}, 16), "content has 16 bytes");
  v1::TensorProto unknown = FloatProto({}, 4);
  unknown.mutable_shape()->set_unknown_rank(true);
  ExpectInvalid(unknown, "known shape");
}

TEST(TensorCodecTest, PartialShapeRoundTrip) {
  for (const PartialShape& s :
       {PartialShape(), PartialShape(std::vector<int64_t>{}),
        PartialShape(std::vector<int64_t>{-1, 3}), PartialShape(std::vector<int64_t>{0, 7, -1})}) {
    v1::TensorShape proto;
    proto.add_dim(99);  // overwritten
    PartialShapeToProto(s, &proto);
    auto back = PartialShapeFromProto(proto);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, s) << s.ToString();
  }
  v1::TensorShape unknown;
  PartialShapeToProto(PartialShape(), &unknown);
  EXPECT_TRUE(unknown.unknown_rank());
  EXPECT_EQ(unknown.dim_size(), 0);
}

TEST(TensorCodecTest, PartialShapeErrors) {
  v1::TensorShape both;
  both.set_unknown_rank(true);
  both.add_dim(2);
  auto r = PartialShapeFromProto(both);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  v1::TensorShape negative;
  negative.add_dim(-2);
  EXPECT_EQ(PartialShapeFromProto(negative).status().code(), absl::StatusCode::kInvalidArgument);
  v1::TensorShape overflow;
  overflow.add_dim(std::numeric_limits<int64_t>::max());
  overflow.add_dim(4);
  EXPECT_FALSE(PartialShapeFromProto(overflow).ok());
}

}  // namespace
}  // namespace graphd::server
