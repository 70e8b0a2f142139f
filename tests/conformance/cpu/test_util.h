// Test helpers: build small graphs, run them on the CPU device through pruning, the
// planner and the executor, and compare results against reference values.
#ifndef GRAPHD_TESTS_CONFORMANCE_CPU_TEST_UTIL_H_
#define GRAPHD_TESTS_CONFORMANCE_CPU_TEST_UTIL_H_

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/prune.h"
#include "executor/cpu/cpu_device.h"
#include "executor/cpu/dispatch.h"
#include "executor/runtime/executor.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {

inline const cpu::CpuDevice& Device() {
  static const cpu::CpuDevice* device = new cpu::CpuDevice();
  return *device;
}

using Feeds = std::vector<std::pair<std::string, Tensor>>;

// Prunes `g` for (feeds, fetches, targets), builds a plan on `device` and executes it once.
inline StatusOr<std::vector<Tensor>> RunGraphOn(const executor::Device& device, const Graph& g, const Feeds& feeds,
                                                const std::vector<std::string>& fetches,
                                                const std::vector<std::string>& targets = {},
                                                VariableStore* variables = nullptr,
                                                const CancellationToken* token = nullptr) {
  std::vector<std::string> names;
  std::vector<Tensor> values;
  for (const auto& [name, value] : feeds) {
    names.push_back(name);
    values.push_back(value);
  }
  ASSIGN_OR_RETURN(ExecutionSpec spec, compiler::Prune(g, names, fetches, targets));
  ASSIGN_OR_RETURN(auto plan, Plan::Build(spec, device));
  VariableStore local_variables;
  CancellationToken no_cancel;
  return Execute(*plan, std::move(values),
                 {.variables = variables ? variables : &local_variables,
                  .cancellation = token ? token : &no_cancel});
}

// RunGraphOn the CPU device.
inline StatusOr<std::vector<Tensor>> RunGraph(const Graph& g, const Feeds& feeds,
                                              const std::vector<std::string>& fetches,
                                              const std::vector<std::string>& targets = {},
                                              VariableStore* variables = nullptr,
                                              const CancellationToken* token = nullptr) {
  return RunGraphOn(Device(), g, feeds, fetches, targets, variables, token);
}

inline const Node* AddPlaceholder(Graph& g, const std::string& name, DType dtype,
                                  PartialShape shape) {
  auto n = g.AddNode({.name = name,
                      .op = "Placeholder",
                      .attrs = {{"dtype", dtype}, {"shape", std::move(shape)}}});
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : nullptr;
}

// Runs node "out" = op(in0, in1, ...) with placeholders of the inputs' exact types.
inline StatusOr<Tensor> RunOp(const std::string& op, const std::vector<Tensor>& inputs,
                              AttrMap attrs = {}) {
  Graph g;
  NodeSpec spec{.name = "out", .op = op, .attrs = std::move(attrs)};
  Feeds feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    const Node* p = AddPlaceholder(g, name, inputs[i].dtype(), inputs[i].shape());
    if (p == nullptr) return errors::Internal("placeholder");
    spec.inputs.push_back({p, 0});
    feeds.emplace_back(name, inputs[i]);
  }
  RETURN_IF_ERROR(g.AddNode(std::move(spec)).status());
  ASSIGN_OR_RETURN(std::vector<Tensor> out, RunGraph(g, feeds, {"out"}));
  return out[0];
}

// Random values in [lo, hi] (integers: whole numbers) of dtype T.
template <typename T>
Tensor Random(const Shape& shape, std::mt19937& rng, double lo = -1, double hi = 1) {
  Tensor t = Tensor::Allocate(DTypeOf<T>::value, shape).value();
  for (T& v : t.flat<T>()) {
    if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(rng));
    } else {
      v = static_cast<T>(std::uniform_int_distribution<int64_t>(static_cast<int64_t>(lo),
                                                                static_cast<int64_t>(hi))(rng));
    }
  }
  return t;
}

template <typename T>
Tensor Make(const Shape& shape, const std::vector<T>& values) {
  return Tensor::FromVector<T>(shape, values).value();
}

inline Tensor MakeBool(const Shape& shape, const std::vector<int>& values) {
  Tensor t = Tensor::Allocate(DType::kBool, shape).value();
  for (size_t i = 0; i < values.size(); ++i) t.data<bool>()[i] = values[i] != 0;
  return t;
}

// The elements of a numeric (16-bit floats too) or bool tensor as doubles.
inline std::vector<double> ToDouble(const Tensor& t) {
  std::vector<double> out;
  Status s = cpu::DispatchConvertible(t.dtype(), [&]<typename T>() -> Status {
    for (int64_t i = 0; i < t.num_elements(); ++i)
      out.push_back(static_cast<double>(t.data<T>()[i]));
    return absl::OkStatus();
  });
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

// Expects |got - want| <= atol + rtol * |want| element-wise (exact with zeros).
inline void ExpectClose(const Tensor& got, const std::vector<double>& want, double rtol = 0,
                        double atol = 0) {
  std::vector<double> g = ToDouble(got);
  ASSERT_EQ(g.size(), want.size()) << got.DebugString();
  int bad = 0;
  for (size_t i = 0; i < g.size() && bad < 10; ++i) {
    bool ok = std::isnan(want[i]) ? std::isnan(g[i])
                                  : g[i] == want[i] ||  // also equal infinities
                                        std::abs(g[i] - want[i]) <= atol + rtol * std::abs(want[i]);
    if (!ok) {
      ++bad;
      ADD_FAILURE() << "element " << i << " of " << got.DebugString() << ": got " << g[i]
                    << ", want " << want[i];
    }
  }
}

}  // namespace graphd::executor::test

#endif  // GRAPHD_TESTS_CONFORMANCE_CPU_TEST_UTIL_H_
