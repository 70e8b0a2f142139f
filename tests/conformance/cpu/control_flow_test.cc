// If and While through the planner and executor: branch selection, loop-carried
// values, nested control flow, side effects in bodies, cancellation, and the type
// rules their inference enforces.
#include "core/graph/function.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

const Node* Add(Graph& g, NodeSpec spec) {
  auto n = g.AddNode(std::move(spec));
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : nullptr;
}

const Node* Arg(Graph& g, int index, DType dtype, PartialShape shape = PartialShape(std::vector<int64_t>{})) {
  return Add(g, {.name = "arg" + std::to_string(index), .op = "Arg",
                 .attrs = {{"index", int64_t{index}}, {"dtype", dtype}, {"shape", std::move(shape)}}});
}

const Node* Const32(Graph& g, const std::string& name, int32_t v) {
  return Add(g, {.name = name, .op = "Const", .attrs = {{"value", Tensor::Scalar<int32_t>(v)}}});
}

const Node* Binary(Graph& g, const std::string& name, const std::string& op, const Node* a, const Node* b) {
  return Add(g, {.name = name, .op = op, .inputs = {{a, 0}, {b, 0}}});
}

FunctionRef Fn(const std::string& name, std::unique_ptr<Graph> g, std::vector<OutputRef> results) {
  auto fn = MakeFunction(name, std::move(g), std::move(results));
  EXPECT_TRUE(fn.ok()) << fn.status();
  return fn.ok() ? *fn : nullptr;
}

// collatz(a): counter = 0; while a != 1: a = a // 2 if a % 2 == 0 else 3 * a + 1; counter += 1
FunctionRef CollatzCond() {
  auto g = std::make_unique<Graph>();
  const Node* a = Arg(*g, 0, DType::kInt32);
  Arg(*g, 1, DType::kInt32);
  const Node* ne = Binary(*g, "ne", "NotEqual", a, Const32(*g, "one", 1));
  return Fn("cond", std::move(g), {{ne, 0}});
}

FunctionRef CollatzBody() {
  // The if: (a) -> new a, as two branch functions.
  auto even = std::make_unique<Graph>();
  const Node* ea = Arg(*even, 0, DType::kInt32);
  const Node* half = Binary(*even, "half", "FloorDiv", ea, Const32(*even, "two", 2));
  FunctionRef even_fn = Fn("if_true", std::move(even), {{half, 0}});
  auto odd = std::make_unique<Graph>();
  const Node* oa = Arg(*odd, 0, DType::kInt32);
  const Node* times3 = Binary(*odd, "times3", "Mul", Const32(*odd, "three", 3), oa);
  const Node* plus1 = Binary(*odd, "plus1", "Add", times3, Const32(*odd, "one", 1));
  FunctionRef odd_fn = Fn("if_false", std::move(odd), {{plus1, 0}});

  auto g = std::make_unique<Graph>();
  const Node* a = Arg(*g, 0, DType::kInt32);
  const Node* counter = Arg(*g, 1, DType::kInt32);
  const Node* mod = Binary(*g, "mod", "FloorMod", a, Const32(*g, "two", 2));
  const Node* is_even = Binary(*g, "is_even", "Equal", mod, Const32(*g, "zero", 0));
  const Node* next = Add(*g, {.name = "if", .op = "If", .inputs = {{is_even, 0}, {a, 0}},
                              .attrs = {{"then_branch", even_fn}, {"else_branch", odd_fn}}});
  const Node* count = Binary(*g, "count", "Add", counter, Const32(*g, "one", 1));
  return Fn("body", std::move(g), {{next, 0}, {count, 0}});
}

int Collatz(int a) {
  int n = 0;
  for (; a != 1; ++n) a = a % 2 == 0 ? a / 2 : 3 * a + 1;
  return n;
}

TEST(ControlFlowTest, CollatzWhileWithNestedIf) {
  Graph g;
  const Node* a = AddPlaceholder(g, "a", DType::kInt32, PartialShape(std::vector<int64_t>{}));
  const Node* zero = Const32(g, "zero", 0);
  ASSERT_NE(Add(g, {.name = "loop", .op = "While", .inputs = {{a, 0}, {zero, 0}},
                    .attrs = {{"cond", CollatzCond()}, {"body", CollatzBody()}}}),
            nullptr);
  for (int n : {1, 2, 6, 27, 97}) {
    auto out = RunGraph(g, {{"a", Tensor::Scalar<int32_t>(n)}}, {"loop:0", "loop:1"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int32_t>()[0], 1) << n;
    EXPECT_EQ((*out)[1].data<int32_t>()[0], Collatz(n)) << n;
  }
}

TEST(ControlFlowTest, IfRunsOnlyTheChosenBranchAndItsSideEffects) {
  // then: v += 10, returns x * 2 ; else: v -= 1, returns x - 1.
  auto make_branch = [](const std::string& name, const std::string& update, int32_t delta,
                        const std::string& op, int32_t k) {
    auto g = std::make_unique<Graph>();
    const Node* x = Arg(*g, 0, DType::kInt32);
    const Node* var = Add(*g, {.name = "v", .op = "VariableV2",
                               .attrs = {{"dtype", DType::kInt32}, {"shape", PartialShape(std::vector<int64_t>{})}}});
    Add(*g, {.name = "update", .op = update, .inputs = {{var, 0}, {Const32(*g, "delta", delta), 0}}});
    const Node* r = Binary(*g, "r", op, x, Const32(*g, "k", k));
    return Fn(name, std::move(g), {{r, 0}});
  };
  Graph g;
  const Node* pred = AddPlaceholder(g, "pred", DType::kBool, PartialShape(std::vector<int64_t>{}));
  const Node* x = AddPlaceholder(g, "x", DType::kInt32, PartialShape(std::vector<int64_t>{}));
  Add(g, {.name = "if", .op = "If", .inputs = {{pred, 0}, {x, 0}},
          .attrs = {{"then_branch", make_branch("t", "AssignAdd", 10, "Mul", 2)},
                    {"else_branch", make_branch("e", "AssignSub", 1, "Sub", 1)}}});
  VariableStore vars;
  vars.Assign("v", Tensor::Scalar<int32_t>(100));
  auto t = RunGraph(g, {{"pred", Tensor::Scalar<bool>(true)}, {"x", Tensor::Scalar<int32_t>(7)}},
                    {"if:0"}, {}, &vars);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)[0].data<int32_t>()[0], 14);
  EXPECT_EQ(vars.Read("v")->data<int32_t>()[0], 110);
  auto e = RunGraph(g, {{"pred", Tensor::Scalar<bool>(false)}, {"x", Tensor::Scalar<int32_t>(7)}},
                    {"if:0"}, {}, &vars);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)[0].data<int32_t>()[0], 6);
  EXPECT_EQ(vars.Read("v")->data<int32_t>()[0], 109);
}

