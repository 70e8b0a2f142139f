// CPU kernels for binary elementwise ops, MatMul, Reshape, Cast and empty tensors, run
// through the planner and executor and checked against reference loops.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/conformance/cpu/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

// Reference numpy-broadcasting binary op over doubles.
std::vector<double> RefBinary(const std::string& op, const Tensor& a, const Tensor& b,
                              const Shape& out, bool integer) {
  std::vector<double> va = ToDouble(a), vb = ToDouble(b), result;
  int rank = out.rank();
  std::vector<int64_t> index(rank, 0);
  auto flat = [&](const Shape& s) {
    int64_t f = 0;
    for (int i = 0; i < s.rank(); ++i) {
      int64_t idx = index[rank - s.rank() + i];
      f = f * s.dim(i) + (s.dim(i) == 1 ? 0 : idx);
    }
    return f;
  };
  for (int64_t n = 0; n < out.num_elements(); ++n) {
    int64_t rem = n;
    for (int d = rank - 1; d >= 0; --d) {
      index[d] = rem % out.dim(d);
      rem /= out.dim(d);
    }
    double x = va[flat(a.shape())], y = vb[flat(b.shape())];
    double r = 0;
    if (op == "Add") r = x + y;
    if (op == "Sub") r = x - y;
    if (op == "Mul") r = x * y;
    if (op == "Div") r = integer ? std::trunc(x / y) : x / y;
    if (op == "Maximum") r = std::max(x, y);
    if (op == "Minimum") r = std::min(x, y);
    result.push_back(r);
  }
  return result;
}

const char* const kBinaryOps[] = {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum"};

struct ShapeCase {
  Shape a, b, out;
};

template <typename T>
void CheckBinary(const std::vector<ShapeCase>& cases, double rtol) {
  std::mt19937 rng(42);
  constexpr bool kInt = std::is_integral_v<T>;
  for (const ShapeCase& c : cases) {
    Tensor a = Random<T>(c.a, rng, -50, 50);
    // Divisors away from zero: integers in [1, 9], floats in [0.5, 2], random sign.
    Tensor b = Random<T>(c.b, rng, kInt ? 1 : 0.5, kInt ? 9 : 2);
    for (T& v : b.flat<T>()) {
      if (rng() % 2) v = static_cast<T>(-v);
    }
    for (const char* op : kBinaryOps) {
      SCOPED_TRACE(absl::StrCat(op, " ", DTypeName(DTypeOf<T>::value), " ", c.a.ToString(), " ",
                                c.b.ToString()));
      auto out = RunOp(op, {a, b});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(out->dtype(), DTypeOf<T>::value);
      EXPECT_EQ(out->shape(), c.out);
      ExpectClose(*out, RefBinary(op, a, b, c.out, kInt), rtol, rtol);
    }
  }
}

std::vector<ShapeCase> SmallCases() {
  return {{Shape({2, 3}), Shape({2, 3}), Shape({2, 3})},
          {Shape({2, 3}), Shape(), Shape({2, 3})},
          {Shape(), Shape({4}), Shape({4})},
          {Shape({3, 1, 5}), Shape({4, 1}), Shape({3, 4, 5})},  // both sides broadcast
          {Shape({4}), Shape({2, 1, 4}), Shape({2, 1, 4})},
          {Shape({1, 6}), Shape({5, 1}), Shape({5, 6})}};
}

TEST(BinaryKernelTest, Float32Small) { CheckBinary<float>(SmallCases(), 1e-6); }
TEST(BinaryKernelTest, Float64) { CheckBinary<double>(SmallCases(), 1e-12); }
TEST(BinaryKernelTest, Int32) { CheckBinary<int32_t>(SmallCases(), 0); }
TEST(BinaryKernelTest, Int64) { CheckBinary<int64_t>(SmallCases(), 0); }

TEST(BinaryKernelTest, Float32Large) {
  // >= 16384 output elements: the oneDNN path when `a` has the output shape, loops
  // otherwise.
  CheckBinary<float>({{Shape({64, 256}), Shape({64, 256}), Shape({64, 256})},
                      {Shape({64, 256}), Shape({256}), Shape({64, 256})},
                      {Shape({64, 256}), Shape({64, 1}), Shape({64, 256})},
                      {Shape({8, 32, 64}), Shape({8, 1, 64}), Shape({8, 32, 64})},
                      {Shape({8, 32, 64}), Shape(), Shape({8, 32, 64})},
                      {Shape({128, 1}), Shape({1, 160}), Shape({128, 160})},
                      {Shape({160}), Shape({128, 160}), Shape({128, 160})}},
                     1e-6);
}

TEST(BinaryKernelTest, IntegerDivisionTruncates) {
  Tensor a = Make<int32_t>(Shape({4}), {7, -7, 7, -7});
  Tensor b = Make<int32_t>(Shape({4}), {2, 2, -2, -2});
  auto out = RunOp("Div", {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(*out, {3, -3, -3, 3});
  auto out64 = RunOp("Div", {Make<int64_t>(Shape({2}), {9, -1}), Make<int64_t>(Shape(), {4})});
  ASSERT_TRUE(out64.ok());
  ExpectClose(*out64, {2, 0});
}

TEST(BinaryKernelTest, IntegerDivisionByZero) {
  for (DType d : {DType::kInt32, DType::kInt64}) {
    Tensor a = d == DType::kInt32 ? Make<int32_t>(Shape({3}), {1, 2, 3})
                                  : Make<int64_t>(Shape({3}), {1, 2, 3});
    Tensor b = d == DType::kInt32 ? Make<int32_t>(Shape({3}), {1, 0, 1})
                                  : Make<int64_t>(Shape({3}), {1, 0, 1});
    auto out = RunOp("Div", {a, b});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr("division by zero"));
    EXPECT_EQ(errors::NodeOf(out.status()), "out");
  }
  // Float division by zero is IEEE.
  auto f = RunOp("Div", {Make<float>(Shape({2}), {1, -1}), Make<float>(Shape(), {0})});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->data<float>()[0], INFINITY);
  EXPECT_EQ(f->data<float>()[1], -INFINITY);
}

// Reference matmul over doubles; a is [m,k] (or [k,m] when ta), b is [k,n] (or [n,k]).
std::vector<double> RefMatMul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  std::vector<double> va = ToDouble(a), vb = ToDouble(b);
  int64_t m = a.shape().dim(ta ? 1 : 0), k = a.shape().dim(ta ? 0 : 1);
  int64_t n = b.shape().dim(tb ? 0 : 1);
  std::vector<double> out(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        acc += va[ta ? p * m + i : i * k + p] * vb[tb ? j * k + p : p * n + j];
      }
      out[i * n + j] = acc;
    }
  }
  return out;
}

