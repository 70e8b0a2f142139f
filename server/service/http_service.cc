#include "server/service/http_service.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "core/logging.h"
#include "server/audit_log.h"
#include "server/service/http_codec.h"
#include "server/serving/infer.h"
#include "server/version.h"

namespace graphd::server {
namespace {

constexpr char kJson[] = "application/json";
// NAME, then an optional /versions/V.
constexpr char kModel[] = R"(/v2/models/([A-Za-z0-9_.\-]+)(?:/versions/([0-9]+))?)";

void Error(httplib::Response& res, const Status& status) {
  res.status = HttpStatusOf(status);
  res.set_content(HttpErrorJson(status), kJson);
}

// The caller's tenant from its Authorization header (anonymous without tenants).
StatusOr<std::shared_ptr<const v1::Tenant>> Caller(const PooledCall::Env& env, const httplib::Request& req) {
  return tenancy::Authenticate(env.tenants, req.get_header_value("Authorization"));
}

// When the request this thread serves was routed (see the constructor).
thread_local std::chrono::steady_clock::time_point request_started;

std::string Match(const httplib::Request& req, size_t i) {
  return req.matches.size() > i ? std::string(req.matches[i]) : std::string();
}

}  // namespace

StatusOr<int> BindHttp(httplib::Server& http, const std::string& listen, absl::string_view flag) {
  const size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return errors::InvalidArgument(absl::StrCat(flag, " '", listen, "' must be HOST:PORT"));
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const int bound = port == 0 ? http.bind_to_any_port(host) : (http.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    return errors::Unavailable(absl::StrCat("cannot listen on ", listen, " (", flag, "; address in use or invalid?)"));
  }
  return bound;
}

HttpInferenceService::HttpInferenceService(models::ModelManager& models, PooledCall::Env env,
                                           std::function<bool()> ready, int64_t max_body_bytes)
    : models_(models), env_(env), ready_(std::move(ready)), http_(std::make_unique<httplib::Server>()) {
  http_->set_payload_max_length(static_cast<size_t>(max_body_bytes));
  // The audit log (server/audit_log.h): httplib serves a request on one thread, from
  // routing to the logger, which it calls once the response is written.
  http_->set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
    request_started = std::chrono::steady_clock::now();
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http_->set_logger([this](const httplib::Request& req, const httplib::Response& res) { Audit(req, res); });
  Routes();
}

HttpInferenceService::~HttpInferenceService() { Stop(); }

Status HttpInferenceService::Start(const std::string& listen) {
  ASSIGN_OR_RETURN(port_, BindHttp(*http_, listen, "--http-listen"));
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  GRAPHD_LOG_INFO("KServe v2 HTTP/REST on {} (port {})", listen, port_);
  return absl::OkStatus();
}

void HttpInferenceService::Stop() {
  if (!thread_.joinable()) return;
  http_->stop();
  thread_.join();
}

void HttpInferenceService::Audit(const httplib::Request& req, const httplib::Response& res) const {
  const auto started = std::exchange(request_started, std::chrono::steady_clock::time_point());
  if (!AuditLogEnabled()) return;
  auto tenant = Caller(env_, req);
  const std::string method = absl::StrCat(req.method, " ", req.path);
  const std::string peer = absl::StrCat(req.remote_addr, ":", req.remote_port);
  WriteAudit({.protocol = "http",
              .method = method,
              .tenant = tenant.ok() ? absl::string_view((*tenant)->name()) : absl::string_view(),
              .session = Match(req, 1),
              .peer = peer,
              .http_status = res.status,
              .duration_us = started == std::chrono::steady_clock::time_point()
                                 ? 0
                                 : std::chrono::duration_cast<std::chrono::microseconds>(
                                       std::chrono::steady_clock::now() - started)
                                       .count(),
              .request_bytes = static_cast<int64_t>(req.body.size()),
              .response_bytes = static_cast<int64_t>(res.body.size())});
}

void HttpInferenceService::Routes() {
  httplib::Server& h = *http_;
  h.Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  h.Get("/v2/health/ready", [this](const httplib::Request&, httplib::Response& res) {
    res.status = ready_() ? 200 : 503;
  });
  h.Get("/v2", [this](const httplib::Request& req, httplib::Response& res) {
    if (auto tenant = Caller(env_, req); !tenant.ok()) return Error(res, tenant.status());
    res.set_content(ServerMetadataJson(kVersion), kJson);
  });
  h.Get(kModel, [this](const httplib::Request& req, httplib::Response& res) {
    auto tenant = Caller(env_, req);
    if (!tenant.ok()) return Error(res, tenant.status());
    if (Status s = tenancy::MayUseModel(**tenant, Match(req, 1)); !s.ok()) return Error(res, s);
    auto model = models_.Find(Match(req, 1), Match(req, 2));
    if (!model.ok()) return Error(res, model.status());
    res.set_content(ModelMetadataJson(**model, models_.Versions((*model)->name())), kJson);
  });
  h.Get(std::string(kModel) + "/ready", [this](const httplib::Request& req, httplib::Response& res) {
    auto tenant = Caller(env_, req);
    if (!tenant.ok()) return Error(res, tenant.status());
    auto model = models_.Find(Match(req, 1), Match(req, 2));
    if (!model.ok()) return Error(res, model.status().code() == absl::StatusCode::kNotFound
                                           ? errors::InvalidArgument(model.status().message())
                                           : model.status());
    res.status = ready_() ? 200 : 503;
  });
  h.Post(std::string(kModel) + "/infer", [this](const httplib::Request& req, httplib::Response& res) {
    auto tenant = Caller(env_, req);
    if (!tenant.ok()) return Error(res, tenant.status());
    if (Status s = tenancy::MayUseModel(**tenant, Match(req, 1)); !s.ok()) return Error(res, s);
    if (!env_.gate.TryEnter()) return Error(res, errors::Unavailable("the server is shutting down"));
    std::optional<size_t> header_length;
    if (req.has_header("Inference-Header-Content-Length")) {
      size_t n = 0;
      if (!absl::SimpleAtoi(req.get_header_value("Inference-Header-Content-Length"), &n)) {
        env_.gate.Exit();
        return Error(res, errors::InvalidArgument("Inference-Header-Content-Length is not a number"));
      }
      header_length = n;
    }
    auto parsed = ParseHttpInfer(Match(req, 1), Match(req, 2), req.body, header_length);
    if (!parsed.ok()) {
      env_.gate.Exit();
      return Error(res, parsed.status());
    }
    // On the worker pool, as every call; this HTTP thread waits.
    CancellationToken token;
    absl::Notification done;
    StatusOr<serving::InferResponse> result = errors::Internal("no result");
    env_.pool.Schedule([&] {
      serving::Infer(models_, std::move(parsed->request), &token, [&](StatusOr<serving::InferResponse> r) {
        result = std::move(r);
        done.Notify();
      });
    });
    done.WaitForNotification();
    env_.gate.Exit();
    if (!result.ok()) return Error(res, result.status());
    HttpBody body = EncodeHttpInfer(*result, *parsed);
    if (body.header_length) res.set_header("Inference-Header-Content-Length", std::to_string(*body.header_length));
    res.set_content(std::move(body.body), body.content_type.c_str());
  });
  h.Post("/v2/repository/index", [this](const httplib::Request& req, httplib::Response& res) {
    if (auto tenant = Caller(env_, req); !tenant.ok()) return Error(res, tenant.status());
    std::string json = "[";
    for (const models::ModelIndexEntry& e : models_.Index()) {
      if (json.size() > 1) json += ",";
      json += nlohmann::json{{"name", e.name}, {"version", e.version > 0 ? absl::StrCat(e.version) : ""},
                             {"state", e.state}, {"reason", e.reason}}
                  .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    res.set_content(json + "]", kJson);
  });
  h.Post(R"(/v2/repository/models/([A-Za-z0-9_.\-]+)/(load|unload))",
         [this](const httplib::Request& req, httplib::Response& res) {
           if (auto tenant = Caller(env_, req); !tenant.ok()) return Error(res, tenant.status());
           Status s = Match(req, 2) == "load" ? models_.Load(Match(req, 1)) : models_.Unload(Match(req, 1));
           if (!s.ok()) return Error(res, s);
           res.set_content("{}", kJson);
         });
}

}  // namespace graphd::server
