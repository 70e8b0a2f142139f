// The `tf` namespace from source: functions written against TensorFlow 2's API,
// traced and executed on the CPU device, with values worked out by hand (numpy
// semantics). Errors raise the Python class TensorFlow raises.
#include <cmath>
#include <set>

#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "gmock/gmock.h"
#include "tests/conformance/trace/trace_harness.h"

namespace graphd::compiler::tracer::test {
namespace {

using ::graphd::executor::test::ExpectClose;
using ::graphd::executor::test::Make;
using ::testing::HasSubstr;

// Checks dtype, shape and values (within `tol`) of one result.
void Expect(const Tensor& t, DType dtype, std::vector<int64_t> dims, const std::vector<double>& values,
            double tol = 0) {
  EXPECT_EQ(t.dtype(), dtype) << t.DebugString();
  EXPECT_EQ(t.shape().dims(), dims) << t.DebugString();
  ExpectClose(t, values, 0, tol);
}

std::vector<Tensor> TraceAndRun(SourceModule& m, const std::string& fn, std::vector<Value> specs,
                                std::vector<Tensor> feeds) {
  auto cf = m.Trace(fn, std::move(specs));
  EXPECT_TRUE(cf.ok()) << cf.status();
  if (!cf.ok()) return {};
  auto out = Execute(*cf, std::move(feeds));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<Tensor>{};
}

const Tensor kX23 = Make<float>({2, 3}, {1, 2, 3, 4, 5, 6});

constexpr char kCreation[] = R"py(
import tensorflow as tf

@tf.function
def creation():
  a = tf.zeros_like(tf.constant([[1, 2], [3, 4]]))
  b = tf.ones_like([1.5, 2.5], dtype=tf.int32)
  c = tf.fill([2, 3], 7)
  d = tf.linspace(0.0, 1.0, 5)
  e = tf.eye(2, 3, dtype=tf.int32)
  f = tf.zeros([2], dtype=tf.int64)
  g = tf.ones((2, 2), tf.float64)
  h = tf.linspace([0.0, 10.0], [1.0, 20.0], 3, axis=-1)
  i = tf.zeros([2], tf.bool)
  return a, b, c, d, e, f, g, h, i

@tf.function
def fill_dynamic(n):
  return tf.fill([n, 2], 1.5), tf.zeros(tf.shape(tf.ones([n])), tf.int32)
)py";

TEST(TfApiTest, CreationFunctions) {
  SourceModule m(kCreation);
  auto out = TraceAndRun(m, "creation", {}, {});
  ASSERT_EQ(out.size(), 9u);
  Expect(out[0], DType::kInt32, {2, 2}, {0, 0, 0, 0});
  Expect(out[1], DType::kInt32, {2}, {1, 1});
  Expect(out[2], DType::kInt32, {2, 3}, {7, 7, 7, 7, 7, 7});
  Expect(out[3], DType::kFloat32, {5}, {0, 0.25, 0.5, 0.75, 1}, 1e-6);
  Expect(out[4], DType::kInt32, {2, 3}, {1, 0, 0, 0, 1, 0});
  Expect(out[5], DType::kInt64, {2}, {0, 0});
  Expect(out[6], DType::kFloat64, {2, 2}, {1, 1, 1, 1});
  Expect(out[7], DType::kFloat32, {2, 3}, {0, 0.5, 1, 10, 15, 20}, 1e-5);
  Expect(out[8], DType::kBool, {2}, {0, 0});

  auto dyn = TraceAndRun(m, "fill_dynamic", {Spec(DType::kInt32)}, {Tensor::Scalar<int32_t>(3)});
  ASSERT_EQ(dyn.size(), 2u);
  Expect(dyn[0], DType::kFloat32, {3, 2}, {1.5, 1.5, 1.5, 1.5, 1.5, 1.5});
  Expect(dyn[1], DType::kInt32, {3}, {0, 0, 0});
}

constexpr char kShapes[] = R"py(
import tensorflow as tf

@tf.function
def shapes(x):
  e = tf.expand_dims(x, axis=1)
  s = tf.squeeze(e, [1])
  b = tf.broadcast_to(tf.constant([1., 2., 3.]), tf.shape(x))
  return (tf.shape(e), tf.size(x), tf.rank(e), b, tf.reshape(s, [3, -1]), tf.shape(x, out_type=tf.int64), x.shape,
          tf.reshape(e, [tf.shape(x)[0], -1]))

@tf.function
def dynamic_shape(x):
  return tf.shape(x), tf.size(x)
)py";

