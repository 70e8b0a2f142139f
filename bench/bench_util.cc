#include "bench/bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace graphd::bench {

LatencyStats Measure(int warmup, int calls, const std::function<void()>& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> us;
  TimeCalls(calls, fn, us);
  return Summarize(std::move(us));
}

void TimeCalls(int calls, const std::function<void()>& fn, std::vector<double>& us) {
  us.reserve(us.size() + calls);
  for (int i = 0; i < calls; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
}

LatencyStats Summarize(std::vector<double> us) {
  const size_t n = us.size();
  std::sort(us.begin(), us.end());
  double mean = 0;
  for (double v : us) mean += v / n;
  return {us[n / 2], us[std::min(n - 1, n * 99 / 100)], mean};
}

void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "bench: %s: %s\n", what, std::string(s.message()).c_str());
    std::exit(1);
  }
}

v1::TensorProto ScalarFloat(float v) {
  v1::TensorProto t;
  t.set_dtype(v1::DT_FLOAT);
  t.set_content(&v, sizeof(v));
  return t;
}

v1::TensorProto ScalarInt32(int32_t v) {
  v1::TensorProto t;
  t.set_dtype(v1::DT_INT32);
  t.set_content(&v, sizeof(v));
  return t;
}

v1::GraphDef AddScalarsGraph() {
  v1::GraphDef g;
  for (const char* name : {"x", "y"}) {
    v1::NodeDef* n = g.add_node();
    n->set_name(name);
    n->set_op("Placeholder");
    (*n->mutable_attr())["dtype"].set_type(v1::DT_FLOAT);
    (*n->mutable_attr())["shape"].mutable_shape();  // scalar
  }
  v1::NodeDef* z = g.add_node();
  z->set_name("z");
  z->set_op("Add");
  z->add_input("x");
  z->add_input("y");
  return g;
}

}  // namespace graphd::bench
