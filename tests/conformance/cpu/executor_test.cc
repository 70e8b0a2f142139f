// The planner and executor: variables, feed validation, cancellation, plan building
// errors, and plans run from several threads (the pool: thread_pool_test.cc).
#include "executor/runtime/executor.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/buffer_cache.h"
#include "core/ops/all_ops.h"
#include "tests/conformance/cpu/test_util.h"
#include "executor/runtime/tensor_pool.h"
#include "executor/runtime/thread_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

PartialShape P(std::vector<int64_t> dims) { return PartialShape(std::move(dims)); }

// v: float32[2] variable;  init = Assign(v, [1, 2]);  read = Identity(v);
// add = AssignAdd(v, [10, 20]);  sub = AssignSub(v, [0.5, 0.5]);  twice = v * 2.
class VariableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    v_ = g_.AddNode({.name = "v",
                     .op = "VariableV2",
                     .attrs = {{"dtype", DType::kFloat32}, {"shape", P({2})}}})
             .value();
    Const("init_value", {1, 2});
    Const("delta", {10, 20});
    Const("half", {0.5, 0.5});
    Const("two", {2, 2});
    Add("init", "Assign", {v_, g_.FindNode("init_value")});
    Add("read", "Identity", {v_});
    Add("add", "AssignAdd", {v_, g_.FindNode("delta")});
    Add("sub", "AssignSub", {v_, g_.FindNode("half")});
    Add("twice", "Mul", {v_, g_.FindNode("two")});
  }
  void Const(const std::string& name, std::vector<float> values) {
    Tensor t = Tensor::FromVector<float>(Shape({2}), values).value();
    ASSERT_TRUE(g_.AddNode({.name = name, .op = "Const", .attrs = {{"value", t}}}).ok());
  }
  void Add(const std::string& name, const std::string& op, std::vector<const Node*> inputs) {
    NodeSpec spec{.name = name, .op = op};
    for (const Node* n : inputs) spec.inputs.push_back({n, 0});
    auto n = g_.AddNode(std::move(spec));
    ASSERT_TRUE(n.ok()) << n.status();
  }
  StatusOr<std::vector<Tensor>> Run(std::vector<std::string> fetches,
                                    std::vector<std::string> targets = {}) {
    return RunGraph(g_, {}, fetches, targets, &vars_);
  }

  Graph g_;
  const Node* v_ = nullptr;
  VariableStore vars_;
};

TEST_F(VariableTest, ReadUninitialized) {
  for (const char* fetch : {"read", "v", "twice"}) {
    auto r = Run({fetch});
    ASSERT_FALSE(r.ok()) << fetch;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(r.status().message(), HasSubstr("uninitialized value v"));
    EXPECT_EQ(errors::NodeOf(r.status()), "v");
  }
  auto add = Run({"add"});
  ASSERT_FALSE(add.ok());
  EXPECT_EQ(add.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(add.status().message(), HasSubstr("v"));
}

TEST_F(VariableTest, AssignThenRead) {
  auto init = Run({"init"});
  ASSERT_TRUE(init.ok()) << init.status();
  ExpectClose((*init)[0], {1, 2});
  auto read = Run({"read", "v", "twice"});
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectClose((*read)[0], {1, 2});
  ExpectClose((*read)[1], {1, 2});
  ExpectClose((*read)[2], {2, 4});
  // A target run updates the variable without fetching.
  ASSERT_TRUE(Run({}, {"add"}).ok());
  ExpectClose((*Run({"read"}))[0], {11, 22});
}

TEST_F(VariableTest, AssignAddAndSub) {
  ASSERT_TRUE(Run({}, {"init"}).ok());
  auto add = Run({"add"});
  ASSERT_TRUE(add.ok()) << add.status();
  ExpectClose((*add)[0], {11, 22});
  add = Run({"add"});
  ASSERT_TRUE(add.ok());
  ExpectClose((*add)[0], {21, 42});
  auto sub = Run({"sub"});
  ASSERT_TRUE(sub.ok()) << sub.status();
  ExpectClose((*sub)[0], {20.5, 41.5});
  ExpectClose(vars_.Read("v").value(), {20.5, 41.5});
  // Re-initialising resets the value.
  ASSERT_TRUE(Run({}, {"init"}).ok());
  ExpectClose((*Run({"read"}))[0], {1, 2});
}

TEST_F(VariableTest, VariablesAreIsolatedPerStore) {
  ASSERT_TRUE(Run({}, {"init"}).ok());
  VariableStore other;
  auto r = RunGraph(g_, {}, {"read"}, {}, &other);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
}

class FeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Node* x = AddPlaceholder(g_, "x", DType::kFloat32, P({-1, 3}));
    ASSERT_TRUE(g_.AddNode({.name = "r", .op = "Relu", .inputs = {{x, 0}}}).ok());
    auto spec =
        compiler::Prune(g_, std::vector<std::string>{"x"}, std::vector<std::string>{"r"}, {});
    ASSERT_TRUE(spec.ok());
    auto plan = Plan::Build(*spec, Device());
    ASSERT_TRUE(plan.ok()) << plan.status();
    plan_ = *std::move(plan);
  }
  StatusOr<std::vector<Tensor>> Exec(std::vector<Tensor> feeds, const CancellationToken& token) {
    return Execute(*plan_, std::move(feeds), {.variables = &vars_, .cancellation = &token});
  }

  Graph g_;
  std::unique_ptr<const Plan> plan_;
  VariableStore vars_;
  CancellationToken token_;
};

