// Serving throughput and latency through KServe v2 ModelInfer (issue 15): requests/s
// and p50/p99 at concurrency 1, 8 and 32 for the MLP and ResNet-18 (batch-1 requests,
// raw contents), with dynamic batching off and on; then the MLP's p50 at concurrency 1
// against the gRPC echo's of the same server, in alternating rounds. Each concurrent
// client has a channel (and connection) of its own.
//
//   serving_bench --models build/bench/models [--budget-s 3] [--only mlp] [--csv PATH]
//                 [--device cpu|gpu] [--queue-delay-us 1000] [--instances N]
//
// The repository is made in a temporary directory from <models>/{mlp,resnet18}.onnx
// (exported by bench/run_models.py): NAME (max_batch_size 32, no batching) and
// NAME_batched (the same with dynamic_batching, max_queue_delay 1 ms), on the CPU or,
// with --device gpu, the GPU (instance_group kind KIND_GPU; on the device machine), with
// --instances executions at once (instance_group count: batches in flight together;
// default the server's, 1 on the CPU and 2 on a GPU). Each row also gives what the
// server's ModelStatistics say of the case: requests per execution (the mean batch)
// and the mean execution time.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_util.h"
#include "bench/server_process.h"
#include "graphd/v1/diagnostics.grpc.pb.h"
#include "graphd/kserve/grpc_service.grpc.pb.h"

namespace graphd::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Model {
  std::string name;
  std::string input;
  std::vector<int64_t> dims;  // without the batch
};

struct Row {
  std::string model;
  bool batching;
  int concurrency;
  double rps, p50_ms, p99_ms;
  int64_t requests;
  double mean_batch = 0, exec_ms = 0;  // the server's ModelStatistics over the case
};

// What ModelStatistics says of `model` so far: requests, executions, execution ns.
struct ServerStats {
  uint64_t requests = 0, executions = 0, compute_ns = 0;
};

