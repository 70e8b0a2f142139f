// graphd side of the model benchmark (issue 5, benchmarks 4 and 5), through the real
// server and the generated C++ gRPC stubs (LoadGraph / CallGraph), so that client
// overhead is a protobuf copy and one unary call.
//
//   model_bench --models build/bench/models --case mlp:1 --case resnet18:16 [--budget-s 3]
//   model_bench --models build/bench/models --memory [--idle-sessions 100] [--copies 10]
//   model_bench --models DIR --case resnet50:64 --device gpu   (issue 6: bench/gpu/)
//
// Any model exported into --models (<name>.onnx + <name>.json) can be named in --case.
// --device is the session option every session opened here asks for ("cpu" or "gpu");
// a server that cannot honour it fails CreateSession, and that error is printed.
//
// Latency mode prints the p50 of a raw gRPC echo ({"echo_p50_us"}), then one JSON
// object per case on stdout:
//   {"model", "batch", "device", "median_us", "mean_us", "p90_us", "execute_us",
//    "execute_p10_us", "server_total_us", "iters", "checksum"}
// median_us is the end-to-end CallGraph latency seen by the client; execute_us the
// median of the server's own CallGraphResponse.metadata.execute_us (execute_p10_us its
// 10th percentile: on a shared, noisy host the steadier figure for comparing two
// builds run one after the other), server_total_us
// the median of its total_us (from the handler's start, after the request was parsed,
// to the response being ready: e2e minus this is the client, the wire and the codecs). The input is the
// benchmark's fixed pattern (element i = ((i * 7919) % 1000) / 500 - 1), the same as
// bench/ort/ort_bench.js and bench/models/torch_bench.py use, so checksums (the sum of
// the outputs) can be compared.
//
// The client process takes the server's malloc setting (server/malloc_tuning.h: no
// fresh mmap per large block; --client-malloc=default keeps glibc's): gRPC serialises
// each request into new buffers, and a 38.5 MB one (ResNet batch 64) page-faulted in
// from a new mapping on every call costs more than sending it.
//
// --profile: after the timed calls, `--profile-calls` traced calls (RunOptions.trace);
// the case's JSON object then has "profile": [{"op", "us", "percent", "nodes"}], the
// mean time per call of each op type's steps, largest first ("percent" of the summed
// step time); with --profile-nodes N also "slowest_nodes": [{"node", "op", "us"}], the N
// nodes of largest median time over those calls.
//
// Memory mode starts fresh servers and prints one JSON object with the server's RSS
// (VmRSS, KiB): idle; after `--idle-sessions` empty sessions; with the model loaded
// and called once in one session; and in `--copies` sessions.
#include <grpcpp/grpcpp.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/server_process.h"
#include "graphd/v1/diagnostics.grpc.pb.h"
#include "graphd/v1/session.grpc.pb.h"

namespace graphd::bench {
namespace {

constexpr auto kCallTimeout = std::chrono::seconds(120);

// The server of the measurement in progress (RunningServer below), or null.
ServerProcess* running_server = nullptr;

// Stops the running server first: std::exit runs no destructors, and an orphaned graphd
// would live on and keep the caller's stdout/stderr pipes open (a driver waiting for
// them, like bench/gpu/run_gpu_bench.py, would hang until its timeout).
[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "model_bench: %s\n", what.c_str());
  if (running_server != nullptr) {
    ServerProcess* server = running_server;
    running_server = nullptr;
    delete server;  // SIGTERM, then wait
  }
  std::exit(1);
}

void CheckRpc(const grpc::Status& s, const std::string& what) {
  if (!s.ok()) Fail(what + ": " + std::to_string(s.error_code()) + " " + s.error_message());
}

struct Model {
  std::string name, bytes, input;
  std::vector<int64_t> sample_shape;  // per-sample input shape
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("cannot read " + path + " (run bench/models/export_models.py first)");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// <dir>/<name>.onnx and the {"input": "...", "shape": [..]} written beside it.
Model LoadModel(const std::string& dir, const std::string& name) {
  Model m{name, ReadFile(dir + "/" + name + ".onnx"), "", {}};
  std::string meta = ReadFile(dir + "/" + name + ".json");
  size_t lb = meta.find('['), rb = meta.find(']');
  if (lb == std::string::npos || rb == std::string::npos) Fail("bad " + name + ".json: " + meta);
  std::stringstream dims(meta.substr(lb + 1, rb - lb - 1));
  for (std::string d; std::getline(dims, d, ',');) m.sample_shape.push_back(std::stoll(d));
  return m;
}

v1::TensorProto BenchInput(const Model& m, int batch) {
  v1::TensorProto t;
  t.set_dtype(v1::DT_FLOAT);
  t.mutable_shape()->add_dim(batch);
  int64_t n = batch;
  for (int64_t d : m.sample_shape) {
    t.mutable_shape()->add_dim(d);
    n *= d;
  }
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 500.0f - 1.0f;
  t.set_content(x.data(), x.size() * sizeof(float));
  return t;
}

class Bench {
 public:
  Bench(const std::string& target, std::string device) : device_(std::move(device)) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
    stub_ = v1::SessionService::NewStub(channel);
    diag_ = v1::DiagnosticsService::NewStub(channel);
  }

