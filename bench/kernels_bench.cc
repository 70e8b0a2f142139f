// CPU kernel micro-benchmarks through the real planner and executor: one node graphs
// (MatMul, Add with broadcasting, Relu, Softmax, Sum) at a few sizes.
#include <benchmark/benchmark.h>

#include "compiler/passes/prune.h"
#include "executor/cpu/cpu_device.h"
#include "executor/runtime/executor.h"

namespace graphd {
namespace {

Tensor Filled(const Shape& shape, float v) {
  Tensor t = Tensor::Allocate(DType::kFloat32, shape).value();
  for (float& x : t.flat<float>()) x = v;
  return t;
}

const Node* Placeholder(Graph& g, const std::string& name, const Shape& shape) {
  return g.AddNode({.name = name, .op = "Placeholder",
                    .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(shape)}}})
      .value();
}

// Builds `op`(inputs...) and runs it repeatedly.
void RunOp(benchmark::State& state, const std::string& op, std::vector<Shape> shapes,
           double flops_per_run) {
  static executor::cpu::CpuDevice device;
  Graph g;
  std::vector<OutputRef> inputs;
  std::vector<std::string> feed_names;
  std::vector<Tensor> feeds;
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    inputs.push_back({Placeholder(g, name, shapes[i]), 0});
    feed_names.push_back(name);
    feeds.push_back(Filled(shapes[i], 0.5f));
  }
  g.AddNode({.name = "out", .op = op, .inputs = inputs}).value();
  auto spec = compiler::Prune(g, feed_names, std::vector<std::string>{"out"}, {}).value();
  auto plan = executor::Plan::Build(spec, device).value();
  VariableStore vars;
  CancellationToken token;
  for (auto _ : state) {
    auto out = executor::Execute(*plan, feeds, {.variables = &vars, .cancellation = &token});
    benchmark::DoNotOptimize(out);
  }
  if (flops_per_run > 0) {
    state.counters["GFLOP/s"] = benchmark::Counter(flops_per_run * state.iterations() / 1e9,
                                                   benchmark::Counter::kIsRate);
  }
}

void BM_MatMul(benchmark::State& state) {
  int64_t n = state.range(0);
  RunOp(state, "MatMul", {Shape({n, n}), Shape({n, n})}, 2.0 * n * n * n);
}
BENCHMARK(BM_MatMul)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_AddBroadcast(benchmark::State& state) {
  int64_t n = state.range(0);
  RunOp(state, "Add", {Shape({n, 512}), Shape({512})}, 0);
}
BENCHMARK(BM_AddBroadcast)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_Relu(benchmark::State& state) { RunOp(state, "Relu", {Shape({state.range(0), 512})}, 0); }
BENCHMARK(BM_Relu)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_Softmax(benchmark::State& state) { RunOp(state, "Softmax", {Shape({state.range(0), 1000})}, 0); }
BENCHMARK(BM_Softmax)->Arg(1)->Arg(64)->Unit(benchmark::kMicrosecond);

void BM_SumAll(benchmark::State& state) { RunOp(state, "Sum", {Shape({state.range(0), 512})}, 0); }
BENCHMARK(BM_SumAll)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace graphd

BENCHMARK_MAIN();