ServerStats Stats(const std::string& target, const std::string& model) {
  auto stub = inference::GRPCInferenceService::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  inference::ModelStatisticsRequest req;
  req.set_name(model);
  inference::ModelStatisticsResponse resp;
  grpc::Status s = stub->ModelStatistics(&ctx, req, &resp);
  if (!s.ok() || resp.model_stats_size() == 0) return {};
  const inference::ModelStatistics& m = resp.model_stats(0);
  return {m.inference_count(), m.execution_count(), m.inference_stats().compute_infer().ns()};
}

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// NAME and NAME_batched in `root`, both on <models>/NAME.onnx.
void AddModel(const fs::path& root, const fs::path& models, const Model& m, const std::string& device,
              int64_t queue_delay_us, int instances) {
  std::string dims;
  for (int64_t d : m.dims) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  const std::string config = "max_batch_size: 32\ninput [ { name: \"" + m.input + "\" data_type: TYPE_FP32 dims: [ " +
                             dims + " ] } ]\ninstance_group [ { kind: " + (device == "gpu" ? "KIND_GPU" : "KIND_CPU") +
                             (instances > 0 ? " count: " + std::to_string(instances) : std::string()) + " } ]\n";
  for (const std::string& name : {m.name, m.name + "_batched"}) {
    fs::create_directories(root / name / "1");
    fs::copy_file(models / (m.name + ".onnx"), root / name / "1" / "model.onnx");
    Write(root / name / "config.pbtxt",
          config + (name == m.name ? ""
                                   : "dynamic_batching { max_queue_delay_microseconds: " +
                                         std::to_string(queue_delay_us) + " }\n"));
  }
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

inference::ModelInferRequest Request(const std::string& model, const Model& m) {
  inference::ModelInferRequest req;
  req.set_model_name(model);
  auto* in = req.add_inputs();
  in->set_name(m.input);
  in->set_datatype("FP32");
  in->add_shape(1);
  int64_t n = 1;
  for (int64_t d : m.dims) {
    in->add_shape(d);
    n *= d;
  }
  std::vector<float> data(n);
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
  req.add_raw_input_contents(std::string(reinterpret_cast<const char*>(data.data()), n * sizeof(float)));
  return req;
}

// One call on a client's channel: false when it failed (after saying why).
using Call = std::function<bool()>;
using MakeCall = std::function<Call(const std::shared_ptr<grpc::Channel>&)>;

// `concurrency` clients, each on a channel (and connection) of its own, calling for
// `budget_s` seconds after three warm-up calls each. The latencies in ms, and the
// elapsed seconds.
std::pair<std::vector<double>, double> Drive(const std::string& target, int concurrency, double budget_s,
                                             const MakeCall& make_call) {
  std::vector<std::vector<double>> latencies(concurrency);
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  Clock::time_point start, end;
  std::atomic<bool> go{false};
  for (int t = 0; t < concurrency; ++t) {
    threads.emplace_back([&, t] {
      grpc::ChannelArguments args;
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own
      args.SetMaxReceiveMessageSize(64 << 20);
      Call call = make_call(grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
      for (int i = 0; i < 3 && !failed; ++i) {
        if (!call()) failed = true;  // warm: connection, first runs
      }
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      while (Clock::now() < end && !failed) {
        auto t0 = Clock::now();
        if (!call()) failed = true;
        latencies[t].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
    });
  }
  while (ready.load() < concurrency) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  start = Clock::now();
  end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget_s));
  go = true;
  for (auto& th : threads) th.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (failed) std::exit(1);
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  return {std::move(all), elapsed};
}

MakeCall InferCall(const std::string& model, const Model& m) {
  auto req = std::make_shared<const inference::ModelInferRequest>(Request(model, m));
  return [req, model](const std::shared_ptr<grpc::Channel>& channel) -> Call {
    std::shared_ptr<inference::GRPCInferenceService::Stub> stub = inference::GRPCInferenceService::NewStub(channel);
    return [req, model, stub] {
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
      inference::ModelInferResponse resp;
      grpc::Status s = stub->ModelInfer(&ctx, *req, &resp);
      if (!s.ok()) std::fprintf(stderr, "serving_bench: ModelInfer %s: %s\n", model.c_str(), s.error_message().c_str());
      return s.ok();
    };
  };
}

// DiagnosticsService/Echo of 8 bytes, answered on the server's gRPC thread: the floor.
Call EchoCall(const std::shared_ptr<grpc::Channel>& channel) {
  std::shared_ptr<v1::DiagnosticsService::Stub> stub = v1::DiagnosticsService::NewStub(channel);
  return [stub] {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    v1::EchoRequest req;
    req.set_payload("12345678");
    v1::EchoResponse resp;
    grpc::Status s = stub->Echo(&ctx, req, &resp);
    if (!s.ok()) std::fprintf(stderr, "serving_bench: Echo: %s\n", s.error_message().c_str());
    return s.ok();
  };
}

Row RunCase(const std::string& target, const Model& m, bool batching, int concurrency, double budget_s) {
  const std::string model = batching ? m.name + "_batched" : m.name;
  const ServerStats before = Stats(target, model);
  auto [all, elapsed] = Drive(target, concurrency, budget_s, InferCall(model, m));
  const ServerStats after = Stats(target, model);
  Row row{m.name, batching, concurrency, static_cast<double>(all.size()) / elapsed, Percentile(all, 0.5),
          Percentile(all, 0.99), static_cast<int64_t>(all.size())};
  if (after.executions > before.executions) {
    const double executions = static_cast<double>(after.executions - before.executions);
    row.mean_batch = static_cast<double>(after.requests - before.requests) / executions;
    row.exec_ms = static_cast<double>(after.compute_ns - before.compute_ns) / executions * 1e-6;
  }
  return row;
}

// p50s (ms) of the echo and of `m`'s ModelInfer at concurrency 1, measured in
// alternating rounds of budget_s / rounds seconds each, so that both see the same
// machine: loopback latency on a shared VM drifts by tens of percent within a minute.
std::pair<double, double> EchoAndInferP50(const std::string& target, const Model& m, double budget_s, int rounds) {
  std::vector<double> echo, infer;
  const MakeCall infer_call = InferCall(m.name, m);
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> e = Drive(target, 1, budget_s / rounds, EchoCall).first;
    std::vector<double> i = Drive(target, 1, budget_s / rounds, infer_call).first;
    echo.insert(echo.end(), e.begin(), e.end());
    infer.insert(infer.end(), i.begin(), i.end());
  }
  return {Percentile(echo, 0.5), Percentile(infer, 0.5)};
}

}  // namespace
}  // namespace graphd::bench

