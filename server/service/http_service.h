// The KServe v2 HTTP/REST endpoints (--http-listen) over the served models:
//
//   GET  /v2/health/live, /v2/health/ready          200, or 503 when not ready
//   GET  /v2                                          server metadata
//   GET  /v2/models/NAME[/versions/V]                 model metadata
//   GET  /v2/models/NAME[/versions/V]/ready           200, or 400 with the reason
//   POST /v2/models/NAME[/versions/V]/infer           inference (http_codec.h)
//   POST /v2/repository/index                         Triton's repository extension
//   POST /v2/repository/models/NAME/load|unload
//
// Errors are {"error": "..."} with a 4xx/5xx status (http_codec.h HttpStatusOf).
// Inference runs on the worker pool like gRPC calls; while the server drains, new
// requests get 503. Request bodies are bounded by --max-message-bytes.
#ifndef GRAPHD_SERVER_SERVICE_HTTP_SERVICE_H_
#define GRAPHD_SERVER_SERVICE_HTTP_SERVICE_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/status.h"
#include "server/models/model_manager.h"
#include "server/service/pooled_call.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}

namespace graphd::server {

class HttpInferenceService {
 public:
  // What the arguments refer to must outlive the service.
  HttpInferenceService(models::ModelManager& models, PooledCall::Env env, std::function<bool()> ready,
                       int64_t max_body_bytes);
  ~HttpInferenceService();

  // Binds `listen` (HOST:PORT; port 0 picks one) and serves on a thread of its own.
  // Unavailable when it cannot bind.
  Status Start(const std::string& listen);
  // Stops serving (requests running finish first). Idempotent.
  void Stop();
  int port() const { return port_; }

 private:
  void Routes();
  // Writes the audit line of a request served (server/audit_log.h).
  void Audit(const httplib::Request& req, const httplib::Response& res) const;

  models::ModelManager& models_;
  const PooledCall::Env env_;
  const std::function<bool()> ready_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

// Binds `http` to `listen` ("HOST:PORT", port 0: any) and returns the port.
StatusOr<int> BindHttp(httplib::Server& http, const std::string& listen, absl::string_view flag);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_HTTP_SERVICE_H_
