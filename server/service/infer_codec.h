// KServe v2 tensors (inference.ModelInferRequest/Response) to and from graphd
// Tensors. Everything is checked before anything is allocated: names, datatypes,
// shapes (rank, non-negative dims, the element count against --max-tensor-bytes),
// and contents: typed (the field of the datatype, with one value per element) or raw
// (raw_input_contents: one entry per input, its byte count exactly the tensor's;
// BYTES elements as 4-byte little-endian lengths and their bytes), never both.
#ifndef GRAPHD_SERVER_SERVICE_INFER_CODEC_H_
#define GRAPHD_SERVER_SERVICE_INFER_CODEC_H_

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "graphd/kserve/grpc_service.pb.h"
#include "server/serving/infer.h"

namespace graphd::server {

using serving::NamedTensor;

// The request's inputs, in request order. InvalidArgument naming the input.
StatusOr<std::vector<NamedTensor>> InferInputsFromProto(const inference::ModelInferRequest& request);

// The transport-free request: the inputs as above, the requested outputs' names.
StatusOr<serving::InferRequest> InferRequestFromProto(const inference::ModelInferRequest& request);

// Adds output `name` to `response` (its elements as raw_output_contents). Host tensors
// of a v2 datatype only (InvalidArgument otherwise).
Status AddInferOutput(const std::string& name, const Tensor& tensor, inference::ModelInferResponse* response);
// `response` as the proto (outputs as raw contents).
Status InferResponseToProto(const serving::InferResponse& response, inference::ModelInferResponse* out);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_INFER_CODEC_H_
