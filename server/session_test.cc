#include "server/session.h"

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "executor/cpu/cpu_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/session_manager.h"
#include "executor/testing/fake_accelerator.h"

namespace graphd::server {
namespace {

using ::testing::HasSubstr;

// A compile context on the CPU without passes, over one cache for the test binary.
CompileContext Compile();

const executor::Device& Device() {
  static const executor::cpu::CpuDevice* device = new executor::cpu::CpuDevice();
  return *device;
}

CompileContext Compile() {
  static const compiler::CompileTarget* target = new compiler::CompileTarget(MakeCompileTarget("cpu", Device(), nullptr));
  static compiler::FunctionCache* cache = new compiler::FunctionCache();
  return CompileContext{.device = Device(), .target = *target, .cache = *cache};
}

NodeDef Placeholder(const std::string& name) {
  return {.name = name,
          .op = "Placeholder",
          .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(std::vector<int64_t>{-1})}}};
}
NodeDef Op(const std::string& name, const std::string& op, std::vector<std::string> inputs) {
  return {.name = name, .op = op, .inputs = std::move(inputs)};
}
NodeDef Const(const std::string& name, std::vector<float> values) {
  Tensor t =
      Tensor::FromVector<float>(Shape({static_cast<int64_t>(values.size())}), values).value();
  return {.name = name, .op = "Const", .attrs = {{"value", t}}};
}
Tensor Vec(std::vector<float> values) {
  return Tensor::FromVector<float>(Shape({static_cast<int64_t>(values.size())}), values).value();
}
std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

// x -> neg = x * -1, sq = x * x;  counter (variable) with init / inc.
GraphDef BaseGraph() {
  return {.nodes = {Placeholder("x"),
                    Const("minus_one", {-1}),
                    Op("neg", "Mul", {"x", "minus_one"}),
                    Op("sq", "Mul", {"x", "x"}),
                    {.name = "counter",
                     .op = "VariableV2",
                     .attrs = {{"dtype", DType::kFloat32},
                               {"shape", PartialShape(std::vector<int64_t>{1})}}},
                    Const("zero", {0}),
                    Const("one", {1}),
                    Op("init", "Assign", {"counter", "zero"}),
                    Op("inc", "AssignAdd", {"counter", "one"})}};
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(*session_.Extend(BaseGraph(), 0), 1); }
  StatusOr<RunResult> Run(const RunSignature& sig, std::vector<Tensor> feeds = {}) {
    return session_.Run(sig, std::move(feeds), token_);
  }
  Session session_{"s1", Compile()};
  CancellationToken token_;
};

TEST_F(SessionTest, ExtendChecksVersion) {
  EXPECT_EQ(session_.handle(), "s1");
  EXPECT_EQ(session_.graph_version(), 1);
  GraphDef more{.nodes = {Op("cube", "Mul", {"sq", "x"})}};
  auto stale = session_.Extend(more, 0);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(stale.status().message(), HasSubstr("version 1"));
  EXPECT_EQ(session_.graph_version(), 1);
  auto ok = session_.Extend(more, 1);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, 2);
  // An empty extension keeps the version but still checks it.
  EXPECT_EQ(*session_.Extend({}, 2), 2);
  EXPECT_EQ(session_.Extend({}, 1).status().code(), absl::StatusCode::kAborted);
  auto r = Run({.feeds = {"x"}, .fetches = {"cube"}}, {Vec({2, -3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(r->fetches[0]), (std::vector<float>{8, -27}));
}

TEST_F(SessionTest, FailedExtendLeavesGraphAndVersion) {
  // "good" would be fine, but "bad" fails type inference: neither is added.
  GraphDef def{.nodes = {Op("good", "Relu", {"x"}), Op("bad", "MatMul", {"good", "x"})}};
  auto r = session_.Extend(def, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(errors::NodeOf(r.status()), "bad");
  EXPECT_EQ(session_.graph_version(), 1);
  auto run = Run({.feeds = {"x"}, .fetches = {"good"}}, {Vec({1})});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("'good'"));
  // The same names can be added at the unchanged version.
  GraphDef fixed{.nodes = {Op("good", "Relu", {"x"})}};
  ASSERT_EQ(*session_.Extend(fixed, 1), 2);
  auto after = Run({.feeds = {"x"}, .fetches = {"good"}}, {Vec({-1, 5})});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(Values(after->fetches[0]), (std::vector<float>{0, 5}));
}

TEST_F(SessionTest, RunReturnsFetchesInOrderAndCachesPlans) {
  RunSignature sig{.feeds = {"x:0"}, .fetches = {"sq", "neg:0", "x"}};
  auto first = Run(sig, {Vec({1, 2, 3})});
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->fetches.size(), 3u);
  EXPECT_EQ(Values(first->fetches[0]), (std::vector<float>{1, 4, 9}));
  EXPECT_EQ(Values(first->fetches[1]), (std::vector<float>{-1, -2, -3}));
  EXPECT_EQ(Values(first->fetches[2]), (std::vector<float>{1, 2, 3}));
  EXPECT_GE(first->timings.compile_us, 0);
  auto second = Run(sig, {Vec({4})});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->timings.compile_us, 0);
  EXPECT_EQ(Values(second->fetches[0]), (std::vector<float>{16}));
  EXPECT_EQ(Values(second->fetches[1]), (std::vector<float>{-4}));
  // Another fetch order is another signature with its own (correct) order.
  auto swapped = Run({.feeds = {"x:0"}, .fetches = {"neg:0", "sq"}}, {Vec({3})});
  ASSERT_TRUE(swapped.ok());
  EXPECT_EQ(Values(swapped->fetches[0]), (std::vector<float>{-3}));
  EXPECT_EQ(Values(swapped->fetches[1]), (std::vector<float>{9}));
}

