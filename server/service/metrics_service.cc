#include "server/service/metrics_service.h"

#include <httplib.h>

#include "core/logging.h"
#include "server/service/http_service.h"

namespace graphd::server {

MetricsService::MetricsService(const metrics::Registry& registry)
    : registry_(registry), http_(std::make_unique<httplib::Server>()) {
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(registry_.Expose(), "text/plain; version=0.0.4; charset=utf-8");
  });
}

MetricsService::~MetricsService() { Stop(); }

Status MetricsService::Start(const std::string& listen) {
  ASSIGN_OR_RETURN(port_, BindHttp(*http_, listen, "--metrics-listen"));
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  GRAPHD_LOG_INFO("Prometheus metrics on {} (port {}) at /metrics", listen, port_);
  return absl::OkStatus();
}

void MetricsService::Stop() {
  if (!thread_.joinable()) return;
  http_->stop();
  thread_.join();
}

}  // namespace graphd::server
