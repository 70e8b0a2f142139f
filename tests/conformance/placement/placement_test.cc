// Placement and copy steps (Plan::Build with a device that has a fallback), on a fake
// accelerator whose memory is checked at every kernel boundary: mixed graphs give the
// CPU's results, each value crosses between memory spaces once, fetches come back in
// host memory, host-memory inputs stay on the host, control flow runs on the host with
// its bodies placed again, and a failing copy names the node.
#include <string>
#include <thread>

#include "compiler/passes/prune.h"
#include "core/graph/function.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/test_util.h"
#include "executor/memory_owner.h"
#include "executor/testing/fake_accelerator.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;
using testing::CheckedHost;
using testing::FakeAccelerator;
using testing::kFakeSpace;

const Node* Add(Graph& g, NodeSpec spec) {
  auto n = g.AddNode(std::move(spec));
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : nullptr;
}

const Node* ConstF(Graph& g, const std::string& name, const Shape& shape, std::vector<float> v) {
  return Add(g, {.name = name, .op = "Const",
                 .attrs = {{"value", Tensor::FromVector<float>(shape, v).value()}}});
}

StatusOr<std::unique_ptr<const Plan>> Build(const executor::Device& device, const Graph& g,
                                            const std::vector<std::string>& feeds,
                                            const std::vector<std::string>& fetches) {
  ASSIGN_OR_RETURN(ExecutionSpec spec, compiler::Prune(g, feeds, fetches, {}));
  // The plan keeps pointers into the spec's graph only, which `g` owns.
  return Plan::Build(spec, device);
}

int CountOn(const Plan& plan, const std::string& device_type, bool copies) {
  int n = 0;
  for (const Plan::Step& s : plan.steps()) {
    if ((s.copy != Plan::Step::Copy::kNone) == copies && s.device->info().device_type == device_type) ++n;
  }
  return n;
}

class PlacementTest : public ::testing::Test {
 protected:
  CheckedHost host_;
  FakeAccelerator fake_{host_, {"Const", "MatMul", "Relu", "Add", "Mul", "Reshape", "Identity"}};
};

// x -> MatMul(w) -> Relu -> Softmax (host only) -> Add(b) -> Mul(Relu) : fetch both ends.
TEST_F(PlacementTest, MixedGraphMatchesCpuWithOneCopyPerCrossing) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{2, 3}));
  const Node* w = ConstF(g, "w", Shape({3, 2}), {1, -2, 0.5, 1, -1, 2});
  const Node* mm = Add(g, {.name = "mm", .op = "MatMul", .inputs = {{x, 0}, {w, 0}}});
  const Node* relu = Add(g, {.name = "relu", .op = "Relu", .inputs = {{mm, 0}}});
  const Node* sm = Add(g, {.name = "sm", .op = "Softmax", .inputs = {{relu, 0}}});
  const Node* b = ConstF(g, "b", Shape({2}), {0.25, -0.25});
  const Node* add = Add(g, {.name = "add", .op = "Add", .inputs = {{sm, 0}, {b, 0}}});
  Add(g, {.name = "mul", .op = "Mul", .inputs = {{add, 0}, {relu, 0}}});
  Tensor xv = Tensor::FromVector<float>(Shape({2, 3}), std::vector<float>{1, 2, 3, -4, 5, 0.5}).value();

  auto want = RunGraph(g, {{"x", xv}}, {"relu", "mul"});
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = RunGraphOn(fake_, g, {{"x", xv}}, {"relu", "mul"});
  ASSERT_TRUE(got.ok()) << got.status();
  for (int i = 0; i < 2; ++i) {
    const Tensor& t = (*got)[i];
    EXPECT_TRUE(t.on_host()) << i;
    ASSERT_EQ(t.shape(), (*want)[i].shape());
    for (int64_t k = 0; k < t.num_elements(); ++k) EXPECT_FLOAT_EQ(t.data<float>()[k], (*want)[i].data<float>()[k]);
  }

  auto plan = Build(fake_, g, {"x"}, {"relu", "mul"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(CountOn(**plan, "CPU", false), 1);  // Softmax
  // Uploads: x, softmax's result; downloads: relu (for Softmax, reused by the fetch), mul.
  EXPECT_EQ((*plan)->num_copies(), 4);
  for (const Plan::Step& s : (*plan)->steps()) {
    if (s.copy == Plan::Step::Copy::kNone) {
      EXPECT_EQ(s.device->info().device_type, s.node->op_name() == "Softmax" ? "CPU" : "FAKE") << s.node->name();
    }
  }
  // Runs again: every intermediate FAKE buffer is released after the run.
  fake_.uploads = 0;
  auto again = RunGraphOn(fake_, g, {{"x", xv}}, {"relu", "mul"});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(fake_.uploads.load(), 2);
  EXPECT_EQ(fake_.live_buffers.load(), 0);
}

TEST_F(PlacementTest, CpuOnlyPlanHasNoCopies) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{2}));
  Add(g, {.name = "r", .op = "Relu", .inputs = {{x, 0}}});
  auto plan = Build(Device(), g, {"x"}, {"r"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ((*plan)->num_copies(), 0);
  for (const Plan::Step& s : (*plan)->steps()) EXPECT_EQ(s.device, &Device());
}

TEST_F(PlacementTest, FeedFetchedDirectlyAndFetchedTwiceStayOnHost) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{3}));
  Add(g, {.name = "r", .op = "Relu", .inputs = {{x, 0}}});
  Tensor xv = Tensor::FromVector<float>(Shape({3}), std::vector<float>{-1, 0, 2}).value();
  auto got = RunGraphOn(fake_, g, {{"x", xv}}, {"x", "r", "r"});
  ASSERT_TRUE(got.ok()) << got.status();
  for (const Tensor& t : *got) EXPECT_TRUE(t.on_host());
  EXPECT_FLOAT_EQ((*got)[0].data<float>()[0], -1);
  EXPECT_FLOAT_EQ((*got)[1].data<float>()[2], 2);
  EXPECT_FLOAT_EQ((*got)[2].data<float>()[0], 0);
  auto plan = Build(fake_, g, {"x"}, {"x", "r", "r"});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ((*plan)->num_copies(), 2);  // x up, r down once
}