TEST(TfApiTest, ShapeFunctions) {
  SourceModule m(kShapes);
  auto cf = m.Trace("shapes", {Spec(DType::kFloat32, {2, 3})});
  ASSERT_TRUE(cf.ok()) << cf.status();
  // x.shape is a Python tuple (TensorShape) while tracing; returned from a
  // tf.function its numbers are int32 tensors, as TensorFlow returns them.
  auto out = Execute(*cf, {kX23});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 9u);
  Expect((*out)[0], DType::kInt32, {3}, {2, 1, 3});
  Expect((*out)[1], DType::kInt32, {}, {6});
  Expect((*out)[2], DType::kInt32, {}, {3});
  Expect((*out)[3], DType::kFloat32, {2, 3}, {1, 2, 3, 1, 2, 3});
  Expect((*out)[4], DType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Expect((*out)[5], DType::kInt64, {2}, {2, 3});
  Expect((*out)[6], DType::kInt32, {}, {2});
  Expect((*out)[7], DType::kInt32, {}, {3});
  // tf.shape(x)[0] of a tensor of known shape is known while tracing.
  Expect((*out)[8], DType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});

  auto dyn = TraceAndRun(m, "dynamic_shape", {Spec(DType::kFloat32, {-1, 2})},
                         {Make<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_EQ(dyn.size(), 2u);
  Expect(dyn[0], DType::kInt32, {2}, {4, 2});
  Expect(dyn[1], DType::kInt32, {}, {8});
}

constexpr char kArrays[] = R"py(
import tensorflow as tf

@tf.function
def arrays(x):
  u0, u1 = tf.unstack(x)
  cols = tf.unstack(x, axis=1)
  p, q = tf.split(x, [1, -1], axis=1)
  h1, h2, h3 = tf.split(x, 3, axis=1)
  t = tf.tile(x, [1, 2])
  g = tf.gather(x, [2, 0], axis=1)
  sl = tf.slice(x, [0, 1], [2, -1])
  pd = tf.pad(x, [[1, 0], [0, 2]], constant_values=9)
  r = tf.reverse(x, [1])
  rf = tf.pad(x, [[0, 0], [1, 1]], mode="reflect")
  return u1, cols[2], p, q, h3, t, g, sl, pd, r, rf, len(cols)

@tf.function
def onehot(i):
  return tf.one_hot(i, 3), tf.one_hot(i, 3, on_value=5, off_value=-1, axis=0)
)py";

TEST(TfApiTest, ArrayFunctions) {
  SourceModule m(kArrays);
  auto cf = m.Trace("arrays", {Spec(DType::kFloat32, {2, 3})});
  ASSERT_TRUE(cf.ok()) << cf.status();
  auto out = Execute(*cf, {kX23});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 12u);
  const auto& o = *out;
  Expect(o[0], DType::kFloat32, {3}, {4, 5, 6});
  Expect(o[1], DType::kFloat32, {2}, {3, 6});
  Expect(o[2], DType::kFloat32, {2, 1}, {1, 4});
  Expect(o[3], DType::kFloat32, {2, 2}, {2, 3, 5, 6});
  Expect(o[4], DType::kFloat32, {2, 1}, {3, 6});
  Expect(o[5], DType::kFloat32, {2, 6}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  Expect(o[6], DType::kFloat32, {2, 2}, {3, 1, 6, 4});
  Expect(o[7], DType::kFloat32, {2, 2}, {2, 3, 5, 6});
  Expect(o[8], DType::kFloat32, {3, 5}, {9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 4, 5, 6, 9, 9});
  Expect(o[9], DType::kFloat32, {2, 3}, {3, 2, 1, 6, 5, 4});
  Expect(o[10], DType::kFloat32, {2, 5}, {2, 1, 2, 3, 2, 5, 4, 5, 6, 5});
  Expect(o[11], DType::kInt32, {}, {3});  // len(cols), a Python int, returned as a tensor

  auto oh = TraceAndRun(m, "onehot", {Spec(DType::kInt32, {3})}, {Make<int32_t>({3}, {0, 2, -1})});
  ASSERT_EQ(oh.size(), 2u);
  Expect(oh[0], DType::kFloat32, {3, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 0});
  // axis=0: [depth, n]; Python int on/off values make an int32 result.
  Expect(oh[1], DType::kInt32, {3, 3}, {5, -1, -1, -1, -1, -1, -1, 5, -1});
}