TEST_F(FeedTest, ValidFeedRuns) {
  auto out = Exec({Make<float>(Shape({2, 3}), {-1, 2, -3, 4, -5, 6})}, token_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  ExpectClose((*out)[0], {0, 2, 0, 4, 0, 6});
  EXPECT_EQ(plan_->feed_types()[0].dtype, DType::kFloat32);
  EXPECT_EQ(plan_->steps().size(), 1u);
}

TEST_F(FeedTest, WrongDType) {
  auto out = Exec({Make<int32_t>(Shape({1, 3}), {1, 2, 3})}, token_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("feed 'x' must be float32, got int32"));
  EXPECT_EQ(errors::NodeOf(out.status()), "x");
}

TEST_F(FeedTest, IncompatibleShape) {
  auto out = Exec({Make<float>(Shape({3, 2}), {1, 2, 3, 4, 5, 6})}, token_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("feed 'x' must have shape [?,3], got [3,2]"));
  EXPECT_EQ(errors::NodeOf(out.status()), "x");
  auto rank = Exec({Make<float>(Shape({3}), {1, 2, 3})}, token_);
  ASSERT_FALSE(rank.ok());
  EXPECT_EQ(rank.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(FeedTest, WrongFeedCount) {
  auto out = Exec({}, token_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("expected 1 feeds, got 0"));
}

TEST(ValidateFeedTest, Direct) {
  TensorType type{DType::kInt64, PartialShape()};
  EXPECT_TRUE(
      ValidateFeed("a:0", type, Make<int64_t>(Shape({2, 2, 2}), std::vector<int64_t>(8))).ok());
  Status s = ValidateFeed("a:0", type, Tensor::Scalar<float>(1));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("feed 'a:0'"));
}

TEST_F(FeedTest, DeadlinePassed) {
  CancellationToken token(CancellationToken::Clock::now() - std::chrono::seconds(1));
  auto out = Exec({Make<float>(Shape({1, 3}), {1, 2, 3})}, token);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(FeedTest, Cancelled) {
  CancellationToken token;
  token.Cancel();
  auto out = Exec({Make<float>(Shape({1, 3}), {1, 2, 3})}, token);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kCancelled);
}

TEST(CancellationTokenTest, DeadlinesOnlyTighten) {
  CancellationToken token;
  EXPECT_TRUE(token.Check().ok());
  auto far = CancellationToken::Clock::now() + std::chrono::hours(1);
  token.TightenDeadline(far);
  EXPECT_EQ(token.deadline(), far);
  token.TightenDeadline(far + std::chrono::hours(1));
  EXPECT_EQ(token.deadline(), far);
  EXPECT_TRUE(token.Check().ok());
  token.TightenDeadline(CancellationToken::Clock::now() - std::chrono::milliseconds(1));
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kDeadlineExceeded);
  token.Cancel();
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kCancelled);
}

