// Helpers for the GPU device tests: the device (created once; nullptr with the reason
// where there is no GPU), and running one graph on the CPU and on the GPU to compare.
// Every test that needs a GPU starts with GRAPHD_REQUIRE_GPU(), which skips visibly.
#ifndef GRAPHD_TESTS_CONFORMANCE_GPU_GPU_TEST_UTIL_H_
#define GRAPHD_TESTS_CONFORMANCE_GPU_GPU_TEST_UTIL_H_

#include <string>
#include <vector>

#include "executor/gpu/gpu_device.h"
#include "tests/conformance/cpu/test_util.h"

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

#define GRAPHD_REQUIRE_GPU()                                                        \
  do {                                                                              \
    if (::graphd::executor::test::Gpu().device == nullptr) {                        \
      GTEST_SKIP() << "no GPU device: " << ::graphd::executor::test::Gpu().reason; \
    }                                                                               \
  } while (0)

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
  const gpu::GpuDevice& device = *Gpu().device;
  if (!on_gpu.empty()) {
    const Node* node = g.FindNode(on_gpu);
    ASSERT_NE(node, nullptr);
    EXPECT_TRUE(device.SupportsOp(*node)) << on_gpu << " (" << node->op_name() << ") would run on the CPU";
  }
  StatusOr<std::vector<Tensor>> cpu = RunGraph(g, feeds, fetches);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  StatusOr<std::vector<Tensor>> got = RunGraphOn(device, g, feeds, fetches);
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
