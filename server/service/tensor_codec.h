// graphd.v1.TensorProto / DataType / TensorShape <-> core types.
#ifndef GRAPHD_SERVER_SERVICE_TENSOR_CODEC_H_
#define GRAPHD_SERVER_SERVICE_TENSOR_CODEC_H_

#include "core/tensor.h"
#include "graphd/v1/tensor.pb.h"

namespace graphd::server {

StatusOr<DType> DTypeFromProto(v1::DataType dtype);
v1::DataType DTypeToProto(DType dtype);
// A shape with -1 dims / unknown rank allowed.
StatusOr<PartialShape> PartialShapeFromProto(const v1::TensorShape& shape);
void PartialShapeToProto(const PartialShape& shape, v1::TensorShape* out);

// Checks dtype, dims (no negatives, no int64 overflow) and that `content` (or
// string_val) holds exactly the elements the shape calls for. `what` names the tensor
// in error messages ("feed 'x:0'", "node 'c' attribute 'value'").
StatusOr<Tensor> TensorFromProto(const v1::TensorProto& proto, absl::string_view what);
void TensorToProto(const Tensor& tensor, v1::TensorProto* out);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_TENSOR_CODEC_H_