TEST(PlanTest, MissingKernelIsUnimplemented) {
  OpRegistry ops;
  RegisterAllOps(ops);
  ops.Register({.name = "Mystery", .num_inputs = 1, .infer = [](InferenceContext& c) {
                  c.AddOutput(c.input(0).dtype, c.input(0).shape);
                  return absl::OkStatus();
                }});
  Graph g(ops);
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, P({2}));
  ASSERT_TRUE(g.AddNode({.name = "m", .op = "Mystery", .inputs = {{x, 0}}}).ok());
  EXPECT_FALSE(Device().SupportsOp(*g.FindNode("m")));
  EXPECT_TRUE(Device().SupportsOp(*x));
  auto r = RunGraph(g, {{"x", Make<float>(Shape({2}), {1, 2})}}, {"m"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(r.status().message(), HasSubstr("no CPU kernel for op 'Mystery'"));
  EXPECT_EQ(errors::NodeOf(r.status()), "m");
}

TEST(PlanTest, FetchFedTensorAndSharedInputs) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kInt32, P({3}));
  ASSERT_TRUE(g.AddNode({.name = "sq", .op = "Mul", .inputs = {{x, 0}, {x, 0}}}).ok());
  ASSERT_TRUE(
      g.AddNode({.name = "s", .op = "Add", .inputs = {{g.FindNode("sq"), 0}, {x, 0}}}).ok());
  auto out = RunGraph(g, {{"x", Make<int32_t>(Shape({3}), {1, 2, 3})}}, {"s", "x", "sq", "s"});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 4u);
  ExpectClose((*out)[0], {2, 6, 12});
  ExpectClose((*out)[1], {1, 2, 3});
  ExpectClose((*out)[2], {1, 4, 9});
  ExpectClose((*out)[3], {2, 6, 12});
}

