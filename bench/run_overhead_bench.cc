// Per-call overhead: p50/p99 latency of a Run of a tiny graph (add two fed scalars),
// of the same through RunCallable, and of a raw gRPC unary Echo served by the same
// graphd process, through the C++ client; then the cost of moving tensors: RunCallable
// of y = Size(x) with a 0.6 MB float32 x (a ResNet input; 5 * large-calls calls), and
// of y = Size(x) and y = Identity(x) with a 9.6 MB x (a batch of 16; large-calls calls,
// default calls/20). Each tensor case has a floor: an Echo of the same bytes (with an
// empty reply where the RunCallable's answer is 4 bytes), prebuilt like the
// RunCallable's request and timed in alternating blocks with it (both see the same
// minute of a shared host and the same HTTP/2 flow-control window, which gRPC grows
// over the first large calls), so the table says what graphd adds to moving the bytes.
// Prints a table (with the server's CPU time per call, steadier than latency on a
// shared machine) and writes a CSV.
//
//   run_overhead_bench [--server PATH] [--calls N] [--csv PATH]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_util.h"
#include "bench/server_process.h"
#include "clients/cpp/graphd_client.h"

namespace graphd::bench {
namespace {

struct Stats {
  std::string name;
  double p50_us, p99_us, mean_us;
  double server_cpu_us;  // the server's user+system CPU time per call (all its threads)
  size_t floor = 0;      // the row of the Echo that moves the same bytes
};

// User+system CPU time of process `pid` so far, microseconds (clock-tick resolution).
double ProcessCpuUs(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks * 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Times `calls` calls of `fn` after `warmup` and charges the server's CPU time to them.
Stats Case(const std::string& name, pid_t server, int warmup, int calls, const std::function<void()>& fn) {
  double cpu0 = ProcessCpuUs(server);
  LatencyStats l = Measure(warmup, calls, fn);
  double cpu = (ProcessCpuUs(server) - cpu0) / (warmup + calls);
  return {name, l.p50_us, l.p99_us, l.mean_us, cpu};
}

// Times `calls` calls each of `floor` and `fn` after `warmup` of each, alternating
// blocks of calls / kBlocks, and charges the server's CPU time of each block to its case.
std::pair<Stats, Stats> FloorAndCase(const std::string& floor_name, const std::string& name, pid_t server,
                                     int warmup, int calls, const std::function<void()>& floor,
                                     const std::function<void()>& fn) {
  constexpr int kBlocks = 10;
  for (int i = 0; i < warmup; ++i) {
    floor();
    fn();
  }
  std::vector<double> us[2];
  double cpu[2] = {0, 0};
  for (int b = 0; b < kBlocks; ++b) {
    const int n = calls / kBlocks + (b < calls % kBlocks ? 1 : 0);
    for (int k = 0; k < 2; ++k) {
      const double cpu0 = ProcessCpuUs(server);
      TimeCalls(n, k == 0 ? floor : fn, us[k]);
      cpu[k] += ProcessCpuUs(server) - cpu0;
    }
  }
  Stats s[2];
  for (int k = 0; k < 2; ++k) {
    LatencyStats l = Summarize(std::move(us[k]));
    s[k] = {k == 0 ? floor_name : name, l.p50_us, l.p99_us, l.mean_us, cpu[k] / calls};
  }
  return {s[0], s[1]};
}

// Placeholder x (float32, any shape) and y = <op>(x): "Size" (large request, 4-byte
// response) or "Identity" (large request and response): tensor transport costs.
v1::GraphDef UnaryGraph(const char* op) {
  v1::GraphDef g;
  v1::NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(v1::DT_FLOAT);
  (*x->mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
  v1::NodeDef* y = g.add_node();
  y->set_name("y");
  y->set_op(op);
  y->add_input("x");
  return g;
}

// An Echo request of `bytes` bytes, answered with nothing or with the same bytes.
v1::EchoRequest EchoOf(size_t bytes, bool empty_reply) {
  v1::EchoRequest req;
  req.set_payload(std::string(bytes, 'x'));
  req.set_empty_reply(empty_reply);
  return req;
}

// A RunCallable request feeding x a float32 [batch, 3, 224, 224] (a ResNet input:
// 0.6 MB per sample) to UnaryGraph(op) in a new session.
v1::RunCallableRequest LargeFeedCall(client::Client& c, const char* op, int batch) {
  auto session = c.CreateSession(UnaryGraph(op));
  Check(session.status(), "CreateSession");
  v1::MakeCallableRequest make;
  make.set_session_handle(session->session_handle());
  make.mutable_options()->add_feed("x:0");
  make.mutable_options()->add_fetch("y:0");
  auto callable = c.MakeCallable(make);
  Check(callable.status(), "MakeCallable");
  v1::RunCallableRequest call;
  call.set_session_handle(session->session_handle());
  call.set_handle(callable->handle());
  v1::TensorProto* x = call.add_feed();
  x->set_dtype(v1::DT_FLOAT);
  for (int64_t d : {batch, 3, 224, 224}) x->mutable_shape()->add_dim(d);
  std::vector<float> values(batch * 3 * 224 * 224);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000) / 500.0f - 1.0f;
  x->set_content(values.data(), values.size() * sizeof(float));
  return call;
}

}  // namespace
}  // namespace graphd::bench

int main(int argc, char** argv) {
  using namespace graphd;
  using namespace graphd::bench;
  CLI::App app("Per-call overhead of graphd Run vs raw gRPC echo", "run_overhead_bench");
  std::string server = ExecutableDir() + "/graphd";
  std::string csv = "build/bench/run_overhead.csv";
  int calls = 5000;
  int large_calls = 0;
  app.add_option("--server", server, "graphd binary")->capture_default_str();
  app.add_option("--calls", calls, "Measured calls per case")->capture_default_str();
  app.add_option("--csv", csv, "CSV output path")->capture_default_str();
  app.add_option("--large-calls", large_calls, "Measured 9.6 MB calls per case (0: calls/20, at least 10)");
  app.get_option("--calls")->check(CLI::Range(1, 10000000));
  CLI11_PARSE(app, argc, argv);

  auto proc = ServerProcess::Start(server, {});
  Check(proc.status(), "starting graphd");
  client::Client c((*proc)->target());

  auto session = c.CreateSession(AddScalarsGraph());
  Check(session.status(), "CreateSession");
  v1::RunRequest run;
  run.set_session_handle(session->session_handle());
  for (const char* name : {"x", "y"}) {
    v1::NamedTensor* f = run.add_feed();
    f->set_name(std::string(name) + ":0");
    *f->mutable_tensor() = ScalarFloat(name[0] == 'x' ? 1.5f : 2.25f);
  }
  run.add_fetch("z:0");
  auto first = c.Run(run);
  Check(first.status(), "Run");
  float z;
  std::memcpy(&z, first->tensor(0).tensor().content().data(), sizeof(z));
  if (z != 3.75f) {
    std::fprintf(stderr, "run_overhead_bench: wrong result %f\n", z);
    return 1;
  }
  v1::MakeCallableRequest make;
  make.set_session_handle(session->session_handle());
  make.mutable_options()->add_feed("x:0");
  make.mutable_options()->add_feed("y:0");
  make.mutable_options()->add_fetch("z:0");
  auto callable = c.MakeCallable(make);
  Check(callable.status(), "MakeCallable");
  v1::RunCallableRequest call;
  call.set_session_handle(session->session_handle());
  call.set_handle(callable->handle());
  *call.add_feed() = ScalarFloat(1.5f);
  *call.add_feed() = ScalarFloat(2.25f);

  int warmup = std::max(100, calls / 10);
  std::vector<Stats> rows;
  pid_t pid = (*proc)->pid();
  rows.push_back(Case("grpc_echo", pid, warmup, calls, [&] { Check(c.Echo("12345678").status(), "Echo"); }));
  rows.push_back(Case("run_add_scalars", pid, warmup, calls, [&] { Check(c.Run(run).status(), "Run"); }));
  rows.push_back(Case("run_callable_add_scalars", pid, warmup, calls,
                      [&] { Check(c.RunCallable(call).status(), "RunCallable"); }));
  Check(c.CloseSession(session->session_handle()), "CloseSession");
  if (large_calls <= 0) large_calls = std::max(10, calls / 20);
  struct Transport {
    const char* name;
    const char* op;  // Size: 4 bytes back; Identity: the same bytes back
    int batch;
    int calls;
  };
  for (const Transport& t : {Transport{"0.6MB_in", "Size", 1, large_calls * 5},
                             Transport{"9.6MB_in", "Size", 16, large_calls},
                             Transport{"9.6MB_in_out", "Identity", 16, large_calls}}) {
    const int t_warmup = std::max(3, t.calls / 10);
    const bool in_out = t.op[0] == 'I';
    v1::EchoRequest echo = EchoOf(static_cast<size_t>(t.batch) * 3 * 224 * 224 * sizeof(float), !in_out);
    v1::RunCallableRequest run_large = LargeFeedCall(c, t.op, t.batch);
    auto [floor_row, run_row] = FloorAndCase(
        std::string("grpc_echo_") + t.name, std::string("run_callable_") + t.name, pid, t_warmup, t.calls,
        [&] { Check(c.Echo(echo).status(), "Echo"); },
        [&] { Check(c.RunCallable(run_large).status(), "RunCallable"); });
    rows.push_back(floor_row);
    run_row.floor = rows.size() - 1;
    rows.push_back(run_row);
    Check(c.CloseSession(run_large.session_handle()), "CloseSession");
  }

  const Stats& echo = rows[0];
  std::printf("\nPer-call latency, %d calls each, C++ client over loopback (us); p50/floor: against the\n"
              "Echo of the same bytes\n", calls);
  std::printf("%-26s %10s %10s %10s %10s %10s %12s\n", "case", "p50", "p99", "mean", "p50/echo", "p50/floor",
              "server_cpu");
  for (const Stats& s : rows) {
    std::printf("%-26s %10.1f %10.1f %10.1f %10.2f %10.2f %12.1f\n", s.name.c_str(), s.p50_us, s.p99_us,
                s.mean_us, s.p50_us / echo.p50_us, s.p50_us / rows[s.floor].p50_us, s.server_cpu_us);
  }
  std::string dir = csv.substr(0, csv.rfind('/'));
  if (dir != csv) std::system(("mkdir -p '" + dir + "'").c_str());
  std::ofstream out(csv);
  out << "case,p50_us,p99_us,mean_us,p50_ratio_to_echo,p50_ratio_to_floor,server_cpu_us\n";
  for (const Stats& s : rows) {
    out << s.name << "," << s.p50_us << "," << s.p99_us << "," << s.mean_us << ","
        << s.p50_us / echo.p50_us << "," << s.p50_us / rows[s.floor].p50_us << "," << s.server_cpu_us << "\n";
  }
  std::printf("CSV: %s\n", csv.c_str());
  return 0;
}
