// graphctl: command-line client for graphd.
//   graphctl health  [--target HOST:PORT] [--service NAME]   exit 0 when SERVING
//   every command: [--token T] [--tls-roots PEM] [--tls-key PEM --tls-cert PEM] (grpcs:// targets: TLS)
//   graphctl devices [--target HOST:PORT]
//   graphctl graph   --session S --function F [--module N] [--format dot|svg] [--index I] [-o FILE]
//   graphctl models  [--target HOST:PORT]            the model repository: name, version, state
//   graphctl load NAME / graphctl unload NAME         (--model-control-mode=explicit)
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "CLI/CLI.hpp"
#include "clients/cpp/graphctl_graph.h"
#include "clients/cpp/graphd_client.h"

namespace {

int Fail(const absl::Status& s, const std::string& target) {
  std::fprintf(stderr, "graphctl: %s: %s\n", target.c_str(), std::string(s.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("graphctl: command-line client for the graphd server", "graphctl");
  app.require_subcommand(1);
  std::string target = "127.0.0.1:50051";
  int timeout_ms = 5000;
  app.add_option("--target", target, "Server address, HOST:PORT or grpc://HOST:PORT")
      ->envname("GRAPHD_TARGET")->capture_default_str();
  app.add_option("--timeout-ms", timeout_ms, "Deadline per call")->capture_default_str();
  graphd::client::ClientOptions options;
  std::string root_file, key_file, cert_file;
  app.add_option("--token", options.token, "The tenant's bearer token")->envname("GRAPHD_TOKEN");
  app.add_option("--tls-roots", root_file, "PEM roots to verify the server with (implies TLS; default: the system's)")
      ->envname("GRAPHD_TLS_ROOTS");
  app.add_option("--tls-key", key_file, "PEM client key for mutual TLS")->envname("GRAPHD_TLS_KEY");
  app.add_option("--tls-cert", cert_file, "PEM client certificate chain for mutual TLS")->envname("GRAPHD_TLS_CERT");

  std::string service;
  auto* health = app.add_subcommand("health", "Ask the health service; exit 0 when SERVING");
  health->add_option("--service", service, "Health service name (\"\" or readiness)");
  auto* devices = app.add_subcommand("devices", "List the server's devices");
  graphd::client::GraphCommand graph_cmd;
  auto* graph = app.add_subcommand("graph", "Print a concrete function's graph as DOT, or render it to SVG");
  graph->add_option("--session", graph_cmd.session, "Session handle")->required();
  graph->add_option("--function", graph_cmd.function, "Source function, or a graph loaded with LoadGraph")
      ->required();
  graph->add_option("--module", graph_cmd.module_id, "Module id (default: the latest defining the function)");
  graph->add_option("--format", graph_cmd.format, "dot or svg (svg runs Graphviz's dot)")->capture_default_str();
  graph->add_option("--index", graph_cmd.index, "Which concrete function (signature), 0-based")
      ->capture_default_str();
  graph->add_option("-o,--output", graph_cmd.output, "Write to FILE instead of stdout");
  auto* models = app.add_subcommand("models", "List the served models: name, version, state (and why not READY)");
  std::string model_name;
  auto* load = app.add_subcommand("load", "Load (or reload) a model of the repository (explicit control mode)");
  load->add_option("name", model_name, "Model name")->required();
  auto* unload = app.add_subcommand("unload", "Unload a model (explicit control mode)");
  unload->add_option("name", model_name, "Model name")->required();
  for (auto* sub : {health, devices, graph, models, load, unload}) {
    sub->add_option("--target", target, "Server address")->envname("GRAPHD_TARGET");
    sub->add_option("--token", options.token, "The tenant's bearer token");
    sub->add_option("--tls-roots", root_file, "PEM roots (implies TLS)");
    sub->add_option("--tls-key", key_file, "PEM client key (mutual TLS)");
    sub->add_option("--tls-cert", cert_file, "PEM client certificate chain (mutual TLS)");
  }
  CLI11_PARSE(app, argc, argv);

  options.timeout = std::chrono::milliseconds(timeout_ms);
  for (auto [path, out] : {std::pair{&root_file, &options.root_certificates}, std::pair{&key_file, &options.private_key},
                           std::pair{&cert_file, &options.certificate_chain}}) {
    if (path->empty()) continue;
    std::ifstream in(*path);
    if (!in) {
      std::fprintf(stderr, "graphctl: cannot read %s\n", path->c_str());
      return 2;
    }
    out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    options.tls = true;
  }
  graphd::client::Client client(target, options);
  if (health->parsed()) {
    auto status = client.Health(service);
    if (!status.ok()) return Fail(status.status(), target);
    std::printf("%s\n", status->c_str());
    return *status == "SERVING" ? 0 : 1;
  }
  if (graph->parsed()) {
    auto status = graphd::client::RunGraphCommand(client, graph_cmd);
    return status.ok() ? 0 : Fail(status, target);
  }
  if (load->parsed() || unload->parsed()) {
    absl::Status status = load->parsed() ? client.LoadModel(model_name) : client.UnloadModel(model_name);
    if (!status.ok()) return Fail(status, target);
    std::printf("%s %s\n", model_name.c_str(), load->parsed() ? "loaded" : "unloaded");
    return 0;
  }
  if (models->parsed()) {
    auto index = client.RepositoryIndex();
    if (!index.ok()) return Fail(index.status(), target);
    std::printf("%-32s %-8s %-12s %s\n", "NAME", "VERSION", "STATE", "REASON");
    for (const auto& m : index->models()) {
      std::printf("%-32s %-8s %-12s %s\n", m.name().c_str(), m.version().empty() ? "-" : m.version().c_str(),
                  m.state().c_str(), m.reason().c_str());
    }
    return 0;
  }
  auto list = client.ListDevices();
  if (!list.ok()) return Fail(list.status(), target);
  std::printf("%-16s %-5s %14s  %s\n", "NAME", "TYPE", "MEMORY", "DESCRIPTION");
  for (const auto& d : *list) {
    std::printf("%-16s %-5s %11.1f GiB  %s\n", d.name().c_str(), d.device_type().c_str(),
                static_cast<double>(d.memory_limit()) / (1 << 30), d.description().c_str());
  }
  return 0;
}