TEST(PlanTest, OnePlanRunsConcurrently) {
  // Softmax(Relu(x @ w + b)) summed per row, on the oneDNN paths, from several threads.
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, P({-1, 64}));
  const Node* w = AddPlaceholder(g, "w", DType::kFloat32, P({64, 256}));
  const Node* b = AddPlaceholder(g, "b", DType::kFloat32, P({256}));
  const Node* mm = g.AddNode({.name = "mm", .op = "MatMul", .inputs = {{x, 0}, {w, 0}}}).value();
  const Node* add = g.AddNode({.name = "add", .op = "Add", .inputs = {{mm, 0}, {b, 0}}}).value();
  const Node* relu = g.AddNode({.name = "relu", .op = "Relu", .inputs = {{add, 0}}}).value();
  const Node* sm = g.AddNode({.name = "sm", .op = "Softmax", .inputs = {{relu, 0}}}).value();
  ASSERT_TRUE(
      g.AddNode({.name = "sum", .op = "Sum", .inputs = {{sm, 0}}, .attrs = {{"axis", IntList{1}}}})
          .ok());
  auto spec = compiler::Prune(g, std::vector<std::string>{"x", "w", "b"},
                              std::vector<std::string>{"relu", "sum"}, {});
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto plan = Plan::Build(*spec, Device());
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::mt19937 rng(9);
  std::vector<Tensor> feeds = {Random<float>(Shape({96, 64}), rng),
                               Random<float>(Shape({64, 256}), rng),
                               Random<float>(Shape({256}), rng)};
  CancellationToken token;
  VariableStore vars;
  auto reference = Execute(**plan, feeds, {.variables = &vars, .cancellation = &token});
  ASSERT_TRUE(reference.ok()) << reference.status();
  ExpectClose((*reference)[1], std::vector<double>(96, 1.0), 0, 1e-5);
  std::vector<double> want = ToDouble((*reference)[0]);
  std::atomic<int> mismatches{0};
  {
    ThreadPool pool(4);
    for (int i = 0; i < 32; ++i) {
      pool.Schedule([&] {
        auto out = Execute(**plan, feeds, {.variables = &vars, .cancellation = &token});
        if (!out.ok()) {
          mismatches.fetch_add(1);
          return;
        }
        std::vector<double> got = ToDouble((*out)[0]);
        bool same = got.size() == want.size();
        for (size_t j = 0; same && j < got.size(); ++j) same = std::abs(got[j] - want[j]) <= 1e-5;
        if (!same) mismatches.fetch_add(1);
      });
    }
  }
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(TensorPoolTest, ReusesOnlyUnsharedBuffersOfTheSameSize) {
  TensorPool pool;
  Tensor out;
  EXPECT_FALSE(pool.Take(DType::kFloat32, Shape({2}), &out));
  Tensor a = Make<float>(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  const void* a_data = a.raw_data();
  Tensor shared = Make<float>(Shape({6}), {1, 2, 3, 4, 5, 6});
  Tensor alias = shared;
  pool.Give(std::move(shared));  // still referenced by `alias`: dropped
  pool.Give(std::move(a));
  EXPECT_FALSE(a.valid());
  EXPECT_FALSE(pool.Take(DType::kInt32, Shape({6}), &out));    // wrong dtype
  EXPECT_FALSE(pool.Take(DType::kFloat32, Shape({5}), &out));  // wrong size
  EXPECT_FALSE(pool.Take(DType::kFloat32, Shape({-1, -6}), &out));
  ASSERT_TRUE(pool.Take(DType::kFloat32, Shape({3, 2}), &out));
  EXPECT_EQ(out.raw_data(), a_data);
  EXPECT_EQ(out.shape(), Shape({3, 2}));
  EXPECT_FALSE(pool.Take(DType::kFloat32, Shape({3, 2}), &out));  // taken once
  EXPECT_EQ(alias.data<float>()[5], 6.0f);
}

// Buffers the buffer cache keeps (kMinCachedBytes and up) go back to it, where smaller
// sizes can reuse them; smaller ones, and all of them with the cache off (as under the
// sanitizers), stay in the pool.
TEST(TensorPoolTest, LargeBuffersGoBackToTheBufferCache) {
  TensorPool pool;
  Tensor out;
  const int64_t large = static_cast<int64_t>(kMinCachedBytes / sizeof(float));
  pool.Give(Tensor::Allocate(DType::kFloat32, Shape({large})).value());
  pool.Give(Tensor::Allocate(DType::kFloat32, Shape({16})).value());
  EXPECT_EQ(pool.Take(DType::kFloat32, Shape({large}), &out), BufferCacheCapacity() == 0);
  EXPECT_TRUE(pool.Take(DType::kFloat32, Shape({16}), &out));
  const int64_t capacity = BufferCacheCapacity();
  SetBufferCacheCapacity(0);
  pool.Give(Tensor::Allocate(DType::kFloat32, Shape({large})).value());
  EXPECT_TRUE(pool.Take(DType::kFloat32, Shape({large}), &out));
  SetBufferCacheCapacity(capacity);
}

// Plan::Step::forwardable: an input may be forwarded where the step reads it for the
// last time, and once; never a feed or a fetch (kept), nor a value read twice by the
// step or read again later.
TEST(PlanTest, ForwardableInputsAreReadLastAndOnce) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, P({3}));
  const Node* a = g.AddNode({.name = "a", .op = "Relu", .inputs = {{x, 0}}}).value();
  const Node* b = g.AddNode({.name = "b", .op = "Relu", .inputs = {{a, 0}}}).value();
  const Node* s = g.AddNode({.name = "s", .op = "Add", .inputs = {{b, 0}, {a, 0}}}).value();
  const Node* sq = g.AddNode({.name = "sq", .op = "Mul", .inputs = {{s, 0}, {s, 0}}}).value();
  ASSERT_TRUE(g.AddNode({.name = "out", .op = "Add", .inputs = {{sq, 0}, {b, 0}}}).ok());
  const std::vector<std::string> feeds = {"x"}, fetches = {"out"}, targets;
  auto spec = compiler::Prune(g, feeds, fetches, targets);
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto plan = Plan::Build(*spec, Device());
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::map<std::string, std::vector<bool>> flags;
  for (const Plan::Step& step : (*plan)->steps()) flags[step.node->name()] = step.forwardable;
  EXPECT_EQ(flags["a"], std::vector<bool>{false});              // x: a feed
  EXPECT_EQ(flags["b"], std::vector<bool>{false});              // a: read again by s
  EXPECT_EQ(flags["s"], (std::vector<bool>{false, true}));      // b: read again by out; a: last
  EXPECT_EQ(flags["sq"], (std::vector<bool>{false, false}));    // s twice
  EXPECT_EQ(flags["out"], (std::vector<bool>{true, true}));
  auto r = RunGraph(g, {{"x", Make<float>(Shape({3}), {-1, 2, 3})}}, {"out"});
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectClose((*r)[0], {0, 18, 39});  // (2a)^2 + a with a = relu(x)
}

