// Per-call overhead: p50/p99 latency of a Run of a tiny graph (add two fed scalars),
// of the same through RunCallable, and of a raw gRPC unary Echo served by the same
// graphd process, through the C++ client. Prints a table and writes a CSV.
//
//   run_overhead_bench [--server PATH] [--calls N] [--csv PATH]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
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
};

Stats Row(const std::string& name, const LatencyStats& l) { return {name, l.p50_us, l.p99_us, l.mean_us}; }

}  // namespace
}  // namespace graphd::bench

int main(int argc, char** argv) {
  using namespace graphd;
  using namespace graphd::bench;
  CLI::App app("Per-call overhead of graphd Run vs raw gRPC echo", "run_overhead_bench");
  std::string server = ExecutableDir() + "/graphd";
  std::string csv = "build/bench/run_overhead.csv";
  int calls = 5000;
  app.add_option("--server", server, "graphd binary")->capture_default_str();
  app.add_option("--calls", calls, "Measured calls per case")->capture_default_str();
  app.add_option("--csv", csv, "CSV output path")->capture_default_str();
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
  rows.push_back(Row("grpc_echo", Measure(warmup, calls, [&] { Check(c.Echo("12345678").status(), "Echo"); })));
  rows.push_back(Row("run_add_scalars", Measure(warmup, calls, [&] { Check(c.Run(run).status(), "Run"); })));
  rows.push_back(Row("run_callable_add_scalars", Measure(warmup, calls,
                         [&] { Check(c.RunCallable(call).status(), "RunCallable"); })));
  Check(c.CloseSession(session->session_handle()), "CloseSession");

  const Stats& echo = rows[0];
  std::printf("\nPer-call latency, %d calls each, C++ client over loopback (us)\n", calls);
  std::printf("%-26s %10s %10s %10s %12s\n", "case", "p50", "p99", "mean", "p50/echo");
  for (const Stats& s : rows) {
    std::printf("%-26s %10.1f %10.1f %10.1f %12.2f\n", s.name.c_str(), s.p50_us, s.p99_us,
                s.mean_us, s.p50_us / echo.p50_us);
  }
  std::string dir = csv.substr(0, csv.rfind('/'));
  if (dir != csv) std::system(("mkdir -p '" + dir + "'").c_str());
  std::ofstream out(csv);
  out << "case,p50_us,p99_us,mean_us,p50_ratio_to_echo\n";
  for (const Stats& s : rows) {
    out << s.name << "," << s.p50_us << "," << s.p99_us << "," << s.mean_us << ","
        << s.p50_us / echo.p50_us << "\n";
  }
  std::printf("CSV: %s\n", csv.c_str());
  return 0;
}
