// GET /metrics (--metrics-listen HOST:PORT): the Prometheus text exposition of the
// server's metrics registry (server/metrics/registry.h), on an HTTP listener of its own
// so that scraping never competes with inference traffic for a port or a thread.
#ifndef GRAPHD_SERVER_SERVICE_METRICS_SERVICE_H_
#define GRAPHD_SERVER_SERVICE_METRICS_SERVICE_H_

#include <memory>
#include <string>
#include <thread>

#include "core/status.h"
#include "server/metrics/registry.h"

namespace httplib {
class Server;
}

namespace graphd::server {

class MetricsService {
 public:
  // `registry` must outlive the service.
  explicit MetricsService(const metrics::Registry& registry);
  ~MetricsService();
  Status Start(const std::string& listen);
  void Stop();  // idempotent
  int port() const { return port_; }

 private:
  const metrics::Registry& registry_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_METRICS_SERVICE_H_