TEST_F(SessionTest, RunErrors) {
  auto count = Run({.feeds = {"x"}, .fetches = {"sq"}}, {});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
  auto unfed = Run({.fetches = {"sq"}});
  ASSERT_FALSE(unfed.ok());
  EXPECT_THAT(unfed.status().message(),
              HasSubstr("You must feed a value for placeholder tensor 'x'"));
  auto dtype = Run({.feeds = {"x"}, .fetches = {"sq"}}, {Tensor::Scalar<int32_t>(1)});
  ASSERT_FALSE(dtype.ok());
  EXPECT_EQ(dtype.status().code(), absl::StatusCode::kInvalidArgument);
  CancellationToken cancelled;
  cancelled.Cancel();
  auto c = session_.Run({.feeds = {"x"}, .fetches = {"sq"}}, {Vec({1})}, cancelled);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kCancelled);
}

TEST_F(SessionTest, Callables) {
  auto h = session_.MakeCallable({.feeds = {"x"}, .fetches = {"neg", "sq"}}, token_);
  ASSERT_TRUE(h.ok()) << h.status();
  auto h2 = session_.MakeCallable({.feeds = {"x"}, .fetches = {"sq"}}, token_);
  ASSERT_TRUE(h2.ok());
  EXPECT_NE(*h, *h2);
  for (float v : {2.0f, 5.0f}) {
    auto r = session_.RunCallable(*h, {Vec({v})}, token_);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->fetches.size(), 2u);
    EXPECT_EQ(Values(r->fetches[0]), (std::vector<float>{-v}));
    EXPECT_EQ(Values(r->fetches[1]), (std::vector<float>{v * v}));
  }
  auto bad_feeds = session_.RunCallable(*h, {}, token_);
  ASSERT_FALSE(bad_feeds.ok());
  EXPECT_EQ(bad_feeds.status().code(), absl::StatusCode::kInvalidArgument);

  ASSERT_TRUE(session_.ReleaseCallable(*h).ok());
  auto released = session_.RunCallable(*h, {Vec({1})}, token_);
  ASSERT_FALSE(released.ok());
  EXPECT_EQ(released.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(released.status().message(), HasSubstr("does not exist"));
  Status again = session_.ReleaseCallable(*h);
  EXPECT_EQ(again.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(session_.ReleaseCallable(12345).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(session_.RunCallable(-1, {}, token_).status().code(),
            absl::StatusCode::kInvalidArgument);
  // The other callable is unaffected.
  EXPECT_TRUE(session_.RunCallable(*h2, {Vec({3})}, token_).ok());
  auto unknown = session_.MakeCallable({.fetches = {"nope"}}, token_);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SessionTest, QuickRunsOnlyCachedPlansKnownToBeQuick) {
  constexpr int64_t kLongLimit = int64_t{1} << 40;
  RunSignature sig{.feeds = {"x:0"}, .fetches = {"sq"}};
  // Not cached: nothing is planned or run.
  {
    QuickScope quick(kLongLimit);
    auto miss = session_.Run(sig, {Vec({2})}, token_);
    EXPECT_TRUE(IsNotQuick(miss.status())) << miss.status();
  }
  auto planned = Run(sig, {Vec({2})});
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_GT(planned->timings.compile_us, 0);  // the quick attempt cached nothing
  {
    QuickScope quick(kLongLimit);
    auto hit = session_.Run(sig, {Vec({3})}, token_);
    ASSERT_TRUE(hit.ok()) << hit.status();
    EXPECT_EQ(Values(hit->fetches[0]), (std::vector<float>{9}));
  }
  EXPECT_TRUE(session_.Run(sig, {Vec({3})}, token_).ok());  // outside any scope: no limit

  // A callable planned but never run has no measured run yet.
  auto h = session_.MakeCallable({.feeds = {"x"}, .fetches = {"neg"}}, token_);
  ASSERT_TRUE(h.ok());
  {
    QuickScope quick(kLongLimit);
    EXPECT_TRUE(IsNotQuick(session_.RunCallable(*h, {Vec({1})}, token_).status()));
  }
  ASSERT_TRUE(session_.RunCallable(*h, {Vec({1})}, token_).ok());
  {
    QuickScope scope(kLongLimit);
    auto quick = session_.RunCallable(*h, {Vec({5})}, token_);
    ASSERT_TRUE(quick.ok()) << quick.status();
    EXPECT_EQ(Values(quick->fetches[0]), (std::vector<float>{-5}));
  }
  // Without a limit, errors are the usual ones.
  EXPECT_EQ(session_.RunCallable(*h, {}, token_).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(QuickRunTest, RunCostAndNotQuickMarker) {
  compiler::RunCost cost;
  EXPECT_FALSE(cost.Within(1000000));  // never ran
  cost.Record(500);
  EXPECT_TRUE(cost.Within(500));
  EXPECT_FALSE(cost.Within(499));
  cost.Record(20);
  EXPECT_TRUE(cost.Within(499));  // the latest run counts
  EXPECT_TRUE(IsNotQuick(NotQuick()));
  EXPECT_FALSE(IsNotQuick(absl::OkStatus()));
  EXPECT_FALSE(IsNotQuick(errors::Unavailable("not a quick call")));
}

TEST_F(SessionTest, VariablesPersistAcrossRunsAndAreIsolatedBetweenSessions) {
  ASSERT_TRUE(Run({.targets = {"init"}}).ok());
  for (int i = 1; i <= 3; ++i) {
    auto r = Run({.fetches = {"inc"}});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Values(r->fetches[0]), (std::vector<float>{static_cast<float>(i)}));
  }
  auto read = Run({.fetches = {"counter"}});
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(Values(read->fetches[0]), (std::vector<float>{3}));

  Session other("s2", Compile());
  ASSERT_TRUE(other.Extend(BaseGraph(), 0).ok());
  auto uninit = other.Run({.fetches = {"counter"}}, {}, token_);
  ASSERT_FALSE(uninit.ok());
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(other.Run({.targets = {"init"}}, {}, token_).ok());
  ASSERT_TRUE(other.Run({.targets = {"inc"}}, {}, token_).ok());
  EXPECT_EQ(Values(other.Run({.fetches = {"counter"}}, {}, token_)->fetches[0]),
            (std::vector<float>{1}));
  EXPECT_EQ(Values(Run({.fetches = {"counter"}})->fetches[0]), (std::vector<float>{3}));
}

TEST_F(SessionTest, TouchUpdatesLastUsed) {
  auto before = session_.last_used();
  EXPECT_LE(before, Session::Clock::now());
  ASSERT_TRUE(Run({.feeds = {"x"}, .fetches = {"sq"}}, {Vec({1})}).ok());
  EXPECT_GE(session_.last_used(), before);
}

SessionLimits Limits(int max_sessions, int64_t idle_seconds) {
  return {.max_sessions = max_sessions, .idle_timeout = std::chrono::seconds(idle_seconds)};
}

TEST(SessionManagerTest, CreateGetClose) {
  SessionManager manager(Limits(4, 60), Device());
  auto empty = manager.Create({});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->graph_version(), 0);
  auto s = manager.Create(BaseGraph());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->graph_version(), 1);
  EXPECT_EQ(manager.size(), 2);
  auto got = manager.Get((*s)->handle());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->get(), s->get());

  ASSERT_TRUE(manager.Close((*s)->handle()).ok());
  EXPECT_EQ(manager.size(), 1);
  auto gone = manager.Get((*s)->handle());
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(manager.Close((*s)->handle()).code(), absl::StatusCode::kNotFound);
  // A closed session held elsewhere still works.
  CancellationToken token;
  EXPECT_TRUE((*s)->Run({.feeds = {"x"}, .fetches = {"sq"}}, {Vec({2})}, token).ok());
}