constexpr char kMath[] = R"py(
import tensorflow as tf

@tf.function
def maths(x, i):
  return (tf.truediv(i, 2), tf.math.divide(i, 4), tf.cumsum(x, axis=1),
          tf.math.cumsum(x, exclusive=True, reverse=True), tf.argmax(x, axis=1), tf.math.argmin(x),
          tf.argmax(x, 1, output_type=tf.int32), tf.add_n([x, x, x]), tf.math.reduce_sum(x, 0),
          tf.math.truediv(x, 2.0), tf.math.squared_difference(x, 2.0), tf.math.reciprocal(x))
)py";

TEST(TfApiTest, MathFunctions) {
  SourceModule m(kMath);
  Tensor x = Make<float>({2, 3}, {1, 5, 3, 4, 2, 6});
  auto o = TraceAndRun(m, "maths", {Spec(DType::kFloat32, {2, 3}), Spec(DType::kInt32, {3})},
               {x, Make<int32_t>({3}, {7, 2, 9})});
  ASSERT_EQ(o.size(), 12u);
  Expect(o[0], DType::kFloat64, {3}, {3.5, 1, 4.5});
  Expect(o[1], DType::kFloat64, {3}, {1.75, 0.5, 2.25});
  Expect(o[2], DType::kFloat32, {2, 3}, {1, 6, 9, 4, 6, 12});
  Expect(o[3], DType::kFloat32, {2, 3}, {4, 2, 6, 0, 0, 0});
  Expect(o[4], DType::kInt64, {2}, {1, 2});
  Expect(o[5], DType::kInt64, {3}, {0, 1, 0});
  Expect(o[6], DType::kInt32, {2}, {1, 2});
  Expect(o[7], DType::kFloat32, {2, 3}, {3, 15, 9, 12, 6, 18});
  Expect(o[8], DType::kFloat32, {3}, {5, 7, 9});
  Expect(o[9], DType::kFloat32, {2, 3}, {0.5, 2.5, 1.5, 2, 1, 3});
  Expect(o[10], DType::kFloat32, {2, 3}, {1, 9, 1, 4, 0, 16});
  Expect(o[11], DType::kFloat32, {2, 3}, {1, 0.2, 1.0 / 3, 0.25, 0.5, 1.0 / 6}, 1e-6);
}

constexpr char kNn[] = R"py(
import tensorflow as tf

@tf.function
def nns(x):
  w = tf.ones([2, 2, 1, 1])
  c = tf.nn.conv2d(x, w, strides=1, padding="VALID")
  cp = tf.nn.conv2d(x, w, [1, 2, 2, 1], [[0, 0], [1, 0], [1, 0], [0, 0]])
  mp = tf.nn.max_pool2d(x, 2, 1, "VALID")
  ap = tf.nn.avg_pool2d(x, ksize=2, strides=2, padding="SAME")
  flat = tf.reshape(x, [3, 3])
  b = tf.nn.bias_add(flat, [1., 0., -1.])
  m, v = tf.nn.moments(flat, axes=[0])
  mk, vk = tf.nn.moments(flat, [0, 1], keepdims=True)
  g = tf.nn.gelu(tf.constant([0., 1.]))
  s = tf.nn.softmax(tf.constant([[0., 0.], [1., 1.]]), axis=0)
  return c, cp, mp, ap, b, m, v, mk, vk, g, s
)py";