// while i < n: i += 1 (n fed), so the loop runs as long as asked.
Graph& CountingLoop(Graph& g) {
  auto cond = std::make_unique<Graph>();
  const Node* ci = Arg(*cond, 0, DType::kInt32);
  const Node* cn = Arg(*cond, 1, DType::kInt32);
  const Node* less = Binary(*cond, "less", "Less", ci, cn);
  auto body = std::make_unique<Graph>();
  const Node* bi = Arg(*body, 0, DType::kInt32);
  const Node* bn = Arg(*body, 1, DType::kInt32);
  const Node* inc = Binary(*body, "inc", "Add", bi, Const32(*body, "one", 1));
  const Node* n = AddPlaceholder(g, "n", DType::kInt32, PartialShape(std::vector<int64_t>{}));
  Add(g, {.name = "loop", .op = "While", .inputs = {{Const32(g, "i0", 0), 0}, {n, 0}},
          .attrs = {{"cond", Fn("cond", std::move(cond), {{less, 0}})},
                    {"body", Fn("body", std::move(body), {{inc, 0}, {bn, 0}})}}});
  return g;
}

TEST(ControlFlowTest, WhileCountsAndStopsOnCancellation) {
  Graph g;
  CountingLoop(g);
  auto out = RunGraph(g, {{"n", Tensor::Scalar<int32_t>(1000)}}, {"loop:0"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 1000);
  // A loop that would run for ~2^31 iterations stops at the deadline.
  CancellationToken token(CancellationToken::Clock::now() + std::chrono::milliseconds(50));
  auto start = std::chrono::steady_clock::now();
  auto stopped = RunGraph(g, {{"n", Tensor::Scalar<int32_t>(INT32_MAX)}}, {"loop:0"}, {}, nullptr, &token);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(ControlFlowTest, InferenceRejectsMismatchedBranchesAndLoopTypes) {
  auto branch = [](DType result) {
    auto g = std::make_unique<Graph>();
    Arg(*g, 0, DType::kInt32);
    Tensor v = result == DType::kInt32 ? Tensor::Scalar<int32_t>(1) : Tensor::Scalar<float>(1);
    const Node* c = Add(*g, {.name = "c", .op = "Const", .attrs = {{"value", v}}});
    return Fn("b", std::move(g), {{c, 0}});
  };
  Graph g;
  const Node* pred = AddPlaceholder(g, "pred", DType::kBool, PartialShape(std::vector<int64_t>{}));
  const Node* x = Const32(g, "x", 1);
  auto mixed = g.AddNode({.name = "if", .op = "If", .inputs = {{pred, 0}, {x, 0}},
                          .attrs = {{"then_branch", branch(DType::kInt32)},
                                    {"else_branch", branch(DType::kFloat32)}}});
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.status().message(), HasSubstr("int32 in the true branch and float32"));
  auto not_bool = g.AddNode({.name = "if2", .op = "If", .inputs = {{x, 0}, {x, 0}},
                             .attrs = {{"then_branch", branch(DType::kInt32)},
                                       {"else_branch", branch(DType::kInt32)}}});
  ASSERT_FALSE(not_bool.ok());
  EXPECT_THAT(not_bool.status().message(), HasSubstr("condition must be bool"));

  // A loop body that turns an int32 variable into a float32 one.
  auto cond = std::make_unique<Graph>();
  Arg(*cond, 0, DType::kInt32);
  const Node* t = Add(*cond, {.name = "t", .op = "Const", .attrs = {{"value", Tensor::Scalar<bool>(false)}}});
  auto body = std::make_unique<Graph>();
  Arg(*body, 0, DType::kInt32);
  const Node* f = Add(*body, {.name = "f", .op = "Const", .attrs = {{"value", Tensor::Scalar<float>(1)}}});
  auto bad_loop = g.AddNode({.name = "loop", .op = "While", .inputs = {{x, 0}},
                             .attrs = {{"cond", Fn("c", std::move(cond), {{t, 0}})},
                                       {"body", Fn("b", std::move(body), {{f, 0}})}}});
  ASSERT_FALSE(bad_loop.ok());
  EXPECT_THAT(bad_loop.status().message(), HasSubstr("int32 on entry but float32"));
}

}  // namespace
}  // namespace graphd::executor::test