template <typename T>
void CheckMatMul(int64_t m, int64_t k, int64_t n, double rtol, double atol) {
  std::mt19937 rng(7);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(absl::StrCat(DTypeName(DTypeOf<T>::value), " ", m, "x", k, "x", n, " ta=", ta,
                                " tb=", tb));
      Tensor a = Random<T>(ta ? Shape({k, m}) : Shape({m, k}), rng, -3, 3);
      Tensor b = Random<T>(tb ? Shape({n, k}) : Shape({k, n}), rng, -3, 3);
      auto out = RunOp("MatMul", {a, b}, {{"transpose_a", ta}, {"transpose_b", tb}});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(out->shape(), Shape({m, n}));
      ExpectClose(*out, RefMatMul(a, b, ta, tb), rtol, atol);
    }
  }
}

TEST(MatMulKernelTest, Float32Small) { CheckMatMul<float>(3, 4, 5, 1e-5, 1e-5); }
TEST(MatMulKernelTest, Float32Large) { CheckMatMul<float>(64, 96, 80, 1e-4, 1e-3); }
TEST(MatMulKernelTest, Float32NonSquareLarge) { CheckMatMul<float>(130, 17, 33, 1e-4, 1e-3); }
TEST(MatMulKernelTest, Float64) { CheckMatMul<double>(7, 9, 5, 1e-12, 1e-12); }
TEST(MatMulKernelTest, Int32) { CheckMatMul<int32_t>(6, 11, 4, 0, 0); }
TEST(MatMulKernelTest, Int64) { CheckMatMul<int64_t>(5, 3, 8, 0, 0); }

TEST(MatMulKernelTest, RepeatedShapesReuseKernelCorrectly) {
  // The same node run with two input shapes (placeholders with unknown dims).
  Graph g;
  const Node* a =
      AddPlaceholder(g, "a", DType::kFloat32, PartialShape(std::vector<int64_t>{-1, 4}));
  const Node* b = AddPlaceholder(g, "b", DType::kFloat32, PartialShape(std::vector<int64_t>{4, 2}));
  ASSERT_TRUE(g.AddNode({.name = "mm", .op = "MatMul", .inputs = {{a, 0}, {b, 0}}}).ok());
  std::mt19937 rng(3);
  Tensor bv = Random<float>(Shape({4, 2}), rng);
  for (int64_t m : {1, 3, 1}) {
    Tensor av = Random<float>(Shape({m, 4}), rng);
    auto out = RunGraph(g, {{"a", av}, {"b", bv}}, {"mm"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), Shape({m, 2}));
    ExpectClose((*out)[0], RefMatMul(av, bv, false, false), 1e-5, 1e-5);
  }
}

