// The GPU device itself (executor/gpu/gpu_device.h): creation (and its failure where
// there is no GPU, which runs everywhere), memory, copies, placement of a graph mixing
// GPU and CPU-only ops, and concurrent runs. The GPU cases skip, saying why, where
// there is no GPU.
#include <thread>

#include "executor/gpu/gpu_probe.h"
#include "gmock/gmock.h"
#include "tests/conformance/gpu/gpu_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

TEST(GpuDeviceTest, CreateFailsReadablyWithoutAGpu) {
  gpu::GpuProbe probe = gpu::ProbeGpus();
  if (!probe.devices.empty()) GTEST_SKIP() << "this machine has a GPU (" << probe.devices[0].description << ")";
  StatusOr<std::unique_ptr<gpu::GpuDevice>> d = gpu::GpuDevice::Create(0, Device());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition) << d.status();
  EXPECT_THAT(d.status().message(), HasSubstr("GPU 0: "));
  if (!gpu::BuiltWithCuda()) {
    EXPECT_THAT(d.status().message(), HasSubstr("built without CUDA"));
  } else {
    EXPECT_THAT(d.status().message(), HasSubstr("no usable GPU: " + probe.reason));
  }
  EXPECT_EQ(Gpu().device, nullptr);
  EXPECT_FALSE(Gpu().reason.empty());
}

TEST(GpuDeviceTest, OrdinalOutOfRangeIsFailedPrecondition) {
  StatusOr<std::unique_ptr<gpu::GpuDevice>> d = gpu::GpuDevice::Create(1000, Device());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition) << d.status();
  EXPECT_THAT(d.status().message(), HasSubstr("GPU 1000"));
}

TEST(GpuDeviceTest, Info) {
  GRAPHD_REQUIRE_GPU();
  const gpu::GpuDevice& d = *Gpu().device;
  EXPECT_EQ(d.info().name, "/device:GPU:0");
  EXPECT_EQ(d.info().device_type, "GPU");
  EXPECT_GT(d.info().memory_limit, int64_t{1} << 30);
  EXPECT_THAT(d.info().description, HasSubstr("cuDNN"));
  EXPECT_EQ(d.memory_space(), 0);
  EXPECT_EQ(d.fallback(), &Device());
}

TEST(GpuDeviceTest, CopyRoundTrip) {
  GRAPHD_REQUIRE_GPU();
  const gpu::GpuDevice& d = *Gpu().device;
  std::mt19937 rng(1);
  for (const Tensor& host : {Random<float>(Shape({3, 1000}), rng), Random<int64_t>(Shape({17}), rng, -1e9, 1e9),
                             MakeBool(Shape({2, 2}), {1, 0, 0, 1}), Tensor::Scalar<int32_t>(-7),
                             Tensor::Allocate(DType::kFloat32, Shape({0, 5})).value()}) {
    SCOPED_TRACE(host.DebugString());
    StatusOr<Tensor> dev = d.CopyFromHost(host);
    ASSERT_TRUE(dev.ok()) << dev.status();
    EXPECT_FALSE(dev->on_host());
    EXPECT_EQ(dev->memory_space(), 0);
    EXPECT_EQ(dev->shape(), host.shape());
    StatusOr<Tensor> back = d.CopyToHost(*dev);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->on_host());
    ExpectSameResult(*back, host, 0, 0);
  }
  EXPECT_TRUE(d.Synchronize().ok());
}

TEST(GpuDeviceTest, RefusesStringsAndForeignTensors) {
  GRAPHD_REQUIRE_GPU();
  const gpu::GpuDevice& d = *Gpu().device;
  StatusOr<Tensor> s = d.CopyFromHost(Tensor::Scalar<std::string>("x"));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
  StatusOr<Tensor> h = d.CopyToHost(Tensor::Scalar<float>(1));
  EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument) << h.status();
  Graph g;
  const Node* p = AddPlaceholder(g, "s", DType::kString, PartialShape(std::vector<int64_t>{2}));
  const Node* id = g.AddNode({.name = "id", .op = "Identity", .inputs = {{p, 0}}}).value();
  EXPECT_FALSE(d.SupportsOp(*id));
  EXPECT_EQ(d.CreateKernel(*id).status().code(), absl::StatusCode::kUnimplemented);
}

TEST(GpuDeviceTest, MemoryStatsReturnToZeroAfterTrim) {
  GRAPHD_REQUIRE_GPU();
  const gpu::GpuDevice& d = *Gpu().device;
  d.TrimCache();
  const gpu::GpuMemoryStats before = d.MemoryStats();
  EXPECT_EQ(before.bytes_cached, 0);
  {
    StatusOr<Tensor> a = d.Allocate(DType::kFloat32, Shape({1024, 1024}));
    ASSERT_TRUE(a.ok()) << a.status();
    StatusOr<Tensor> b = d.CopyFromHost(Tensor::Allocate(DType::kInt32, Shape({100})).value());
    ASSERT_TRUE(b.ok()) << b.status();
    gpu::GpuMemoryStats live = d.MemoryStats();
    EXPECT_GE(live.bytes_in_use, before.bytes_in_use + 4 * 1024 * 1024 + 400);
    EXPECT_GE(live.peak_bytes_in_use, live.bytes_in_use);
    ASSERT_TRUE(d.Synchronize().ok());
  }
  gpu::GpuMemoryStats freed = d.MemoryStats();
  EXPECT_EQ(freed.bytes_in_use, before.bytes_in_use);
  EXPECT_GE(freed.bytes_cached, 4 * 1024 * 1024);
  // The cache serves the same size again without growing.
  {
    StatusOr<Tensor> again = d.Allocate(DType::kFloat32, Shape({1024, 1024}));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(d.MemoryStats().bytes_cached, freed.bytes_cached - 4 * 1024 * 1024);
  }
  d.TrimCache();
  EXPECT_EQ(d.MemoryStats().bytes_cached, 0);
  EXPECT_EQ(d.MemoryStats().bytes_in_use, before.bytes_in_use);
}