TEST(TfApiTest, NnFunctions) {
  SourceModule m(kNn);
  Tensor x = Make<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto o = TraceAndRun(m, "nns", {Spec(DType::kFloat32, {1, 3, 3, 1})}, {x});
  ASSERT_EQ(o.size(), 11u);
  Expect(o[0], DType::kFloat32, {1, 2, 2, 1}, {12, 16, 24, 28});
  // Explicit padding: one zero row on top and column on the left, stride 2.
  Expect(o[1], DType::kFloat32, {1, 2, 2, 1}, {1, 5, 11, 28});
  Expect(o[2], DType::kFloat32, {1, 2, 2, 1}, {5, 6, 8, 9});
  Expect(o[3], DType::kFloat32, {1, 2, 2, 1}, {3, 4.5, 7.5, 9});
  Expect(o[4], DType::kFloat32, {3, 3}, {2, 2, 2, 5, 5, 5, 8, 8, 8});
  Expect(o[5], DType::kFloat32, {3}, {4, 5, 6});
  Expect(o[6], DType::kFloat32, {3}, {6, 6, 6});
  Expect(o[7], DType::kFloat32, {1, 1}, {5});
  Expect(o[8], DType::kFloat32, {1, 1}, {60.0 / 9}, 1e-5);
  Expect(o[9], DType::kFloat32, {2}, {0, 0.8413447}, 1e-6);
  const double e = std::exp(1.0);
  Expect(o[10], DType::kFloat32, {2, 2}, {1 / (1 + e), 1 / (1 + e), e / (1 + e), e / (1 + e)}, 1e-6);
}

constexpr char kControl[] = R"py(
import tensorflow as tf

@tf.function
def conds(x):
  a = tf.cond(x > 0, lambda: x * 2., lambda: -x)
  b = tf.cond(True, lambda: 1, lambda: 2)
  c, d = tf.cond(x > 10, lambda: (x, 1), lambda: (0., 2))
  def big():
    return {"v": x, "n": 10}
  def small():
    return {"n": 0, "v": x - 1}
  e = tf.cond(pred=x > 1, true_fn=big, false_fn=small)
  return a, b, c, d, e["v"], e["n"]

@tf.function
def loops(n):
  i, s = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0])
  j = tf.while_loop(lambda j: j < 100, lambda j: j * 2, [1], maximum_iterations=3)
  k = tf.while_loop(lambda k: k < 10, lambda k: k + 3, tf.constant(1))
  m, d = tf.while_loop(lambda m, d: m < 3, lambda m, d: (m + 1, {"a": d["a"] * 2.}), (0, {"a": tf.constant(1.)}))
  return i, s, j, k, m, d["a"]

@tf.function
def checked(x):
  tf.Assert(x > 0, ["x must be positive", x])
  tf.debugging.Assert(tf.reduce_all(x < 100), [x])
  return x + 1
)py";

TEST(TfApiTest, CondStagesTensorPredicatesAndCallsPythonOnes) {
  SourceModule m(kControl);
  auto cf = m.Trace("conds", {Spec(DType::kFloat32)});
  ASSERT_TRUE(cf.ok()) << cf.status();
  // tf.cond(True, ...) ran only the true branch, at trace time: a Python 1, which
  // the tf.function returns as an int32 tensor.
  for (auto [in, a, c, d, v, n] : {std::tuple{3.0f, 6.0f, 0.0f, 2, 3.0f, 10}, {-2.0f, 2.0f, 0.0f, 2, -3.0f, 0},
                                   {12.0f, 24.0f, 12.0f, 1, 12.0f, 10}}) {
    auto out = Execute(*cf, {Tensor::Scalar<float>(in)});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 6u);
    Expect((*out)[0], DType::kFloat32, {}, {a});
    Expect((*out)[1], DType::kInt32, {}, {1});
    Expect((*out)[2], DType::kFloat32, {}, {c});
    Expect((*out)[3], DType::kInt32, {}, {static_cast<double>(d)});
    Expect((*out)[4], DType::kFloat32, {}, {v});
    Expect((*out)[5], DType::kInt32, {}, {static_cast<double>(n)});
  }
}

