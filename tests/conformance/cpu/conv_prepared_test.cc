// ConvND's prepared oneDNN call (executor/cpu/dnnl_prepared.h): after a kernel's first
// call through oneDNN, later calls with the same shapes, team and filter rerun it with
// new data pointers. One plan run again and again must give, each time, what a fresh
// kernel gives for that call's inputs: new data, a new filter (fed, or a constant
// filter's new buffer), a changed batch and back, a changed team, a residual (fed, so
// copied into the output, or made in the plan and forwarded as the output), and several
// threads running the plan at once (one holds the prepared call, the others go the slow
// way); and it must take the prepared call exactly when those repeat
// (PreparedCallRuns).
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/cpu/dnnl_prepared.h"
#include "executor/cpu/team.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/test_util.h"

namespace graphd::executor::test {
namespace {

struct Conv {
  Shape f;                 // [O, C/group, kh, kw]
  int64_t group = 1;
  IntList strides{1, 1}, pads{0, 0, 0, 0};
  bool channels_last = false, constant_filter = false, bias = true, residual = false;
  std::string activation;         // "", "Relu", "Swish"
  bool residual_in_plan = false;  // r = Relu(fed) in the plan: its buffer is forwarded
};

AttrMap AttrsOf(const Conv& c) {
  AttrMap a{{"strides", c.strides}, {"pads", c.pads}, {"group", c.group}, {"channels_last", c.channels_last},
            {"constant_filter", c.constant_filter}, {"residual", c.residual}};
  if (!c.activation.empty()) a["activation"] = c.activation;
  return a;
}

// x's shape for batch n and spatial size h x w, in the conv's layout.
Shape XShape(const Conv& c, int64_t n, int64_t h, int64_t w) {
  const int64_t ch = c.f.dim(1) * c.group;
  return c.channels_last ? Shape({n, h, w, ch}) : Shape({n, ch, h, w});
}

// A plan of ConvND over placeholders x, f[, b][, r] (x and r with an unknown batch),
// built in `g`.
std::unique_ptr<const Plan> BuildPlan(Graph& g, const Conv& c, int64_t h, int64_t w) {
  std::vector<int64_t> xs = XShape(c, 1, h, w).dims();
  xs[0] = -1;
  std::vector<OutputRef> in{{AddPlaceholder(g, "x", DType::kFloat32, PartialShape(xs)), 0},
                            {AddPlaceholder(g, "f", DType::kFloat32, PartialShape(c.f.dims())), 0}};
  std::vector<std::string> feeds{"x", "f"};
  if (c.bias) {
    in.push_back({AddPlaceholder(g, "b", DType::kFloat32, PartialShape(std::vector<int64_t>{c.f.dim(0)})), 0});
    feeds.push_back("b");
  }
  if (c.residual) {
    const Node* r = AddPlaceholder(g, "r", DType::kFloat32, PartialShape::UnknownRank());
    if (c.residual_in_plan) r = g.AddNode({.name = "relu_r", .op = "Relu", .inputs = {{r, 0}}}).value();
    in.push_back({r, 0});
    feeds.push_back("r");
  }
  EXPECT_TRUE(g.AddNode({.name = "out", .op = "ConvND", .inputs = in, .attrs = AttrsOf(c)}).ok());
  auto spec = compiler::Prune(g, feeds, std::vector<std::string>{"out"}, {});
  EXPECT_TRUE(spec.ok()) << spec.status();
  auto plan = Plan::Build(*spec, Device());
  EXPECT_TRUE(plan.ok()) << plan.status();
  return std::move(plan).value();
}

// One call's inputs: x, f[, b][, r].
struct Inputs {
  std::vector<Tensor> values;
};

Inputs MakeInputs(const Conv& c, int64_t n, int64_t h, int64_t w, std::mt19937& rng, const Tensor* filter = nullptr) {
  Inputs in;
  in.values.push_back(Random<float>(XShape(c, n, h, w), rng, -2, 2));
  in.values.push_back(filter != nullptr ? *filter : Random<float>(c.f, rng));
  if (c.bias) in.values.push_back(Random<float>(Shape({c.f.dim(0)}), rng));
  if (c.residual) {  // the output's shape: run the plain conv once for it
    Conv plain = c;
    plain.residual = false;
    plain.activation.clear();
    auto out = RunOp("ConvND", {in.values[0], in.values[1]}, AttrsOf(plain));
    EXPECT_TRUE(out.ok()) << out.status();
    in.values.push_back(Random<float>(out->shape(), rng));
  }
  return in;
}

// What a fresh kernel gives for `in` (its first call: never a prepared one).
std::vector<double> Fresh(const Conv& c, const Inputs& in) {
  std::vector<Tensor> values = in.values;
  if (c.residual_in_plan) {  // the plan's Relu, on a copy
    Tensor r = Tensor::Allocate(DType::kFloat32, values.back().shape()).value();
    for (int64_t i = 0; i < r.num_elements(); ++i) r.data<float>()[i] = std::max(values.back().data<float>()[i], 0.f);
    values.back() = r;
  }
  auto out = RunOp("ConvND", values, AttrsOf(c));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? ToDouble(*out) : std::vector<double>{};
}

Tensor RunPlan(const Plan& plan, const Inputs& in) {
  VariableStore vars;
  CancellationToken token;
  auto out = Execute(plan, in.values, {.variables = &vars, .cancellation = &token});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

const std::vector<Conv>& Convs() {
  static const std::vector<Conv> convs = {
      {.f = Shape({8, 4, 3, 3}), .pads = {1, 1, 1, 1}},
      {.f = Shape({8, 4, 3, 3}), .pads = {1, 1, 1, 1}, .channels_last = true, .constant_filter = true},
      {.f = Shape({16, 1, 3, 3}), .group = 16, .strides = {2, 2}, .pads = {1, 1, 1, 1}, .channels_last = true,
       .constant_filter = true, .activation = "Swish"},  // depthwise
      {.f = Shape({64, 48, 1, 1}), .channels_last = true, .constant_filter = true, .bias = false,
       .residual = true, .activation = "Relu", .residual_in_plan = true},  // 1x1 past conv_pointwise.h's size
      {.f = Shape({12, 6, 3, 3}), .pads = {0, 1, 2, 1}, .residual = true},  // fed filter, residual
      // Fed filters of channels-last convolutions (conv_input_scale.h): reordered into
      // the primitive's layout on each call.
      {.f = Shape({64, 48, 1, 1}), .channels_last = true, .residual = true},
      {.f = Shape({8, 4, 3, 3}), .strides = {2, 2}, .channels_last = true, .activation = "Swish"},
      // A filter of kOneThreadElements values: reordered on the whole team.
      {.f = Shape({256, 256, 1, 1}), .channels_last = true, .bias = false},
  };
  return convs;
}

// The prepared calls one prepared convolution runs: its filter's reorder too when it
// is fed to a channels-last convolution (oneDNN's JIT convolutions read a blocked
// filter, never the plain one).
int64_t PreparedRunsPerCall(const Conv& c) { return c.channels_last && !c.constant_filter ? 2 : 1; }

TEST(ConvPreparedTest, EveryCallOfOnePlanMatchesAFreshKernel) {
  std::mt19937 rng(7);
  for (const Conv& c : Convs()) {
    SCOPED_TRACE(absl::StrCat(c.f.ToString(), " group ", c.group, " last ", c.channels_last, " constant ",
                              c.constant_filter, " residual ", c.residual, " ", c.activation));
    Graph g;
    auto plan = BuildPlan(g, c, 13, 11);
    const Tensor filter = Random<float>(c.f, rng);
    // Same filter buffer (a constant's packing reused), new data; then a new filter;
    // then another batch and back.
    const std::vector<std::pair<int64_t, bool>> calls = {{1, false}, {1, false}, {1, false}, {1, true},
                                                         {1, false}, {3, false}, {1, false}, {1, true}};
    const void* last_filter = nullptr;
    for (size_t i = 0; i < calls.size(); ++i) {
      SCOPED_TRACE(absl::StrCat("call ", i, " batch ", calls[i].first));
      const Inputs in = MakeInputs(c, calls[i].first, 13, 11, rng, calls[i].second ? nullptr : &filter);
      const std::vector<double> want = Fresh(c, in);
      // Prepared when the batch repeats and, for a constant filter, its buffer.
      const bool same_filter = !c.constant_filter || in.values[1].raw_data() == last_filter;
      const bool prepared = i > 0 && calls[i].first == calls[i - 1].first && same_filter;
      const int64_t runs = cpu::PreparedCallRuns();
      ExpectClose(RunPlan(*plan, in), want, 1e-6, 1e-6);
      EXPECT_EQ(cpu::PreparedCallRuns() - runs, prepared ? PreparedRunsPerCall(c) : 0);
      last_filter = in.values[1].raw_data();
    }
  }
}

// The process's default team again when it goes (also after a failed ASSERT).
struct TeamReset {
  ~TeamReset() { cpu::SetIntraOpThreads(0); }
};

TEST(ConvPreparedTest, ATeamOfAnotherSizeGoesTheSlowWay) {
  const TeamReset reset;
  std::mt19937 rng(8);
  // A packed constant filter, and a fed one reordered on the team (the last of Convs()).
  for (const auto& [c, size] : {std::pair{Convs()[1], 30}, std::pair{Convs().back(), 6}}) {
    SCOPED_TRACE(c.f.ToString());
    Graph g;
    auto plan = BuildPlan(g, c, size, size);
    const Tensor filter = Random<float>(c.f, rng);
    int last_team = -1;
    for (int team : {0, 0, 3, 3, 1, 1, 3}) {
      cpu::SetIntraOpThreads(team);
      cpu::DecideTeam();
      const int threads = cpu::TeamThreads();  // the team the kernel will run with
      SCOPED_TRACE(absl::StrCat("team ", team, " (", threads, " threads)"));
      const Inputs in = MakeInputs(c, 2, size, size, rng, &filter);
      const std::vector<double> want = Fresh(c, in);
      const int64_t runs = cpu::PreparedCallRuns();
      ExpectClose(RunPlan(*plan, in), want, 1e-6, 1e-6);
      EXPECT_EQ(cpu::PreparedCallRuns() - runs, threads == last_team ? PreparedRunsPerCall(c) : 0);
      last_team = threads;
    }
  }
}

TEST(ConvPreparedTest, ThreadsRunningOnePlanAtOnceEachGetTheirOwnResult) {
  for (const Conv& c : Convs()) {
    Graph g;
    auto plan = BuildPlan(g, c, 9, 10);
    std::mt19937 rng(9);
    constexpr int kThreads = 4, kCalls = 25;
    std::vector<std::vector<Inputs>> inputs(kThreads);
    std::vector<std::vector<std::vector<double>>> want(kThreads);
    const Tensor filter = Random<float>(c.f, rng);
    for (int t = 0; t < kThreads; ++t) {
      for (int i = 0; i < kCalls; ++i) {
        inputs[t].push_back(MakeInputs(c, 1 + (t + i) % 2, 9, 10, rng, i % 5 == 4 ? nullptr : &filter));
        want[t].push_back(Fresh(c, inputs[t].back()));
      }
    }
    std::vector<std::vector<Tensor>> got(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kCalls; ++i) got[t].push_back(RunPlan(*plan, inputs[t][i]));
      });
    }
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < kThreads; ++t) {
      for (int i = 0; i < kCalls; ++i) {
        SCOPED_TRACE(absl::StrCat(c.f.ToString(), " thread ", t, " call ", i));
        ExpectClose(got[t][i], want[t][i], 1e-6, 1e-6);
      }
    }
  }
}

}  // namespace
}  // namespace graphd::executor::test