// KernelContext::ForwardInput hands over an input's buffer only when the step may
// forward it, nothing else references the buffer and its dtype is the output's.
TEST(KernelContextTest, ForwardInputTakesOnlyUnsharedBuffersOfTheOutputsDType) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, P({2}));
  const Node* y = AddPlaceholder(g, "y", DType::kInt32, P({2}));
  const Node* add = g.AddNode({.name = "add", .op = "Add", .inputs = {{x, 0}, {x, 0}}}).value();
  Tensor a = Make<float>(Shape({2}), {1, 2}), b = Make<float>(Shape({2}), {3, 4}), c = Make<int32_t>(Shape({2}), {5, 6});
  const void* a_data = a.raw_data();
  std::vector<const Tensor*> inputs = {&a, &b, &c};
  std::vector<Tensor> outputs(1);
  CancellationToken token;
  KernelContext ctx(*add, inputs, outputs, nullptr, &token);
  EXPECT_EQ(ctx.ForwardInput(0, 0), nullptr);  // no forwardable slots given
  Tensor held = b;                             // b's buffer shared
  std::vector<Tensor*> slots = {&a, &b, &c};
  ctx.set_forwardable(slots);
  EXPECT_EQ(ctx.ForwardInput(1, 0), nullptr);
  EXPECT_TRUE(b.valid());
  EXPECT_EQ(ctx.ForwardInput(2, 0), nullptr);  // int32 into a float32 output
  EXPECT_TRUE(c.valid());
  Tensor* out = ctx.ForwardInput(0, 0);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out, &outputs[0]);
  EXPECT_EQ(out->raw_data(), a_data);
  ExpectClose(*out, {1, 2});
  EXPECT_FALSE(a.valid());                     // moved out of its slot
  EXPECT_EQ(ctx.ForwardInput(0, 0), nullptr);  // nothing left to take
  (void)y;
}