TEST(TfApiTest, WhileLoopCarriesStructuresAndStopsAtMaximumIterations) {
  SourceModule m(kControl);
  auto o = TraceAndRun(m, "loops", {Spec(DType::kInt32)}, {Tensor::Scalar<int32_t>(5)});
  ASSERT_EQ(o.size(), 6u);
  Expect(o[0], DType::kInt32, {}, {5});
  Expect(o[1], DType::kInt32, {}, {10});  // 0 + 1 + 2 + 3 + 4
  Expect(o[2], DType::kInt32, {}, {8});   // 1 -> 2 -> 4 -> 8, three iterations
  Expect(o[3], DType::kInt32, {}, {10});  // 1, 4, 7, 10
  Expect(o[4], DType::kInt32, {}, {3});
  Expect(o[5], DType::kFloat32, {}, {8});
  auto zero = TraceAndRun(m, "loops", {Spec(DType::kInt32)}, {Tensor::Scalar<int32_t>(0)});
  ASSERT_EQ(zero.size(), 6u);
  Expect(zero[0], DType::kInt32, {}, {0});
  Expect(zero[1], DType::kInt32, {}, {0});
}

TEST(TfApiTest, AssertFailsTheRunWithItsData) {
  SourceModule m(kControl);
  auto cf = m.Trace("checked", {Spec(DType::kInt32)});
  ASSERT_TRUE(cf.ok()) << cf.status();
  auto ok = Execute(*cf, {Tensor::Scalar<int32_t>(3)});
  ASSERT_TRUE(ok.ok()) << ok.status();
  Expect((*ok)[0], DType::kInt32, {}, {4});
  auto bad = Execute(*cf, {Tensor::Scalar<int32_t>(-2)});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("assertion failed: [x must be positive] [-2]"));
  auto big = Execute(*cf, {Tensor::Scalar<int32_t>(200)});
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.status().message(), HasSubstr("assertion failed: [200]"));
}

constexpr char kMisc[] = R"py(
import tensorflow as tf

@tf.function
def strs(s):
  return tf.strings.join([s, "x"], separator="-"), tf.strings.length(s), tf.strings.length(s, unit="UTF8_CHAR")

@tf.function
def rand():
  u = tf.random.stateless_uniform([1000], seed=[1, 2], minval=2.0, maxval=4.0)
  u2 = tf.random.stateless_uniform([1000], seed=[1, 2], minval=2.0, maxval=4.0)
  n = tf.random.stateless_normal([2000], seed=(3, 4), mean=1.0, stddev=2.0)
  k = tf.random.stateless_uniform([200], seed=[5, 6], minval=0, maxval=10, dtype=tf.int32)
  other = tf.random.stateless_uniform([1000], seed=[1, 3], minval=2.0, maxval=4.0)
  return u, u2, n, k, other
)py";

TEST(TfApiTest, StringFunctions) {
  SourceModule m(kMisc);
  Tensor s = Tensor::Allocate(DType::kString, Shape({2})).value();
  s.data<std::string>()[0] = "ab";
  s.data<std::string>()[1] = "h\xc3\xa9llo";
  auto o = TraceAndRun(m, "strs", {Spec(DType::kString, {2})}, {s});
  ASSERT_EQ(o.size(), 3u);
  ASSERT_EQ(o[0].dtype(), DType::kString);
  EXPECT_EQ(o[0].data<std::string>()[0], "ab-x");
  EXPECT_EQ(o[0].data<std::string>()[1], "h\xc3\xa9llo-x");
  Expect(o[1], DType::kInt32, {2}, {2, 6});
  Expect(o[2], DType::kInt32, {2}, {2, 5});
}

