// Helpers for the GPU device tests: the device (created once; nullptr with the reason
// where there is no GPU), and running one graph on the CPU and on the GPU to compare.
// Device tests start with GRAPHD_REQUIRE_GPU(), which skips visibly. Kernel conformance
// tests run their cases everywhere: without a GPU each case still builds its graph,
// runs it on the CPU and checks what the GPU would claim (GpuSupports over a kernel
// table registered without a GPU, in CUDA builds), and the test then ends with
// GRAPHD_SKIP_WITHOUT_GPU(), so that only the GPU comparison is skipped.
#ifndef GRAPHD_TESTS_CONFORMANCE_GPU_GPU_TEST_UTIL_H_
#define GRAPHD_TESTS_CONFORMANCE_GPU_GPU_TEST_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "executor/gpu/gpu_device.h"
#include "tests/conformance/cpu/test_util.h"
#ifdef GRAPHD_TEST_HAVE_CUDA
#include "executor/gpu/gpu_kernels.h"
#endif

namespace graphd::executor::test {

struct GpuOrReason {
  gpu::GpuDevice* device = nullptr;
  std::string reason;
};

// GPU 0 with the CPU device as its fallback, created on first use and kept.
inline const GpuOrReason& Gpu() {
  static const GpuOrReason* gpu = [] {
    auto* g = new GpuOrReason;
    StatusOr<std::unique_ptr<gpu::GpuDevice>> d = gpu::GpuDevice::Create(0, Device());
    if (d.ok()) {
      g->device = d->release();
    } else {
      g->reason = d.status().ToString();
    }
    return g;
  }();
  return *gpu;
}

#define GRAPHD_REQUIRE_GPU()                                                       \
  do {                                                                             \
    if (::graphd::executor::test::Gpu().device == nullptr) {                       \
      GTEST_SKIP() << "no GPU device: " << ::graphd::executor::test::Gpu().reason; \
    }                                                                              \
  } while (0)

#define GRAPHD_SKIP_WITHOUT_GPU()                                                \
  do {                                                                           \
    if (::graphd::executor::test::Gpu().device == nullptr) {                     \
      GTEST_SKIP() << "no GPU device (graphs, CPU runs and placement checked): " \
                   << ::graphd::executor::test::Gpu().reason;                    \
    }                                                                            \
  } while (0)

// Whether the GPU claims `node`: the device's SupportsOp, or without a GPU the same
// check over a kernel table registered without one. nullopt: cannot tell (no CUDA).
inline std::optional<bool> GpuClaims(const Node& node) {
  if (Gpu().device != nullptr) return Gpu().device->SupportsOp(node);
#ifdef GRAPHD_TEST_HAVE_CUDA
  static const gpu::GpuKernelTable* table = [] {
    auto* t = new gpu::GpuKernelTable;
    gpu::RegisterGpuKernels(*t, nullptr);
    return t;
  }();
  return gpu::GpuSupports(*table, node);
#else
  return std::nullopt;
#endif
}

// Expects two results alike: same dtype and shape, elements within
// atol + rtol * |cpu|.
inline void ExpectSameResult(const Tensor& gpu, const Tensor& cpu, double rtol, double atol) {
  ASSERT_TRUE(gpu.on_host()) << "fetches must arrive in host memory";
  ASSERT_EQ(gpu.dtype(), cpu.dtype());
  ASSERT_EQ(gpu.shape(), cpu.shape());
  ExpectClose(gpu, ToDouble(cpu), rtol, atol);
}

// Runs `g` on the CPU and on the GPU and expects the same fetches. When `on_gpu` names
// a node, also expects the GPU device to support it (so the comparison covers its
// GPU kernel, not the CPU fallback).
inline void ExpectGpuMatchesCpu(const Graph& g, const Feeds& feeds, const std::vector<std::string>& fetches,
                                double rtol, double atol, const std::string& on_gpu = "out") {
  if (!on_gpu.empty()) {
    const Node* node = g.FindNode(on_gpu);
    ASSERT_NE(node, nullptr);
    std::optional<bool> claimed = GpuClaims(*node);
    if (claimed.has_value()) {
      EXPECT_TRUE(*claimed) << on_gpu << " (" << node->op_name() << ") would run on the CPU";
    }
  }
  StatusOr<std::vector<Tensor>> cpu = RunGraph(g, feeds, fetches);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  if (Gpu().device == nullptr) return;  // the test ends with GRAPHD_SKIP_WITHOUT_GPU()
  StatusOr<std::vector<Tensor>> got = RunGraphOn(*Gpu().device, g, feeds, fetches);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), cpu->size());
  for (size_t i = 0; i < cpu->size(); ++i) {
    SCOPED_TRACE(fetches[i]);
    ExpectSameResult((*got)[i], (*cpu)[i], rtol, atol);
  }
}

// One node "out" = op(in0, in1, ...) over placeholders fed with `inputs`, on both
// devices.
inline void ExpectOpMatches(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {},
                            double rtol = 1e-4, double atol = 1e-6, bool expect_on_gpu = true) {
  SCOPED_TRACE(op);
  Graph g;
  NodeSpec spec{.name = "out", .op = op, .attrs = std::move(attrs)};
  Feeds feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    SCOPED_TRACE(name + " " + inputs[i].DebugString());
    const Node* p = AddPlaceholder(g, name, inputs[i].dtype(), inputs[i].shape());
    ASSERT_NE(p, nullptr);
    spec.inputs.push_back({p, 0});
    feeds.emplace_back(name, inputs[i]);
  }
  StatusOr<const Node*> out = g.AddNode(std::move(spec));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectGpuMatchesCpu(g, feeds, {"out"}, rtol, atol, expect_on_gpu ? "out" : "");
}

}  // namespace graphd::executor::test

#endif  // GRAPHD_TESTS_CONFORMANCE_GPU_GPU_TEST_UTIL_H_