  std::string CreateSession() {
    v1::CreateSessionRequest req;
    req.mutable_options()->set_device(device_);
    v1::CreateSessionResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    CheckRpc(stub_->CreateSession(&ctx, req, &resp), "CreateSession (device " + device_ + ")");
    return resp.session_handle();
  }

  void LoadGraph(const std::string& session, const Model& m) {
    v1::LoadGraphRequest req;
    req.set_session_handle(session);
    req.set_name(m.name);
    req.set_onnx_model(m.bytes);
    v1::LoadGraphResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    CheckRpc(stub_->LoadGraph(&ctx, req, &resp), "LoadGraph " + m.name);
  }

  // Median of `n` raw gRPC unary echoes (DiagnosticsService/Echo, 8 bytes): the floor of any call.
  double EchoP50(int n) {
    std::vector<double> us;
    for (int i = 0; i < n + n / 10; ++i) {
      v1::EchoRequest req;
      req.set_payload("12345678");
      v1::EchoResponse resp;
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
      auto t0 = std::chrono::steady_clock::now();
      CheckRpc(diag_->Echo(&ctx, req, &resp), "Echo");
      if (i >= n / 10) us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  }

  void CallGraph(const v1::CallGraphRequest& req, v1::CallGraphResponse* resp) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    CheckRpc(stub_->CallGraph(&ctx, req, resp), "CallGraph " + req.name());
  }

 private:
  std::string device_;
  std::unique_ptr<v1::SessionService::Stub> stub_;
  std::unique_ptr<v1::DiagnosticsService::Stub> diag_;
};

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1))];
}

double Mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double Checksum(const v1::CallGraphResponse& resp) {
  if (resp.outputs_size() < 1) Fail("CallGraph returned no outputs");
  const std::string& c = resp.outputs(0).content();
  std::vector<float> y(c.size() / sizeof(float));
  std::memcpy(y.data(), c.data(), y.size() * sizeof(float));
  return std::accumulate(y.begin(), y.end(), 0.0);
}

int64_t RssKiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  Fail("no VmRSS for pid " + std::to_string(pid));
}

// RSS after the server has settled (gRPC threads, allocator) for a moment.
int64_t SettledRss(pid_t pid) {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return RssKiB(pid);
}

struct Options {
  std::string server, models, device = "cpu";
  std::vector<std::string> cases;
  double budget_s = 3;
  int min_iters = 3, max_iters = 2000;
  bool memory = false;
  bool profile = false;
  int profile_calls = 10;
  int profile_nodes = 0;
  int idle_sessions = 100, copies = 10;
  std::string memory_model = "resnet18";
  std::vector<std::string> server_args;  // passed on to the server
};

// A started server, stopped when this goes out of scope or by Fail(). One at a time.
class RunningServer {
 public:
  explicit RunningServer(const Options& o) {
    std::vector<std::string> args{"--max-message-bytes", "1073741824"};
    args.insert(args.end(), o.server_args.begin(), o.server_args.end());
    auto proc = ServerProcess::Start(o.server, args);
    if (!proc.ok()) Fail("starting " + o.server + ": " + std::string(proc.status().message()));
    running_server = proc->release();
  }
  ~RunningServer() {
    delete running_server;
    running_server = nullptr;
  }
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;

  ServerProcess* operator->() const { return running_server; }
};

// The "profile" JSON member (see the file comment) from `calls` traced calls of `req`.
// `s` as a JSON string's contents (node names are the model's own).
std::string JsonEscaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\u%04x", c);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