TEST(TfApiTest, StatelessRandomIsDeterministicWithTheRequestedDistribution) {
  SourceModule m(kMisc);
  auto o = TraceAndRun(m, "rand", {}, {});
  ASSERT_EQ(o.size(), 5u);
  std::vector<double> u = executor::test::ToDouble(o[0]);
  std::vector<double> u2 = executor::test::ToDouble(o[1]);
  EXPECT_EQ(u, u2);  // same seed, same numbers
  EXPECT_NE(u, executor::test::ToDouble(o[4]));
  double sum = 0;
  for (double v : u) {
    EXPECT_GE(v, 2.0);
    EXPECT_LT(v, 4.0);
    sum += v;
  }
  EXPECT_NEAR(sum / u.size(), 3.0, 0.1);
  std::vector<double> n = executor::test::ToDouble(o[2]);
  double mean = 0, sq = 0;
  for (double v : n) mean += v / n.size();
  for (double v : n) sq += (v - mean) * (v - mean) / n.size();
  EXPECT_NEAR(mean, 1.0, 0.15);
  EXPECT_NEAR(std::sqrt(sq), 2.0, 0.15);
  EXPECT_EQ(o[3].dtype(), DType::kInt32);
  std::set<double> seen;
  for (double v : executor::test::ToDouble(o[3])) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 10);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 10u);  // 200 draws cover all ten values
}

constexpr char kErrors[] = R"py(
import tensorflow as tf

@tf.function
def split_uneven(x):
  return tf.split(x, 2, axis=1)

@tf.function
def bad_axis(x):
  return tf.expand_dims(x, 5)

@tf.function
def bad_cond(x):
  return tf.cond(x > 0, lambda: (x, x), lambda: x)

@tf.function
def cond_dtypes(x):
  return tf.cond(x > 0, lambda: x, lambda: 1)

@tf.function
def not_callable(x):
  return tf.cond(x > 0, 1, 2)

@tf.function
def bad_body(x):
  return tf.while_loop(lambda a, b: a < 3, lambda a, b: a + 1, [x, x])

@tf.function
def bad_seed():
  return tf.random.stateless_uniform([2], seed=[1])

@tf.function
def unknown_kw(x):
  return tf.one_hot(x, 3, depthh=2)

@tf.function
def dynamic_reshape(x, n):
  return tf.reshape(x, [n, 3])

@tf.function
def bad_size_splits(x):
  return tf.split(x, [1, 1], axis=1)
)py";

TEST(TfApiTest, BadArgumentsRaiseThePythonClassTensorFlowRaises) {
  SourceModule m(kErrors);
  Value x = Spec(DType::kFloat32, {2, 3});
  Value s = Spec(DType::kFloat32);
  struct Case {
    const char* fn;
    std::vector<Value> args;
    const char* cls;
    const char* text;
  } cases[] = {
      {"split_uneven", {x}, "ValueError", "not divisible"},
      {"bad_axis", {x}, "ValueError", "out of range"},
      {"bad_cond", {s}, "ValueError", "same number, type, and overall structure"},
      {"cond_dtypes", {s}, "TypeError", "dtype float32 in the main branch, but dtype int32"},
      {"not_callable", {s}, "TypeError", "true_fn must be callable"},
      {"bad_body", {s}, "ValueError", "same structure as loop_vars"},
      {"bad_seed", {}, "ValueError", "seed must have shape [2]"},
      {"unknown_kw", {Spec(DType::kInt32, {2})}, "TypeError", "unexpected keyword argument 'depthh'"},
      {"dynamic_reshape", {x, Spec(DType::kInt32)}, "TypeError", "must be known when the function is traced"},
      {"bad_size_splits", {x}, "ValueError", "do not add up"},
  };
  for (const Case& c : cases) {
    auto cf = m.Trace(c.fn, c.args);
    ASSERT_FALSE(cf.ok()) << c.fn;
    EXPECT_TRUE(IsPyError(cf.status(), c.cls)) << c.fn << ": " << cf.status();
    EXPECT_THAT(cf.status().message(), HasSubstr(c.text)) << c.fn;
  }
}

}  // namespace
}  // namespace graphd::compiler::tracer::test
