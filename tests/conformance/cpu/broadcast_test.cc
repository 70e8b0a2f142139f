// Binary elementwise ops with numpy broadcasting against a reference odometer, over
// random shape pairs (ranks 0-5, any dimension possibly 1 on either side), in both
// operand orders, float32 (oneDNN's binary primitive when the first operand has the
// output's shape, the plain loops otherwise; large enough for oneDNN) and int32 (the
// loops); the flat and row cases on graphd's own loops; and the dimension merging both
// paths use (CollapseBroadcast).
#include <cmath>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "executor/cpu/broadcast.h"
#include "executor/cpu/dnnl_util.h"
#include "tests/conformance/cpu/test_util.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {
namespace {

std::vector<double> Reference(const Tensor& a, const Tensor& b, const Shape& out) {
  const std::vector<double> va = ToDouble(a), vb = ToDouble(b);
  const std::vector<int64_t> sa = cpu::BroadcastStrides(a.shape(), out), sb = cpu::BroadcastStrides(b.shape(), out);
  std::vector<double> r(out.num_elements());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = out.rank() - 1; d >= 0; --d) {
      const int64_t k = rest % out.dim(d);
      rest /= out.dim(d);
      ia += k * sa[d];
      ib += k * sb[d];
    }
    r[i] = va[ia] - vb[ib];
  }
  return r;
}

TEST(BroadcastTest, RandomShapePairsMatchTheReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = static_cast<int>(rng() % 6);
    std::vector<int64_t> full(rank), small(rank);
    for (int d = 0; d < rank; ++d) {
      full[d] = 1 + static_cast<int64_t>(rng() % 6);
      small[d] = rng() % 2 == 0 ? 1 : full[d];
    }
    // The broadcast operand may have fewer dimensions (right-aligned).
    const int drop = rank == 0 ? 0 : static_cast<int>(rng() % (rank + 1));
    small.erase(small.begin(), small.begin() + drop);
    if (trial % 10 == 0 && rank > 0) full.back() *= 1000;  // past oneDNN's size floor
    if (trial % 10 == 0 && !small.empty() && small.back() != 1) small.back() = full.back();
    const Shape out(full), s(small);
    for (bool swap : {false, true}) {
      for (bool integer : {false, true}) {
        Tensor x = integer ? Random<int32_t>(out, rng, -50, 50) : Random<float>(out, rng);
        Tensor y = integer ? Random<int32_t>(s, rng, -50, 50) : Random<float>(s, rng);
        const Tensor& a = swap ? y : x;
        const Tensor& b = swap ? x : y;
        SCOPED_TRACE(absl::StrCat(a.shape().ToString(), " - ", b.shape().ToString(), integer ? " int32" : " float32"));
        auto got = RunOp("Sub", {a, b});
        ASSERT_TRUE(got.ok()) << got.status();
        ASSERT_EQ(got->shape(), out);
        ExpectClose(*got, Reference(a, b, out), 1e-6, 1e-6);
      }
    }
  }
}

// A matrix and one row repeated down it (a per-channel scale or bias in channels-last
// layout: row_broadcast.h's loops), each op, either operand first, one thread and the
// OpenMP team (rows that do not fill the last work item), against float arithmetic.
TEST(BroadcastTest, MatrixAndRepeatedRowMatchElementwiseArithmetic) {
  std::mt19937 rng(11);
  struct Case {
    Shape full, row;
  };
  const Case cases[] = {{Shape({3, 5}), Shape({5})},
                        {Shape({1, 112, 112, 32}), Shape({1, 1, 1, 32})},
                        {Shape({1, 33, 31, 97}), Shape({97})},
                        {Shape({2, 7, 16}), Shape({1, 1, 16})}};
  for (const Case& c : cases) {
    Tensor m = Random<float>(c.full, rng);
    Tensor r = Random<float>(c.row, rng);
    for (float& v : r.flat<float>()) v = v >= 0 ? v + 0.5f : v - 0.5f;  // divisors away from 0
    for (float& v : m.flat<float>()) v = v >= 0 ? v + 0.5f : v - 0.5f;
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
      for (bool row_first : {false, true}) {
        SCOPED_TRACE(absl::StrCat(op, " ", c.full.ToString(), row_first ? " row first" : " matrix first"));
        auto got = row_first ? RunOp(op, {r, m}) : RunOp(op, {m, r});
        ASSERT_TRUE(got.ok()) << got.status();
        ASSERT_EQ(got->shape(), c.full);
        const int64_t cols = r.num_elements();
        const float* pm = m.data<float>();
        const float* pr = r.data<float>();
        const float* po = got->data<float>();
        for (int64_t i = 0; i < m.num_elements(); ++i) {
          const float x = row_first ? pr[i % cols] : pm[i];
          const float y = row_first ? pm[i] : pr[i % cols];
          const std::string o = op;
          const float want = o == "Add" ? x + y : o == "Sub" ? x - y : o == "Mul" ? x * y : x / y;
          ASSERT_EQ(po[i], want) << "element " << i;
        }
      }
    }
  }
}

