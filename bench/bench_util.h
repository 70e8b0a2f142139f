// Shared by the benchmarks: latency measurement, fail-fast checks, and the tiny
// "add two fed float32 scalars" graph they all time.
#ifndef GRAPHD_BENCH_BENCH_UTIL_H_
#define GRAPHD_BENCH_BENCH_UTIL_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graphd/v1/graph.pb.h"
#include "graphd/v1/tensor.pb.h"

namespace graphd::bench {

struct LatencyStats {
  double p50_us = 0, p99_us = 0, mean_us = 0;
};

// Runs `fn` `warmup` times, then times `calls` runs of it.
LatencyStats Measure(int warmup, int calls, const std::function<void()>& fn);

// Appends the time of each of `calls` runs of `fn` to `us` (microseconds).
void TimeCalls(int calls, const std::function<void()>& fn, std::vector<double>& us);

// p50, p99 and mean of `us` (not empty).
LatencyStats Summarize(std::vector<double> us);

// Prints "<program>: <what>: <message>" and exits 1 when `s` is not OK.
void Check(const absl::Status& s, const char* what);

v1::TensorProto ScalarFloat(float v);
v1::TensorProto ScalarInt32(int32_t v);
// Placeholders x, y (float32 scalars) and z = Add(x, y).
v1::GraphDef AddScalarsGraph();

}  // namespace graphd::bench

#endif  // GRAPHD_BENCH_BENCH_UTIL_H_
