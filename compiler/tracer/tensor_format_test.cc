#include "compiler/tracer/tensor_format.h"

#include "gtest/gtest.h"

namespace graphd::compiler::tracer {
namespace {

template <typename T>
Tensor Make(std::vector<T> values, std::vector<int64_t> dims) {
  Tensor t = *Tensor::Allocate(DTypeOf<T>::value, Shape(dims));
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

TEST(TensorFormatTest, ScalarsAsNumpyPrintsThem) {
  EXPECT_EQ(FormatTensorValues(Tensor::Scalar<float>(2.0f)), "2.0");
  EXPECT_EQ(FormatTensorValues(Tensor::Scalar<float>(0.1f)), "0.1");
  EXPECT_EQ(FormatTensorValues(Tensor::Scalar<int32_t>(-7)), "-7");
  EXPECT_EQ(FormatTensorValues(Tensor::Scalar<bool>(true)), "True");
  EXPECT_EQ(FormatTensorValues(Tensor::Scalar<std::string>("helloworld")), "b'helloworld'");
  EXPECT_EQ(EagerTensorRepr(Tensor::Scalar<float>(8.5f)), "tf.Tensor(8.5, shape=(), dtype=float32)");
  EXPECT_EQ(EagerTensorRepr(Tensor::Scalar<std::string>("hi")), "tf.Tensor(b'hi', shape=(), dtype=string)");
}

TEST(TensorFormatTest, VectorsAlignAsNumpy) {
  EXPECT_EQ(FormatTensorValues(Make<int32_t>({1, 2, 3}, {3})), "[1 2 3]");
  EXPECT_EQ(FormatTensorValues(Make<int32_t>({1, 10}, {2})), "[ 1 10]");
  EXPECT_EQ(FormatTensorValues(Make<float>({1, 2}, {2})), "[1. 2.]");
  EXPECT_EQ(FormatTensorValues(Make<float>({0.5f, 1, 2.25f}, {3})), "[0.5  1.   2.25]");
  EXPECT_EQ(FormatTensorValues(Make<bool>({true, false}, {2})), "[ True False]");
  EXPECT_EQ(FormatTensorValues(Make<std::string>({"a", "bc"}, {2})), "[b'a' b'bc']");
  EXPECT_EQ(FormatTensorValues(Make<float>({}, {0})), "[]");
}

TEST(TensorFormatTest, MatricesBreakRows) {
  EXPECT_EQ(FormatTensorValues(Make<int32_t>({1, 2, 3, 4}, {2, 2})), "[[1 2]\n [3 4]]");
  EXPECT_EQ(FormatTensorValues(Make<int32_t>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2})),
            "[[[1 2]\n  [3 4]]\n\n [[5 6]\n  [7 8]]]");
  EXPECT_EQ(EagerTensorRepr(Make<int32_t>({1, 2, 3, 4}, {2, 2})),
            "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)");
}

TEST(TensorFormatTest, LargeTensorsAreSummarised) {
  std::vector<int32_t> v(2000);
  for (int i = 0; i < 2000; ++i) v[i] = i;
  EXPECT_EQ(FormatTensorValues(Make<int32_t>(v, {2000})), "[   0    1    2 ... 1997 1998 1999]");
}

}  // namespace
}  // namespace graphd::compiler::tracer
