// graphd GraphDefs (with their function libraries) through the real server, both ways
// a client sends one: LoadGraph (a function: import, passes, planning, a call with
// zeros) and a TF1 session (ExtendSession, then Run fetching the last node). The input
// is a serialized graphd.v1.GraphDef.
#include <cstddef>
#include <cstdint>

#include "graphd/v1/graph.pb.h"
#include "tests/fuzz/fuzz_server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphd;
  using namespace graphd::fuzz;
  static int64_t inputs = 0;
  v1::GraphDef graph;
  if (!graph.ParseFromArray(data, static_cast<int>(size))) return -1;
  FuzzServer& server = FuzzServer::Get();
  const std::string last = graph.node_size() > 0 ? graph.node(graph.node_size() - 1).name() : "";

  v1::LoadGraphRequest load;
  *load.mutable_graph_def() = graph;
  if (!last.empty()) load.add_output_names(last);
  LoadAndCallGraph(std::move(load));

  server.Renew();  // a session of its own: ExtendSession adds to the session's graph
  v1::ExtendSessionRequest extend;
  extend.set_session_handle(server.Session());
  *extend.mutable_graph_def() = std::move(graph);
  v1::ExtendSessionResponse extended;
  if (server.Call("/graphd.v1.SessionService/ExtendSession", extend, &extended).ok() && !last.empty()) {
    v1::RunRequest run;
    run.set_session_handle(extend.session_handle());
    run.add_fetch(last);
    server.Call("/graphd.v1.SessionService/Run", run, nullptr);
  }
  server.Renew();
  if (++inputs % 64 == 0) server.CheckAlive();
  return 0;
}
