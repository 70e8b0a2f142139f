// One inference request against the served models, whatever the transport (KServe v2
// gRPC, HTTP/REST): find the model version, match the inputs by name, run it (through
// its batcher when it batches) and record the request in its statistics.
#ifndef GRAPHD_SERVER_SERVING_INFER_H_
#define GRAPHD_SERVER_SERVING_INFER_H_

#include <functional>
#include <string>
#include <vector>

#include "core/cancellation.h"
#include "core/tensor.h"
#include "server/models/model_manager.h"

namespace graphd::server::serving {

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

struct InferRequest {
  std::string model;
  std::string version;  // "": the highest loaded
  std::string id;       // echoed
  std::vector<NamedTensor> inputs;
  std::vector<std::string> outputs;  // empty: every output, in the model's order
};

struct InferResponse {
  std::string model;
  std::string version;
  std::string id;
  std::vector<NamedTensor> outputs;  // as requested
};

using InferDone = std::function<void(StatusOr<InferResponse>)>;

// Runs `request`; `done` gets the response or the error (NotFound for an unknown model
// or version, Unavailable for one that failed to load, InvalidArgument naming the
// input or output that does not fit), exactly once: before Infer returns, or later
// on a worker thread for a batched model. `token` must outlive that call.
void Infer(const models::ModelManager& models, InferRequest request, const CancellationToken* token, InferDone done);

}  // namespace graphd::server::serving

#endif  // GRAPHD_SERVER_SERVING_INFER_H_