std::string ProfileJson(Bench& b, v1::CallGraphRequest req, int calls, int top_nodes) {
  req.mutable_options()->set_trace(true);
  struct OpTime {
    double ns = 0;
    std::set<std::string> nodes;
  };
  std::map<std::string, OpTime> by_op;
  std::map<std::string, std::pair<std::string, std::vector<double>>> by_node;  // node -> op, durations (us)
  double all_ns = 0;
  // Per traced call: its execute time and the part of it no node's duration covers
  // (mostly the executor's own work between nodes; nodes that overlap, or a loop's
  // body steps timed inside their node, can make it small or negative).
  std::vector<double> traced_us, between_us;
  for (int i = 0; i < calls; ++i) {
    v1::CallGraphResponse resp;
    b.CallGraph(req, &resp);
    double call_ns = 0;
    for (const v1::NodeTiming& t : resp.metadata().step_stats()) call_ns += static_cast<double>(t.duration_ns());
    traced_us.push_back(static_cast<double>(resp.metadata().execute_us()));
    between_us.push_back(traced_us.back() - call_ns / 1000.0);
    for (const v1::NodeTiming& t : resp.metadata().step_stats()) {
      OpTime& op = by_op[t.op()];
      op.ns += static_cast<double>(t.duration_ns());
      op.nodes.insert(t.node());
      all_ns += static_cast<double>(t.duration_ns());
      auto& node = by_node[t.node()];
      node.first = t.op();
      node.second.push_back(static_cast<double>(t.duration_ns()) / 1000.0);
    }
  }
  std::vector<std::pair<std::string, OpTime>> sorted(by_op.begin(), by_op.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second.ns > y.second.ns; });
  std::string json = ", \"profile\": [";
  for (size_t i = 0; i < sorted.size(); ++i) {
    char item[256];
    std::snprintf(item, sizeof(item), "%s{\"op\": \"%s\", \"us\": %.1f, \"percent\": %.2f, \"nodes\": %zu}",
                  i ? ", " : "", sorted[i].first.c_str(), sorted[i].second.ns / calls / 1000.0,
                  all_ns > 0 ? 100.0 * sorted[i].second.ns / all_ns : 0.0, sorted[i].second.nodes.size());
    json += item;
  }
  char traced[160];
  std::snprintf(traced, sizeof(traced), "], \"traced_execute_us\": %.1f, \"between_nodes_us\": %.1f",
                Percentile(traced_us, 0.5), Percentile(between_us, 0.5));
  json += traced;
  if (top_nodes <= 0) return json;
  std::vector<std::pair<double, std::string>> medians;
  for (const auto& [name, node] : by_node) medians.emplace_back(Percentile(node.second, 0.5), name);
  std::sort(medians.begin(), medians.end(), std::greater<>());
  json += ", \"slowest_nodes\": [";
  for (size_t i = 0; i < medians.size() && i < static_cast<size_t>(top_nodes); ++i) {
    json += (i ? ", {\"node\": \"" : "{\"node\": \"") + JsonEscaped(medians[i].second) + "\", \"op\": \"" +
            JsonEscaped(by_node[medians[i].second].first) + "\", \"us\": ";
    char us[32];
    std::snprintf(us, sizeof(us), "%.1f}", medians[i].first);
    json += us;
  }
  return json + "]";
}

void RunLatency(const Options& o) {
  RunningServer proc(o);
  Bench b(proc->target(), o.device);
  std::string session = b.CreateSession();
  std::printf("{\"echo_p50_us\": %.1f}\n", b.EchoP50(1000));
  std::vector<std::string> loaded;
  for (const std::string& c : o.cases) {
    size_t colon = c.find(':');
    if (colon == std::string::npos) Fail("--case wants MODEL:BATCH, got " + c);
    std::string name = c.substr(0, colon);
    int batch = std::stoi(c.substr(colon + 1));
    Model m = LoadModel(o.models, name);
    if (std::find(loaded.begin(), loaded.end(), name) == loaded.end()) {
      b.LoadGraph(session, m);
      loaded.push_back(name);
    }
    v1::CallGraphRequest req;
    req.set_session_handle(session);
    req.set_name(name);
    *req.add_inputs() = BenchInput(m, batch);
    v1::CallGraphResponse resp;
    b.CallGraph(req, &resp);  // builds and plans this input signature
    b.CallGraph(req, &resp);
    std::vector<double> e2e, exec, total;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.budget_s);
    while (static_cast<int>(e2e.size()) < o.min_iters ||
           (static_cast<int>(e2e.size()) < o.max_iters && std::chrono::steady_clock::now() < deadline)) {
      auto t0 = std::chrono::steady_clock::now();
      b.CallGraph(req, &resp);
      e2e.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      exec.push_back(static_cast<double>(resp.metadata().execute_us()));
      total.push_back(static_cast<double>(resp.metadata().total_us()));
    }
    std::printf("{\"model\": \"%s\", \"batch\": %d, \"device\": \"%s\", \"median_us\": %.1f, "
                "\"mean_us\": %.1f, \"p90_us\": %.1f, \"execute_us\": %.1f, \"execute_p10_us\": %.1f, "
                "\"server_total_us\": %.1f, "
                "\"iters\": %zu, \"checksum\": %.6g%s}\n",
                name.c_str(), batch, o.device.c_str(), Percentile(e2e, 0.5), Mean(e2e), Percentile(e2e, 0.9),
                Percentile(exec, 0.5), Percentile(exec, 0.1), Percentile(total, 0.5), e2e.size(), Checksum(resp),
                o.profile ? ProfileJson(b, req, o.profile_calls, o.profile_nodes).c_str() : "");
    std::fflush(stdout);
  }
}