// The flat cases on graphd's loops (row_broadcast.h FlatBinaryF32): operands of the
// same shape, or one of them a single value (a scalar, or [1, 1]), either first; sizes
// on one thread and on the OpenMP team (a last work item part full); IEEE values,
// infinities and signed zeros exactly as float arithmetic gives them, NaN as NaN.
TEST(BroadcastTest, SameShapeAndSingleValueMatchElementwiseArithmetic) {
  std::mt19937 rng(13);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f};
  for (const Shape& shape : {Shape({}), Shape({7}), Shape({64, 256}), Shape({3, 100003}), Shape({2, 5, 1, 9})}) {
    Tensor full = Random<float>(shape, rng);
    Tensor other = Random<float>(shape, rng);
    for (size_t k = 0; k < std::size(specials); ++k) {
      if (static_cast<int64_t>(k) < full.num_elements()) {
        full.flat<float>()[k] = specials[k];
        other.flat<float>()[full.num_elements() - 1 - k] = specials[k];
      }
    }
    const Tensor scalar = Make<float>(Shape({}), {-1.75f});
    const Tensor one = Make<float>(Shape({1, 1}), {0.0f});  // division by zero: infinities, NaN
    for (const Tensor* b : {static_cast<const Tensor*>(&other), &scalar, &one}) {
      for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
        for (bool swap : {false, true}) {
          const Tensor& x = swap ? *b : full;
          const Tensor& y = swap ? full : *b;
          SCOPED_TRACE(absl::StrCat(op, " ", x.shape().ToString(), ", ", y.shape().ToString()));
          auto got = RunOp(op, {x, y});
          ASSERT_TRUE(got.ok()) << got.status();
          if (b != &one) ASSERT_EQ(got->shape(), shape);
          ASSERT_EQ(got->num_elements(), shape.num_elements());
          const char kind = op[0] == 'S' ? '-' : op[0] == 'M' ? '*' : op[0] == 'D' ? '/' : '+';
          const float* px = x.data<float>();
          const float* py = y.data<float>();
          const float* po = got->data<float>();
          for (int64_t i = 0; i < got->num_elements(); ++i) {
            const float u = px[x.num_elements() == 1 ? 0 : i], v = py[y.num_elements() == 1 ? 0 : i];
            const float want = kind == '+' ? u + v : kind == '-' ? u - v : kind == '*' ? u * v : u / v;
            if (std::isnan(want)) {
              ASSERT_TRUE(std::isnan(po[i])) << "element " << i;
            } else {
              ASSERT_EQ(po[i], want) << "element " << i;
              ASSERT_EQ(std::signbit(po[i]), std::signbit(want)) << "element " << i;
            }
          }
        }
      }
    }
  }
}

TEST(BroadcastTest, CollapseMergesWhatBothOperandsWalkAlike) {
  auto c = cpu::CollapseBroadcast(Shape({1, 56, 56, 96}), Shape({1, 56, 56, 1}), Shape({1, 56, 56, 96}));
  EXPECT_EQ(c.dims, (std::vector<int64_t>{3136, 96}));
  EXPECT_EQ(c.sa, (std::vector<int64_t>{96, 1}));
  EXPECT_EQ(c.sb, (std::vector<int64_t>{1, 0}));
  c = cpu::CollapseBroadcast(Shape({4, 5, 6}), Shape({4, 5, 6}), Shape({4, 5, 6}));
  EXPECT_EQ(c.dims, (std::vector<int64_t>{120}));
  c = cpu::CollapseBroadcast(Shape({8, 1, 3}), Shape({1, 7, 1}), Shape({8, 7, 3}));
  EXPECT_EQ(c.dims, (std::vector<int64_t>{8, 7, 3}));
  EXPECT_EQ(c.sa, (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(c.sb, (std::vector<int64_t>{0, 1, 0}));
  c = cpu::CollapseBroadcast(Shape({}), Shape({}), Shape({}));  // a scalar
  EXPECT_EQ(c.dims, (std::vector<int64_t>{1}));
  c = cpu::CollapseBroadcast(Shape({2, 3, 4}), Shape({4}), Shape({2, 3, 4}));
  EXPECT_EQ(c.dims, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(c.sb, (std::vector<int64_t>{0, 1}));
}

// IsReference tells oneDNN's reference loops from its JIT kernels: a broadcast over two
// separated axes has only the former in oneDNN 2.6 (the elementwise kernels then run
// their own loops), a same-shape Sub the latter.
TEST(BroadcastTest, OneDnnReferenceImplementationsAreDetected) {
  auto pd = [](const dnnl::memory::dims& a, const dnnl::memory::dims& b) {
    return dnnl::binary::primitive_desc(
        dnnl::binary::desc(dnnl::algorithm::binary_sub, cpu::PlainDesc(a), cpu::PlainDesc(b), cpu::PlainDesc(a)),
        cpu::PrimitiveAttr(), cpu::Engine());
  };
  EXPECT_TRUE(cpu::IsReference(pd({4, 6, 2, 12000}, {1, 6, 1, 12000})));
  EXPECT_FALSE(cpu::IsReference(pd({4, 6, 2, 12000}, {4, 6, 2, 12000})));
  // And the Sub itself, large enough for the kernel to ask oneDNN first (elementwise.cc's
  // 16384 values) and fall back to its loops, against the reference.
  EXPECT_TRUE(cpu::IsReference(pd({4, 6, 2, 1200}, {1, 6, 1, 1200})));
  std::mt19937 rng(7);
  Tensor a = Random<float>(Shape({4, 6, 2, 1200}), rng), b = Random<float>(Shape({1, 6, 1, 1200}), rng);
  auto out = RunOp("Sub", {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(a.num_elements());
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    const int64_t c = (i / 2400) % 6, w = i % 1200;
    want[i] = static_cast<double>(a.data<float>()[i]) - b.data<float>()[c * 1200 + w];
  }
  ExpectClose(*out, want, 1e-6, 1e-6);
}

}  // namespace
}  // namespace graphd::executor::test