TEST_F(PlacementTest, HostMemoryInputsStayOnHost) {
  // The fake's Sub reads operand 1 on the host: Mul's result (on the fake) comes down
  // for it, while operand 0 goes up; the fetch comes down.
  FakeAccelerator fake{host_, {"Const", "Mul", "Sub"}};
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{3}));
  const Node* c = ConstF(g, "c", Shape({3}), {1, 2, 3});
  const Node* m = Add(g, {.name = "m", .op = "Mul", .inputs = {{c, 0}, {c, 0}}});
  Add(g, {.name = "out", .op = "Sub", .inputs = {{x, 0}, {m, 0}}});
  Tensor xv = Tensor::FromVector<float>(Shape({3}), std::vector<float>{10, 20, 30}).value();
  auto got = RunGraphOn(fake, g, {{"x", xv}}, {"out"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_FLOAT_EQ((*got)[0].data<float>()[0], 9);
  EXPECT_FLOAT_EQ((*got)[0].data<float>()[2], 21);
  auto plan = Build(fake, g, {"x"}, {"out"});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ((*plan)->num_copies(), 3);
}

// A constant only host nodes (or fetches) read stays on the host instead of being made
// on the device and copied back every run.
TEST_F(PlacementTest, ConstantsReadOnlyOnTheHostStayThere) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{2}));
  const Node* relu = Add(g, {.name = "relu", .op = "Relu", .inputs = {{x, 0}}});
  const Node* c = ConstF(g, "c", Shape({2}), {1, 3});
  const Node* sm = Add(g, {.name = "sm", .op = "Softmax", .inputs = {{c, 0}}});
  Add(g, {.name = "add", .op = "Add", .inputs = {{relu, 0}, {sm, 0}}});
  ConstF(g, "k", Shape({1}), {7});
  auto plan = Build(fake_, g, {"x"}, {"add", "k"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const Plan::Step& s : (*plan)->steps()) {
    if (s.copy == Plan::Step::Copy::kNone && (s.node->name() == "c" || s.node->name() == "k")) {
      EXPECT_EQ(s.device->info().device_type, "CPU") << s.node->name();
    }
  }
  EXPECT_EQ((*plan)->num_copies(), 3);  // x and Softmax's result up, add down
  Tensor xv = Tensor::FromVector<float>(Shape({2}), std::vector<float>{-1, 2}).value();
  auto got = RunGraphOn(fake_, g, {{"x", xv}}, {"add", "k"});
  ASSERT_TRUE(got.ok()) << got.status();
  const float e = 1.0f / (1.0f + std::exp(2.0f));  // softmax([1, 3])[0]
  EXPECT_NEAR((*got)[0].data<float>()[0], e, 1e-6);
  EXPECT_NEAR((*got)[0].data<float>()[1], 2 + (1 - e), 1e-6);
  EXPECT_FLOAT_EQ((*got)[1].data<float>()[0], 7);
}