int main(int argc, char** argv) {
  using namespace graphd::bench;
  std::string server = ExecutableDir() + "/graphd";
  std::string models = "build/bench/models";
  std::string csv;
  double budget_s = 3;
  std::vector<int> concurrency = {1, 8, 32};
  std::vector<std::string> only;
  std::string device = "cpu";
  int64_t queue_delay_us = 1000;
  int instances = 0;
  CLI::App app("graphd serving benchmark (KServe v2 ModelInfer)", "serving_bench");
  app.add_option("--server", server, "graphd binary")->capture_default_str();
  app.add_option("--models", models, "Directory of exported mlp.onnx and resnet18.onnx")->capture_default_str();
  app.add_option("--budget-s", budget_s, "Seconds of requests per case")->capture_default_str();
  app.add_option("--concurrency", concurrency, "Concurrent clients per case")->delimiter(',');
  app.add_option("--csv", csv, "CSV output path");
  app.add_option("--only", only, "Run only these models (mlp, resnet18)")->delimiter(',');
  app.add_option("--device", device, "Where the models run: cpu or gpu (instance_group kind)")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
  app.add_option("--queue-delay-us", queue_delay_us, "max_queue_delay_microseconds of the batched models")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000}))
      ->capture_default_str();
  app.add_option("--instances", instances, "instance_group count: executions of a model at once")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::vector<Model> cases;
  for (const Model& m : std::vector<Model>{{"mlp", "input", {256}}, {"resnet18", "input", {3, 224, 224}}}) {
    if (only.empty() || std::find(only.begin(), only.end(), m.name) != only.end()) cases.push_back(m);
  }
  char tmpl[] = "/tmp/graphd-serving-bench-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const fs::path root = tmpl;
  for (const Model& m : cases) AddModel(root, models, m, device, queue_delay_us, instances);
  auto proc = ServerProcess::Start(server, {"--model-repository", root.string()});
  Check(proc.status(), "start graphd");
  std::vector<Row> rows;
  for (const Model& m : cases) {
    for (bool batching : {false, true}) {
      for (int c : concurrency) rows.push_back(RunCase((*proc)->target(), m, batching, c, budget_s));
    }
  }
  std::pair<double, double> echo_mlp{0, 0};  // p50 ms of the echo and the MLP, alternating
  const bool mlp_at_1 = std::find(concurrency.begin(), concurrency.end(), 1) != concurrency.end();
  if (mlp_at_1 && !cases.empty() && cases.front().name == "mlp") {
    echo_mlp = EchoAndInferP50((*proc)->target(), cases.front(), 2 * budget_s, 10);
  }
  proc->reset();
  fs::remove_all(root);

  std::printf("\nServing through KServe v2 ModelInfer on the %s (batch-1 requests, raw contents), %.0f s per case, "
              "batching delay %lld us, instances %s\n",
              device == "gpu" ? "GPU" : "CPU", budget_s, static_cast<long long>(queue_delay_us),
              instances > 0 ? std::to_string(instances).c_str() : "(server default)");
  std::printf("%-9s %-8s %5s %10s %9s %9s %8s %6s %8s\n", "model", "batching", "conc", "req/s", "p50 ms", "p99 ms",
              "requests", "batch", "exec ms");
  for (const Row& r : rows) {
    std::printf("%-9s %-8s %5d %10.1f %9.3f %9.3f %8lld %6.1f %8.3f\n", r.model.c_str(), r.batching ? "on" : "off",
                r.concurrency, r.rps, r.p50_ms, r.p99_ms, static_cast<long long>(r.requests), r.mean_batch, r.exec_ms);
  }
  auto find = [&](const std::string& model, bool batching, int c) -> const Row* {
    for (const Row& r : rows) {
      if (r.model == model && r.batching == batching && r.concurrency == c) return &r;
    }
    return nullptr;
  };
  if (echo_mlp.first > 0) {
    std::printf("MLP ModelInfer p50 at concurrency 1 / gRPC echo p50, 10 alternating rounds of %.1f s each: "
                "%.3f / %.3f ms = %.2f (target <= 1.3)\n",
                2 * budget_s / 10, echo_mlp.second, echo_mlp.first, echo_mlp.second / echo_mlp.first);
  }
  const Row* on = find("resnet18", true, 32);
  const Row* off = find("resnet18", false, 32);
  if (on && off) {
    std::printf("ResNet-18 req/s at concurrency 32, batching on / off: %.2f (target >= 1.5)\n", on->rps / off->rps);
  }
  if (!csv.empty()) {
    std::ofstream out(csv);
    out << "model,batching,concurrency,requests_per_s,p50_ms,p99_ms,requests,mean_batch,exec_ms\n";
    for (const Row& r : rows) {
      out << r.model << "," << (r.batching ? "on" : "off") << "," << r.concurrency << "," << r.rps << "," << r.p50_ms
          << "," << r.p99_ms << "," << r.requests << "," << r.mean_batch << "," << r.exec_ms << "\n";
    }
    std::printf("CSV: %s\n", csv.c_str());
  }
  return 0;
}
