// Source to results: seed-document functions parsed, converted by AutoGraph, traced
// into concrete functions, planned and executed on the CPU device. The values, trace
// output and errors are those the seed articles show.
#include "compiler/tracer/errors.h"
#include "gmock/gmock.h"
#include "tests/conformance/trace/trace_harness.h"

namespace graphd::compiler::tracer {
namespace {

using ::testing::HasSubstr;

using Module = test::SourceModule;
using test::Execute;
using test::Spec;

constexpr char kSeeds[] = R"py(
import tensorflow as tf

delta = 1.0

def huber_loss(a):
  if tf.abs(a) <= delta:
    loss = a * a / 2
  else:
    loss = delta * (tf.abs(a) - delta / 2)
  return loss

def collatz(a):
    counter = 0
    while a != 1:
        if a % 2 == 0:
            a = a // 2
        else:
            a = 3 * a + 1
        counter = counter + 1
    return counter

@tf.function
def double(a):
  print("Tracing with", a)
  return a + a

@tf.function
def tf_for_tf_break():
  x = 0
  for i in tf.range(5):
    if tf.equal(i, 3):
      break
    x += i
  return x

@tf.function
def buggy_py_for_tf_break():
  x = 0
  for i in range(5):
    if tf.equal(i, 3):
      break
    x += i
  return x

@tf.function
def buggy_while_py_true_tf_break(x):
  while True:
    if tf.equal(x, 0):
      break
    x -= 1
  return x

@tf.function
def while_tf_true_tf_break(x):
  while tf.constant(True):
    if tf.equal(x, 0):
      break
    x -= 1
  return x

@tf.function
def f_one_branch():
  if tf.constant(True):
    x = tf.ones([3, 3])
  return x

@tf.function
def buggy_loop_var_uninitialized():
  for i in tf.range(3):
    x = i
  return x

@tf.function
def buggy_loop_type_changes():
  x = tf.constant(0, dtype=tf.float32)
  for i in tf.range(3):
    x = i
  return x

@tf.function
def for_in_range():
  x = 0
  for i in range(5):
    x += i
  return x

@tf.function
def maybe_tensor_cond(x):
  if x < 0:
    x = -x
  return x
)py";

TEST(TraceTest, HuberLossStagesTheIf) {
  Module m(kSeeds);
  auto cf = m.Trace("huber_loss", {Spec(DType::kFloat32)});
  ASSERT_TRUE(cf.ok()) << cf.status();
  for (auto [in, want] : {std::pair{0.5f, 0.125f}, {9.0f, 8.5f}, {-3.0f, 2.5f}}) {
    auto out = Execute(*cf, {Tensor::Scalar<float>(in)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_FLOAT_EQ((*out)[0].data<float>()[0], want) << in;
  }
}

TEST(TraceTest, CollatzStagesNestedWhileAndIf) {
  Module m(kSeeds);
  auto cf = m.Trace("collatz", {Spec(DType::kInt32)});
  ASSERT_TRUE(cf.ok()) << cf.status();
  for (auto [in, want] : {std::pair{27, 111}, {1, 0}, {6, 8}}) {
    auto out = Execute(*cf, {Tensor::Scalar<int32_t>(in)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int32_t>()[0], want) << in;
  }
}

TEST(TraceTest, PrintRunsAtTraceTimeAndShowsSymbolicTensors) {
  Module m(kSeeds);
  auto cf = m.Trace("double", {Spec(DType::kInt32)});
  ASSERT_TRUE(cf.ok()) << cf.status();
  EXPECT_EQ(cf->trace_stdout, "Tracing with Tensor(\"a:0\", shape=(), dtype=int32)\n");
  auto out = Execute(*cf, {Tensor::Scalar<int32_t>(21)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 42);
}

TEST(TraceTest, LoopsOverTensorsWithBreak) {
  Module m(kSeeds);
  auto cf = m.Trace("tf_for_tf_break", {});
  ASSERT_TRUE(cf.ok()) << cf.status();
  auto out = Execute(*cf, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 3);  // 0 + 1 + 2

  auto w = m.Trace("while_tf_true_tf_break", {Spec(DType::kInt32)});
  ASSERT_TRUE(w.ok()) << w.status();
  auto wout = Execute(*w, {Tensor::Scalar<int32_t>(5)});
  ASSERT_TRUE(wout.ok()) << wout.status();
  EXPECT_EQ((*wout)[0].data<int32_t>()[0], 0);
}

TEST(TraceTest, PythonLoopsUnrollAndPythonResultsBecomeTensors) {
  Module m(kSeeds);
  auto cf = m.Trace("for_in_range", {});
  ASSERT_TRUE(cf.ok()) << cf.status();
  // The loop unrolled while tracing: the graph is the constant 10, an int32 tensor as
  // TensorFlow returns a Python int from a tf.function.
  ASSERT_EQ(cf->function->num_results(), 1);
  auto ten = Execute(*cf, {});
  ASSERT_TRUE(ten.ok()) << ten.status();
  EXPECT_EQ((*ten)[0].dtype(), DType::kInt32);
  EXPECT_EQ((*ten)[0].data<int32_t>()[0], 10);
  // A Python argument picks the branch at trace time; a tensor one stages it.
  auto py = m.Trace("maybe_tensor_cond", {Value::Int(-1)});
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_EQ(py->traced_nodes.size(), 1u);  // the constant 1 only: no If
  auto one = Execute(*py, {});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ((*one)[0].data<int32_t>()[0], 1);
  auto staged = m.Trace("maybe_tensor_cond", {Spec(DType::kInt32)});
  ASSERT_TRUE(staged.ok()) << staged.status();
  auto out = Execute(*staged, {Tensor::Scalar<int32_t>(-7)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 7);
}

TEST(TraceTest, TheSeedsBuggyExamplesFailAsTheArticleSays) {
  Module m(kSeeds);
  auto py_for = m.Trace("buggy_py_for_tf_break", {});
  ASSERT_FALSE(py_for.ok());
  EXPECT_TRUE(IsPyError(py_for.status(), "TypeError")) << py_for.status();
  auto py_while = m.Trace("buggy_while_py_true_tf_break", {Spec(DType::kInt32)});
  ASSERT_FALSE(py_while.ok());
  EXPECT_TRUE(IsPyError(py_while.status(), "TypeError")) << py_while.status();
  auto one_branch = m.Trace("f_one_branch", {});
  ASSERT_FALSE(one_branch.ok());
  EXPECT_TRUE(IsPyError(one_branch.status(), "ValueError")) << one_branch.status();
  EXPECT_THAT(one_branch.status().message(), HasSubstr("'x' must also be initialized in the else branch"));
  // The article's TensorFlow refused a loop variable first set in the loop; today's
  // TensorFlow (and graphd) trace one iteration to define it and check at run time
  // that the loop ran at least once (issue 13).
  auto uninit = m.Trace("buggy_loop_var_uninitialized", {});
  ASSERT_TRUE(uninit.ok()) << uninit.status();
  auto last = Execute(*uninit, {});
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ((*last)[0].data<int32_t>()[0], 2);
  auto type_change = m.Trace("buggy_loop_type_changes", {});
  ASSERT_FALSE(type_change.ok());
  EXPECT_EQ(type_change.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(type_change.status().message(), HasSubstr("dtype float32 before the loop, but dtype int32"));
  // Errors point at the user's source line.
  std::vector<UserLocation> locs = errors::LocationsOf(one_branch.status());
  ASSERT_FALSE(locs.empty());
  EXPECT_EQ(locs[0].source_line, "  if tf.constant(True):");
}

}  // namespace
}  // namespace graphd::compiler::tracer