TEST(SessionManagerTest, AProposedHandleIsAdoptedOnceAndChecked) {
  SessionManager manager(Limits(4, 60), Device());
  const std::string handle = "0123456789abcdef0123456789abcdef";
  auto s = manager.Create(BaseGraph(), "", "", 0, false, handle);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->handle(), handle);
  ASSERT_TRUE(manager.Get(handle).ok());
  auto again = manager.Create({}, "", "", 0, false, handle);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr(handle));
  EXPECT_EQ(manager.size(), 1);  // the refused one is not kept, and the first one is untouched
  CancellationToken token;
  EXPECT_TRUE((*s)->Run({.feeds = {"x"}, .fetches = {"sq"}}, {Vec({2})}, token).ok());
  EXPECT_EQ(manager.Get(handle).value().get(), s->get());
  for (const std::string& bad : std::vector<std::string>{"0123456789ABCDEF0123456789ABCDEF", "short", "0123456789abcdef0123456789abcdeg",
                                std::string(1000, 'a'), std::string("0123456789abcdef0123456789abcde\0", 32)}) {
    auto refused = manager.Create({}, "", "", 0, false, bad);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(refused.status().message(), HasSubstr("32 lowercase hex digits"));
  }
  EXPECT_EQ(manager.size(), 1);
}