TEST_F(PlacementTest, FailedCopyNamesTheNodeAndTheDevice) {
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{2}));
  Add(g, {.name = "r", .op = "Relu", .inputs = {{x, 0}}});
  fake_.fail_uploads = true;
  auto got = RunGraphOn(fake_, g, {{"x", Tensor::FromVector<float>(Shape({2}), std::vector<float>{1, 2}).value()}},
                        {"r"});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(got.status().message(), HasSubstr("copying float32[2] to /device:FAKE:0"));
  EXPECT_EQ(errors::NodeOf(got.status()), "x");
}

TEST_F(PlacementTest, MissingKernelOnBothDevicesIsUnimplemented) {
  // The accelerator runs nothing and its fallback (another fake) nothing either.
  FakeAccelerator nothing{host_, {}};
  FakeAccelerator narrow{nothing, {}};
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{1}));
  Add(g, {.name = "r", .op = "Relu", .inputs = {{x, 0}}});
  auto plan = Build(narrow, g, {"x"}, {"r"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(plan.status().message(), HasSubstr("no kernel for Relu"));
}

// Control flow runs on the host; its bodies are planned again on the accelerator, so
// a While whose body uses FAKE ops uploads and downloads per iteration and still counts right.
TEST_F(PlacementTest, WhileBodyPlacedOnTheAccelerator) {
  auto arg = [](Graph& g, int i) {
    return Add(g, {.name = "arg" + std::to_string(i), .op = "Arg",
                   .attrs = {{"index", int64_t{i}}, {"dtype", DType::kFloat32},
                             {"shape", PartialShape(std::vector<int64_t>{})}}});
  };
  auto cond = std::make_unique<Graph>();
  const Node* ci = arg(*cond, 0);
  const Node* climit = ConstF(*cond, "limit", Shape(), {100});
  const Node* less = Add(*cond, {.name = "less", .op = "Less", .inputs = {{ci, 0}, {climit, 0}}});
  auto body = std::make_unique<Graph>();
  const Node* bi = arg(*body, 0);
  const Node* two = ConstF(*body, "two", Shape(), {2});
  const Node* twice = Add(*body, {.name = "twice", .op = "Mul", .inputs = {{bi, 0}, {two, 0}}});
  auto cond_fn = MakeFunction("cond", std::move(cond), {{less, 0}});
  auto body_fn = MakeFunction("body", std::move(body), {{twice, 0}});
  ASSERT_TRUE(cond_fn.ok() && body_fn.ok());
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{}));
  Add(g, {.name = "loop", .op = "While", .inputs = {{x, 0}},
          .attrs = {{"cond", *cond_fn}, {"body", *body_fn}}});
  auto got = RunGraphOn(fake_, g, {{"x", Tensor::Scalar<float>(3)}}, {"loop"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_FLOAT_EQ((*got)[0].data<float>()[0], 192);  // 3 * 2^6
  EXPECT_GT(fake_.uploads.load(), 5);
  EXPECT_EQ(fake_.live_buffers.load(), 0);
}

// The owner device memory is charged to: set per thread by a scope, nested scopes
// restore the outer owner, other threads are unaffected.
TEST(MemoryOwnerTest, ScopesAreThreadLocalAndNest) {
  EXPECT_EQ(CurrentMemoryOwner(), "");
  {
    ScopedMemoryOwner a("session-a");
    EXPECT_EQ(CurrentMemoryOwner(), "session-a");
    {
      ScopedMemoryOwner b("session-b");
      EXPECT_EQ(CurrentMemoryOwner(), "session-b");
      std::string seen = "unset";
      std::thread([&] { seen = std::string(CurrentMemoryOwner()); }).join();
      EXPECT_EQ(seen, "");
    }
    EXPECT_EQ(CurrentMemoryOwner(), "session-a");
  }
  EXPECT_EQ(CurrentMemoryOwner(), "");
}

}  // namespace
}  // namespace graphd::executor::test
