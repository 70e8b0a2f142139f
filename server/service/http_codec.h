// The KServe v2 HTTP/REST JSON forms (inference request and response, server and model
// metadata), with the binary-data extension: a body that starts with a JSON header of
// Inference-Header-Content-Length bytes followed by the raw bytes of the inputs whose
// parameters give binary_data_size, in order (and the same for outputs asked for with
// binary_data, or all outputs with the request parameter binary_data_output).
//
// JSON "data" is row-major, flat or nested as the shape; numbers must be of the
// datatype (integers in range, booleans for BOOL, strings for BYTES). Checks happen
// before allocation (v2_tensor.h); the JSON header itself is bounded by
// kMaxJsonHeaderBytes (larger tensors belong in binary data).
#ifndef GRAPHD_SERVER_SERVICE_HTTP_CODEC_H_
#define GRAPHD_SERVER_SERVICE_HTTP_CODEC_H_

#include <optional>
#include <string>

#include "core/status.h"
#include "server/models/served_model.h"
#include "server/serving/infer.h"

namespace graphd::server {

inline constexpr size_t kMaxJsonHeaderBytes = 16 << 20;

struct HttpInferRequest {
  serving::InferRequest request;
  // The outputs to send as binary data (by name), or all of them.
  std::vector<std::string> binary_outputs;
  bool all_binary = false;
};

// Parses an infer request for `model`/`version` from `body`; `header_length` is the
// Inference-Header-Content-Length header (none: the whole body is JSON).
StatusOr<HttpInferRequest> ParseHttpInfer(std::string model, std::string version, absl::string_view body,
                                          std::optional<size_t> header_length);

struct HttpBody {
  std::string body;
  std::string content_type;
  std::optional<size_t> header_length;  // set when binary data follows the JSON
};
HttpBody EncodeHttpInfer(const serving::InferResponse& response, const HttpInferRequest& request);

// {"error": message}.
std::string HttpErrorJson(const Status& status);
// The HTTP status of an error: 400, 404, 503, 500...
int HttpStatusOf(const Status& status);

std::string ServerMetadataJson(absl::string_view version);
std::string ModelMetadataJson(const models::ServedModel& model, const std::vector<int64_t>& versions);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_HTTP_CODEC_H_
