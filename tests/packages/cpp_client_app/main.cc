// Uses the installed graphd C++ client: echo, then a session with z = x * x run once.
//   client_app HOST:PORT     prints "echo=... z=..." and exits 0, or the error and 1
#include <cstdio>
#include <cstring>
#include <string>

#include "graphd/client/graphd_client.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: client_app HOST:PORT\n");
    return 2;
  }
  graphd::client::Client client(argv[1]);
  auto echo = client.Echo("from an installed client");
  if (!echo.ok()) {
    std::fprintf(stderr, "Echo: %s\n", echo.status().ToString().c_str());
    return 1;
  }
  graphd::v1::GraphDef graph;
  auto* x = graph.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(graphd::v1::DT_FLOAT);
  (*x->mutable_attr())["shape"].mutable_shape();  // a scalar
  auto* z = graph.add_node();
  z->set_name("z");
  z->set_op("Mul");
  z->add_input("x");
  z->add_input("x");
  auto session = client.CreateSession(graph);
  if (!session.ok()) {
    std::fprintf(stderr, "CreateSession: %s\n", session.status().ToString().c_str());
    return 1;
  }
  graphd::v1::RunRequest run;
  run.set_session_handle(session->session_handle());
  auto* feed = run.add_feed();
  feed->set_name("x");
  const float three = 3.0f;
  feed->mutable_tensor()->set_dtype(graphd::v1::DT_FLOAT);
  feed->mutable_tensor()->set_content(&three, sizeof(three));
  run.add_fetch("z");
  auto result = client.Run(run);
  if (!result.ok()) {
    std::fprintf(stderr, "Run: %s\n", result.status().ToString().c_str());
    return 1;
  }
  float value = -1.0f;
  const std::string& content = result->tensor(0).tensor().content();
  if (content.size() == sizeof(value)) std::memcpy(&value, content.data(), sizeof(value));
  (void)client.CloseSession(session->session_handle());
  std::printf("echo=%s z=%g\n", echo->c_str(), value);
  return 0;
}
