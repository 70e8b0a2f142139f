// Conversions between ONNX protobuf values and graphd types.
#ifndef GRAPHD_COMPILER_IMPORT_ONNX_TENSOR_PROTO_H_
#define GRAPHD_COMPILER_IMPORT_ONNX_TENSOR_PROTO_H_

#include "core/attr_value.h"
#include "core/tensor.h"
#include "onnx/onnx_pb.h"

namespace graphd::compiler::onnx_import {

// The graphd dtype of an ONNX TensorProto.DataType; InvalidArgument naming the ONNX
// type when graphd has no such dtype (uint16/32/64, complex...).
StatusOr<DType> DTypeFromOnnx(int32_t onnx_type);

// A tensor from an initializer or attribute value (raw_data or the typed fields).
// External data is refused (InvalidArgument) without touching the file system.
StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto);

// The declared shape of a ValueInfo's tensor type: dim_param or missing dim_value
// dims are unknown; no shape at all is unknown rank.
PartialShape ShapeFromTypeProto(const onnx::TypeProto& type);

// The values of an int32/int64 tensor as int64 (InvalidArgument for other dtypes).
StatusOr<std::vector<int64_t>> IntValues(const Tensor& t);
// The values of a numeric tensor as double (InvalidArgument for strings).
StatusOr<std::vector<double>> DoubleValues(const Tensor& t);
// Element `i` of a numeric tensor as an attribute of its own kind: int64 for integer and
// bool dtypes (exactly; an int64 never goes through a double), float for floating ones.
StatusOr<AttrValue> NumberAttrValue(const Tensor& t, int64_t i);

}  // namespace graphd::compiler::onnx_import

#endif  // GRAPHD_COMPILER_IMPORT_ONNX_TENSOR_PROTO_H_