void RunMemory(const Options& o) {
  int64_t idle = 0, with_sessions = 0, one_model = 0, many_models = 0, base2 = 0;
  {
    RunningServer proc(o);
    Bench b(proc->target(), o.device);
    idle = SettledRss(proc->pid());
    for (int i = 0; i < o.idle_sessions; ++i) b.CreateSession();
    with_sessions = SettledRss(proc->pid());
  }
  Model m = LoadModel(o.models, o.memory_model);
  v1::CallGraphRequest req;
  req.set_name(m.name);
  *req.add_inputs() = BenchInput(m, 1);
  {
    RunningServer proc(o);
    Bench b(proc->target(), o.device);
    base2 = SettledRss(proc->pid());
    for (int i = 0; i < o.copies; ++i) {
      std::string s = b.CreateSession();
      b.LoadGraph(s, m);
      req.set_session_handle(s);
      v1::CallGraphResponse resp;
      b.CallGraph(req, &resp);  // plans it: prepacked weights exist from here on
      if (i == 0) one_model = SettledRss(proc->pid());
    }
    many_models = SettledRss(proc->pid());
  }
  std::printf("{\"memory\": true, \"idle_kib\": %lld, \"sessions\": %d, \"with_sessions_kib\": %lld, "
              "\"per_session_kib\": %.2f, \"model\": \"%s\", \"model_bytes\": %zu, \"base_kib\": %lld, "
              "\"one_model_kib\": %lld, \"copies\": %d, \"many_models_kib\": %lld, \"ratio\": %.3f}\n",
              static_cast<long long>(idle), o.idle_sessions, static_cast<long long>(with_sessions),
              static_cast<double>(with_sessions - idle) / o.idle_sessions, m.name.c_str(), m.bytes.size(),
              static_cast<long long>(base2), static_cast<long long>(one_model), o.copies,
              static_cast<long long>(many_models), static_cast<double>(many_models) / one_model);
}

}  // namespace
}  // namespace graphd::bench

int main(int argc, char** argv) {
  using namespace graphd::bench;
  Options o;
  o.server = ExecutableDir() + "/graphd";
  o.models = "build/bench/models";
  CLI::App app("graphd model latency and server memory benchmark", "model_bench");
  app.add_option("--server", o.server, "graphd binary")->capture_default_str();
  app.add_option("--models", o.models, "Directory of exported <model>.onnx/.json")->capture_default_str();
  app.add_option("--case", o.cases, "MODEL:BATCH, repeatable (any MODEL exported into --models)");
  app.add_option("--device", o.device, "Session device option for every session opened: cpu or gpu")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_option("--budget-s", o.budget_s, "Seconds of timed calls per case")->capture_default_str();
  app.add_option("--min-iters", o.min_iters, "Fewest timed calls per case")->capture_default_str();
  app.add_option("--max-iters", o.max_iters, "Most timed calls per case")->capture_default_str();
  app.add_flag("--memory", o.memory, "Measure server RSS instead of latency");
  app.add_flag("--profile", o.profile, "Add each case's time per op type, from traced calls (RunOptions.trace)");
  app.add_option("--profile-calls", o.profile_calls, "Traced calls per case for --profile")->capture_default_str();
  app.add_option("--profile-nodes", o.profile_nodes,
                 "With --profile, also list this many slowest nodes (median time over the traced calls)")
      ->capture_default_str();
  app.add_option("--idle-sessions", o.idle_sessions, "Empty sessions for the per-session RSS")->capture_default_str();
  app.add_option("--copies", o.copies, "Sessions loading the memory model")->capture_default_str();
  app.add_option("--memory-model", o.memory_model, "Model loaded in --copies sessions")->capture_default_str();
  app.add_option("--server-arg", o.server_args,
                 "An argument for the server (repeatable), e.g. --server-arg=--disable-passes=conv_layout")
      ->allow_extra_args(false);
  std::string client_malloc = "tuned";
  app.add_option("--client-malloc", client_malloc, "tuned: large blocks from the heap (as the server); default: glibc's")
      ->capture_default_str()
      ->check(CLI::IsMember({"tuned", "default"}));
  CLI11_PARSE(app, argc, argv);
#if defined(__GLIBC__)
  if (client_malloc == "tuned" && mallopt(M_MMAP_MAX, 0) != 1) Fail("mallopt(M_MMAP_MAX, 0) failed");
#endif
  if (o.min_iters < 1 || o.max_iters < o.min_iters) Fail("need 1 <= --min-iters <= --max-iters");
  if (o.profile_calls < 1) Fail("need --profile-calls >= 1");
  if (o.profile_nodes < 0) Fail("need --profile-nodes >= 0");
  if (o.memory) {
    RunMemory(o);
  } else {
    if (o.cases.empty()) Fail("no --case given");
    RunLatency(o);
  }
  return 0;
}