TEST(ReshapeKernelTest, MinusOneAndSharedData) {
  std::mt19937 rng(1);
  Tensor x = Random<float>(Shape({2, 3, 4}), rng);
  auto out = RunOp("Reshape", {x}, {{"shape", IntList{-1, 4}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({6, 4}));
  ExpectClose(*out, ToDouble(x));
  auto flat = RunOp("Reshape", {x}, {{"shape", IntList{-1}}});
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(flat->shape(), Shape({24}));
  auto mid = RunOp("Reshape", {x}, {{"shape", IntList{3, -1, 2}}});
  ASSERT_TRUE(mid.ok());
  EXPECT_EQ(mid->shape(), Shape({3, 4, 2}));
  auto scalar = RunOp("Reshape", {Make<int32_t>(Shape({1, 1}), {5})}, {{"shape", IntList{}}});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->shape(), Shape());
  EXPECT_EQ(scalar->data<int32_t>()[0], 5);
}

TEST(CastKernelTest, FloatToInt32Truncates) {
  Tensor x = Make<float>(Shape({6}), {1.7f, -1.7f, 2.5f, -0.2f, 0.0f, 100.99f});
  auto out = RunOp("Cast", {x}, {{"DstT", DType::kInt32}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->dtype(), DType::kInt32);
  ExpectClose(*out, {1, -1, 2, 0, 0, 100});
}

TEST(CastKernelTest, IntToBoolAndBoolToFloat) {
  auto b = RunOp("Cast", {Make<int64_t>(Shape({2, 2}), {0, 3, -2, 0})}, {{"DstT", DType::kBool}});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->dtype(), DType::kBool);
  EXPECT_EQ(b->shape(), Shape({2, 2}));
  ExpectClose(*b, {0, 1, 1, 0});
  auto f = RunOp("Cast", {MakeBool(Shape({3}), {1, 0, 1})}, {{"DstT", DType::kFloat32}});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->dtype(), DType::kFloat32);
  ExpectClose(*f, {1, 0, 1});
  auto fb = RunOp("Cast", {Make<float>(Shape({3}), {0.0f, 0.5f, -0.0f})}, {{"DstT", DType::kBool}});
  ASSERT_TRUE(fb.ok());
  ExpectClose(*fb, {0, 1, 0});
  auto d = RunOp("Cast", {Make<int32_t>(Shape({2}), {-3, 4})}, {{"DstT", DType::kFloat64}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->dtype(), DType::kFloat64);
  ExpectClose(*d, {-3, 4});
  auto same = RunOp("Cast", {Make<int32_t>(Shape({2}), {-3, 4})}, {{"DstT", DType::kInt32}});
  ASSERT_TRUE(same.ok());
  ExpectClose(*same, {-3, 4});
}

TEST(EmptyTensorTest, KernelsHandleZeroElements) {
  Tensor e = Tensor::Allocate(DType::kFloat32, Shape({0, 3})).value();
  auto add = RunOp("Add", {e, Make<float>(Shape({3}), {1, 2, 3})});
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ(add->shape(), Shape({0, 3}));
  auto relu = RunOp("Relu", {e});
  ASSERT_TRUE(relu.ok()) << relu.status();
  EXPECT_EQ(relu->shape(), Shape({0, 3}));
  auto softmax = RunOp("Softmax", {e});
  ASSERT_TRUE(softmax.ok()) << softmax.status();
  EXPECT_EQ(softmax->shape(), Shape({0, 3}));
  auto mm = RunOp("MatMul", {e, Tensor::Allocate(DType::kFloat32, Shape({3, 2})).value()});
  ASSERT_TRUE(mm.ok()) << mm.status();
  EXPECT_EQ(mm->shape(), Shape({0, 2}));
  // An empty inner dimension gives zeros.
  auto inner = RunOp("MatMul", {Tensor::Allocate(DType::kFloat32, Shape({2, 0})).value(),
                                Tensor::Allocate(DType::kFloat32, Shape({0, 3})).value()});
  ASSERT_TRUE(inner.ok()) << inner.status();
  EXPECT_EQ(inner->shape(), Shape({2, 3}));
  ExpectClose(*inner, std::vector<double>(6, 0.0));
  auto sum = RunOp("Sum", {e}, {{"axis", IntList{0}}});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->shape(), Shape({3}));
  ExpectClose(*sum, {0, 0, 0});
  auto sum_all = RunOp("Sum", {Tensor::Allocate(DType::kInt32, Shape({0})).value()});
  ASSERT_TRUE(sum_all.ok());
  EXPECT_EQ(sum_all->shape(), Shape());
  ExpectClose(*sum_all, {0});
  auto reshape = RunOp("Reshape", {e}, {{"shape", IntList{-1}}});
  ASSERT_TRUE(reshape.ok()) << reshape.status();
  EXPECT_EQ(reshape->shape(), Shape({0}));
  auto cast = RunOp("Cast", {e}, {{"DstT", DType::kInt64}});
  ASSERT_TRUE(cast.ok());
  EXPECT_EQ(cast->shape(), Shape({0, 3}));
  auto idiv = RunOp("Div", {Tensor::Allocate(DType::kInt32, Shape({0})).value(),
                            Tensor::Allocate(DType::kInt32, Shape({0})).value()});
  ASSERT_TRUE(idiv.ok());
  EXPECT_EQ(idiv->num_elements(), 0);
}

}  // namespace
}  // namespace graphd::executor::test