// ConvND with a residual writes over the residual's buffer when the run is done with
// it (forwarded), and copies it otherwise: a residual read again after the convolution
// (here by `after`) keeps its values, and both give conv + residual, on oneDNN's path
// (float32) and the loops' (float64, where a forwarded residual is set aside first).
TEST(KernelContextTest, ConvolutionResidualsAreForwardedOnlyWhenDone) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (bool read_after : {false, true}) {
      SCOPED_TRACE(absl::StrCat(DTypeName(dtype), read_after ? " residual read after" : " residual forwarded"));
      std::mt19937 rng(8);
      Graph g;
      const Node* x = AddPlaceholder(g, "x", dtype, P({1, 5, 6, 16}));
      const Node* rin = AddPlaceholder(g, "rin", dtype, P({1, 5, 6, 32}));
      Tensor fv = dtype == DType::kFloat32 ? Random<float>(Shape({32, 16, 1, 1}), rng, -1, 1)
                                           : Random<double>(Shape({32, 16, 1, 1}), rng, -1, 1);
      const Node* f = g.AddNode({.name = "f", .op = "Const", .attrs = {{"value", fv}}}).value();
      // The residual an intermediate value (a feed is never forwarded).
      const Node* r = g.AddNode({.name = "r", .op = "Relu", .inputs = {{rin, 0}}}).value();
      const Node* conv = g.AddNode({.name = "conv", .op = "ConvND", .inputs = {{x, 0}, {f, 0}, {r, 0}},
                                    .attrs = {{"strides", IntList{1, 1}}, {"pads", IntList{0, 0, 0, 0}},
                                              {"channels_last", true}, {"constant_filter", true},
                                              {"residual", true}}})
                             .value();
      const Node* plain = g.AddNode({.name = "plain", .op = "ConvND", .inputs = {{x, 0}, {f, 0}},
                                     .attrs = {{"strides", IntList{1, 1}}, {"pads", IntList{0, 0, 0, 0}},
                                               {"channels_last", true}}})
                              .value();
      ASSERT_TRUE(g.AddNode({.name = "after", .op = "Sub", .inputs = {{conv, 0}, {r, 0}}}).ok());
      (void)plain;
      Tensor xv = dtype == DType::kFloat32 ? Random<float>(Shape({1, 5, 6, 16}), rng, -1, 1)
                                           : Random<double>(Shape({1, 5, 6, 16}), rng, -1, 1);
      Tensor rv = dtype == DType::kFloat32 ? Random<float>(Shape({1, 5, 6, 32}), rng, -1, 1)
                                           : Random<double>(Shape({1, 5, 6, 32}), rng, -1, 1);
      const std::vector<std::string> fetches =
          read_after ? std::vector<std::string>{"after", "plain"} : std::vector<std::string>{"conv", "plain"};
      auto out = RunGraph(g, {{"x", xv}, {"rin", rv}}, fetches);
      ASSERT_TRUE(out.ok()) << out.status();
      const std::vector<double> rvals = ToDouble(rv), plain_vals = ToDouble((*out)[1]);
      std::vector<double> want(plain_vals.size());
      for (size_t i = 0; i < want.size(); ++i) {
        // conv + relu(r), or after: (conv + relu(r)) - relu(r) = conv
        want[i] = read_after ? plain_vals[i] : plain_vals[i] + std::max(rvals[i], 0.0);
      }
      ExpectClose((*out)[0], want, 1e-5, 1e-5);
    }
  }
}

// On oneDNN's path (a 3x3 convolution), ConvND computes over a forwardable residual's
// buffer: the output is that buffer, holding conv + residual. A residual whose buffer
// is shared stays as it was, and the output gets a buffer of its own.
TEST(KernelContextTest, ConvolutionComputesOverAForwardedResidual) {
  std::mt19937 rng(12);
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, P({1, 9, 9, 16}));
  const Node* r = AddPlaceholder(g, "r", DType::kFloat32, P({1, 9, 9, 32}));
  const Tensor ft = Random<float>(Shape({32, 16, 3, 3}), rng);  // shares its buffer with the Const's value
  const Node* f = g.AddNode({.name = "f", .op = "Const", .attrs = {{"value", ft}}}).value();
  const AttrMap window{{"strides", IntList{1, 1}}, {"pads", IntList{1, 1, 1, 1}}, {"channels_last", true},
                       {"constant_filter", true}};
  AttrMap with_residual = window;
  with_residual["residual"] = true;
  const Node* conv =
      g.AddNode({.name = "conv", .op = "ConvND", .inputs = {{x, 0}, {f, 0}, {r, 0}}, .attrs = with_residual}).value();
  ASSERT_TRUE(g.AddNode({.name = "plain", .op = "ConvND", .inputs = {{x, 0}, {f, 0}}, .attrs = window}).ok());
  Tensor xt = Random<float>(Shape({1, 9, 9, 16}), rng);
  auto plain = RunGraph(g, {{"x", xt}}, {"plain"});
  ASSERT_TRUE(plain.ok()) << plain.status();
  auto kernel = Device().CreateKernel(*conv);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  for (bool shared : {false, true}) {
    SCOPED_TRACE(shared ? "shared residual" : "forwardable residual");
    Tensor rt = Random<float>(Shape({1, 9, 9, 32}), rng);
    const std::vector<double> rv = ToDouble(rt), pv = ToDouble((*plain)[0]);
    Tensor held;
    if (shared) held = rt;
    const void* r_data = rt.raw_data();
    std::vector<const Tensor*> inputs = {&xt, &ft, &rt};
    std::vector<Tensor> outputs(1);
    CancellationToken token;
    KernelContext ctx(*conv, inputs, outputs, nullptr, &token);
    std::vector<Tensor*> slots = {nullptr, nullptr, &rt};
    ctx.set_forwardable(slots);
    ASSERT_TRUE((*kernel)->Compute(ctx).ok());
    EXPECT_EQ(outputs[0].raw_data() == r_data, !shared);
    std::vector<double> want(pv.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = pv[i] + rv[i];
    ExpectClose(outputs[0], want, 1e-5, 1e-5);
    if (shared) ExpectClose(held, rv);  // untouched
  }
}