TEST(SessionManagerTest, GetUnknown) {
  SessionManager manager(Limits(4, 60), Device());
  auto r = manager.Get("deadbeef");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(),
              HasSubstr("session deadbeef not found (closed, expired or on another replica)"));
}

TEST(SessionManagerTest, BadInitialGraphCreatesNoSession) {
  SessionManager manager(Limits(4, 60), Device());
  auto r = manager.Create({.nodes = {Op("y", "Relu", {"missing"})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(manager.size(), 0);
}

TEST(SessionManagerTest, MaxSessions) {
  SessionManager manager(Limits(2, 60), Device());
  auto a = manager.Create({});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(manager.Create({}).ok());
  auto c = manager.Create({});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(c.status().message(), HasSubstr("--max-sessions=2"));
  EXPECT_EQ(manager.size(), 2);
  ASSERT_TRUE(manager.Close((*a)->handle()).ok());
  EXPECT_TRUE(manager.Create({}).ok());
}

TEST(SessionManagerTest, ExpireIdle) {
  SessionManager manager(Limits(8, 10), Device());
  std::string a = (*manager.Create({}))->handle();
  std::string b = (*manager.Create({}))->handle();
  auto now = Session::Clock::now();
  EXPECT_EQ(manager.ExpireIdle(now), 0);
  EXPECT_EQ(manager.ExpireIdle(now + std::chrono::seconds(5)), 0);
  EXPECT_EQ(manager.size(), 2);
  {
    // A call holding a session (however long ago it started) keeps it from expiring:
    // expiring it would cancel the call.
    auto running = manager.Get(b);
    ASSERT_TRUE(running.ok());
    EXPECT_EQ(manager.ExpireIdle(Session::Clock::now() + std::chrono::seconds(30)), 1);
    EXPECT_FALSE((*running)->closed()->load());
  }
  EXPECT_EQ(manager.ExpireIdle(Session::Clock::now() + std::chrono::seconds(30)), 1);
  EXPECT_EQ(manager.size(), 0);
  EXPECT_EQ(manager.Get(a).status().code(), absl::StatusCode::kNotFound);
}

TEST(SessionManagerTest, ClosingMarksTheSessionForItsRunningCalls) {
  SessionManager manager(Limits(8, 10), Device());
  auto s = manager.Create({});
  ASSERT_TRUE(s.ok());
  CancellationToken token;
  token.CancelledWith((*s)->closed(), "its session was closed");
  EXPECT_TRUE(token.Check().ok());
  ASSERT_TRUE(manager.Close((*s)->handle()).ok());
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(token.Check().message(), HasSubstr("its session was closed"));
}

TEST(SessionManagerTest, ZeroTimeoutNeverExpires) {
  SessionManager manager(Limits(8, 0), Device());
  ASSERT_TRUE(manager.Create({}).ok());
  EXPECT_EQ(manager.ExpireIdle(Session::Clock::now() + std::chrono::hours(1000)), 0);
  EXPECT_EQ(manager.size(), 1);
}

TEST(SessionManagerTest, HandlesAreDistinctHex) {
  SessionManager manager(Limits(64, 60), Device());
  std::set<std::string> handles;
  for (int i = 0; i < 50; ++i) {
    auto s = manager.Create({});
    ASSERT_TRUE(s.ok());
    const std::string& h = (*s)->handle();
    EXPECT_EQ(h.size(), 32u) << h;
    EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
    handles.insert(h);
  }
  EXPECT_EQ(handles.size(), 50u);
}

// device="gpu" sessions: refused clearly without a usable GPU; with one, planned on
// it (here a fake accelerator running Mul, with the rest on the CPU), and closing one
// hands the device's cached memory back.
TEST(SessionManagerTest, GpuSessions) {
  executor::gpu::GpuProbe none{.reason = "CUDA: no NVIDIA driver"};
  SessionManager cpu_only(Limits(4, 60), Device(), nullptr, GpuSetup{.probe = none});
  auto refused = cpu_only.Create({}, "gpu");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("no GPU device on this server (CUDA: no NVIDIA driver)"));

  executor::gpu::GpuProbe found{.devices = {{.name = "/device:GPU:0", .device_type = "GPU",
                                             .description = "Test GPU, compute capability 9.0"}}};
  SessionManager unusable(Limits(4, 60), Device(), nullptr,
                          GpuSetup{.probe = found, .unusable = "libcudnn.so.9: cannot open shared object file"});
  auto broken = unusable.Create({}, "gpu");
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(broken.status().message(), HasSubstr("found Test GPU, compute capability 9.0 but cannot use it: libcudnn"));

  executor::testing::CheckedHost host;
  executor::testing::FakeAccelerator accelerator(host, {"Mul", "Const"});
  std::vector<std::string> released;
  SessionManager manager(Limits(4, 60), Device(), nullptr,
                         GpuSetup{.probe = found, .device = &accelerator, .release_memory = [&](absl::string_view h) { released.emplace_back(h); }});
  auto gpu = manager.Create(BaseGraph(), "GPU");
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  EXPECT_EQ(&(*gpu)->device(), &accelerator);
  CancellationToken token;
  auto r = (*gpu)->Run({.feeds = {"x"}, .fetches = {"sq", "neg"}}, {Vec({3, -2})}, token);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(r->fetches[0]), (std::vector<float>{9, 4}));
  EXPECT_EQ(Values(r->fetches[1]), (std::vector<float>{-3, 2}));
  EXPECT_TRUE(r->fetches[0].on_host());
  EXPECT_GE(accelerator.uploads.load(), 1);
  auto cpu = manager.Create({}, "cpu");
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(&(*cpu)->device(), &Device());
  ASSERT_TRUE(manager.Close((*cpu)->handle()).ok());
  EXPECT_TRUE(released.empty());  // a CPU session holds no device memory
  const std::string handle = (*gpu)->handle();
  gpu->reset();
  r->fetches.clear();
  ASSERT_TRUE(manager.Close(handle).ok());
  EXPECT_EQ(released, std::vector<std::string>{handle});
  EXPECT_EQ(accelerator.live_buffers.load(), 0);
  EXPECT_EQ(manager.Create({}, "tpu").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace graphd::server