TEST(GpuDeviceTest, OutOfMemoryIsResourceExhausted) {
  GRAPHD_REQUIRE_GPU();
  const gpu::GpuDevice& d = *Gpu().device;
  StatusOr<Tensor> huge = d.Allocate(DType::kFloat32, Shape({int64_t{1} << 40}));  // 4 TiB
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted) << huge.status();
  // The device still works afterwards.
  StatusOr<Tensor> small = d.CopyFromHost(Tensor::Scalar<float>(2));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_TRUE(d.CopyToHost(*small).ok());
}

// x -> Add (GPU) -> Atan (CPU only) -> Mul (GPU) with a Const, fetched from both.
TEST(GpuDeviceTest, GraphMixingGpuAndCpuOps) {
  GRAPHD_REQUIRE_GPU();
  const gpu::GpuDevice& d = *Gpu().device;
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{4, 5}));
  std::mt19937 rng(2);
  const Node* c =
      g.AddNode({.name = "c", .op = "Const", .attrs = {{"value", Random<float>(Shape({5}), rng, 1, 4)}}}).value();
  const Node* add = g.AddNode({.name = "add", .op = "Add", .inputs = {{x, 0}, {c, 0}}}).value();
  const Node* floor = g.AddNode({.name = "floor", .op = "Atan", .inputs = {{add, 0}}}).value();
  ASSERT_TRUE(g.AddNode({.name = "out", .op = "Mul", .inputs = {{floor, 0}, {c, 0}}}).ok());
  EXPECT_TRUE(d.SupportsOp(*add));
  EXPECT_FALSE(d.SupportsOp(*floor)) << "update this test when Atan gets a GPU kernel";
  ExpectGpuMatchesCpu(g, {{"x", Random<float>(Shape({4, 5}), rng, -5, 5)}}, {"out", "floor", "add"}, 1e-5, 1e-7);
}

// A thread's stream outlives the thread (pooled): blocks it freed stay usable from
// other threads, and later threads take the pooled stream.
TEST(GpuDeviceTest, BlocksFreedByExitedThreadsAreReused) {
  GRAPHD_REQUIRE_GPU();
  const gpu::GpuDevice& d = *Gpu().device;
  d.TrimCache();
  const int64_t in_use = d.MemoryStats().bytes_in_use;
  std::mt19937 rng(3);
  const Tensor host = Random<float>(Shape({512, 512}), rng);
  auto round_trip = [&] {
    StatusOr<Tensor> dev = d.CopyFromHost(host);
    ASSERT_TRUE(dev.ok()) << dev.status();
    StatusOr<Tensor> back = d.CopyToHost(*dev);
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectSameResult(*back, host, 0, 0);
  };
  // Each thread takes the previous one's pooled stream, so the same block serves all.
  for (int i = 0; i < 3; ++i) std::thread(round_trip).join();
  EXPECT_EQ(d.MemoryStats().bytes_cached, 512 * 512 * 4);
  // This thread has its own stream: it may take that block once an event recorded on
  // the pooled stream completes, or allocate another.
  round_trip();
  EXPECT_LE(d.MemoryStats().bytes_cached, 2 * 512 * 512 * 4);
  EXPECT_EQ(d.MemoryStats().bytes_in_use, in_use);
  d.TrimCache();
}

// Several threads run the same plan at once (each on its own stream).
TEST(GpuDeviceTest, ConcurrentRuns) {
  GRAPHD_REQUIRE_GPU();
  const gpu::GpuDevice& d = *Gpu().device;
  Graph g;
  const Node* a = AddPlaceholder(g, "a", DType::kFloat32, PartialShape(std::vector<int64_t>{64, 96}));
  const Node* b = AddPlaceholder(g, "b", DType::kFloat32, PartialShape(std::vector<int64_t>{96, 32}));
  const Node* mm = g.AddNode({.name = "mm", .op = "MatMul", .inputs = {{a, 0}, {b, 0}}}).value();
  ASSERT_TRUE(g.AddNode({.name = "out", .op = "Tanh", .inputs = {{mm, 0}}}).ok());
  const std::vector<std::string> feeds = {"a", "b"}, fetches = {"out"};
  StatusOr<ExecutionSpec> spec = compiler::Prune(g, feeds, fetches, {});
  ASSERT_TRUE(spec.ok()) << spec.status();
  StatusOr<std::unique_ptr<const Plan>> plan = Plan::Build(*spec, d);
  ASSERT_TRUE(plan.ok()) << plan.status();
  constexpr int kThreads = 6, kRuns = 20;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      for (int r = 0; r < kRuns; ++r) {
        Tensor av = Random<float>(Shape({64, 96}), rng), bv = Random<float>(Shape({96, 32}), rng);
        StatusOr<std::vector<Tensor>> want = RunGraph(g, {{"a", av}, {"b", bv}}, {"out"});
        VariableStore vars;
        CancellationToken token;
        StatusOr<std::vector<Tensor>> got = Execute(**plan, {av, bv}, {.variables = &vars, .cancellation = &token});
        if (!want.ok() || !got.ok()) {
          ++failures[t];
          continue;
        }
        std::vector<double> w = ToDouble((*want)[0]), o = ToDouble((*got)[0]);
        for (size_t i = 0; i < w.size(); ++i) {
          if (std::abs(w[i] - o[i]) > 1e-5 + 1e-4 * std::abs(w[i])) {
            ++failures[t];
            break;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace graphd::executor::test