TEST(PlanRunnerTest, RerunsInPlaceWithTheSameResults) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kInt32, P({3}));
  ASSERT_TRUE(g.AddNode({.name = "sq", .op = "Mul", .inputs = {{x, 0}, {x, 0}}}).ok());
  ASSERT_TRUE(g.AddNode({.name = "s", .op = "Add", .inputs = {{g.FindNode("sq"), 0}, {x, 0}}}).ok());
  const std::vector<std::string> feeds = {"x"}, fetches = {"s", "x", "s"}, targets;
  auto spec = compiler::Prune(g, feeds, fetches, targets);
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto plan = Plan::Build(*spec, Device());
  ASSERT_TRUE(plan.ok()) << plan.status();
  PlanRunner runner(**plan);
  std::vector<Tensor> values = {Make<int32_t>(Shape({3}), {1, 2, 3})};
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(runner.Run(values, RunContext{}).ok());
    ASSERT_EQ(values.size(), 3u);
    EXPECT_EQ(values[0].raw_data(), values[2].raw_data());  // one slot fetched twice
    Tensor s = values[0];
    values.assign({s});
  }
  // x -> x*x + x three times.
  ExpectClose(values[0], {42, 1806, 24492});
}

TEST(ConstStepTest, ConstsAreBoundWithoutAKernelCallAndShareTheirValue) {
  Graph g;
  Tensor value = Make<float>(Shape({2}), {1.5f, -2.f});
  const Node* c = *g.AddNode({.name = "c", .op = "Const", .attrs = {{"value", value}}});
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{2}));
  ASSERT_TRUE(g.AddNode({.name = "sum", .op = "Add", .inputs = {{x, 0}, {c, 0}}}).ok());
  const std::vector<std::string> feeds{"x"}, fetches{"sum", "c"}, targets;
  auto spec = compiler::Prune(g, feeds, fetches, targets);
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto plan = Plan::Build(*spec, Device());
  ASSERT_TRUE(plan.ok()) << plan.status();
  int constants = 0;
  for (const Plan::Step& step : (*plan)->steps()) {
    EXPECT_EQ(step.constant != nullptr, step.node == c) << step.node->name();
    constants += step.constant != nullptr;
  }
  EXPECT_EQ(constants, 1);
  CancellationToken token;
  for (int run = 0; run < 2; ++run) {
    auto out = Execute(**plan, {Make<float>(Shape({2}), {1.f, 2.f})}, {.cancellation = &token});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectClose((*out)[0], {2.5, 0.0});
    EXPECT_EQ((*out)[1].buffer(), value.buffer());  // the Const's own buffer, not a copy
  }
}

}  // namespace
}  // namespace graphd::executor::test
