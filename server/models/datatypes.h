// The data type names served models use: KServe v2's datatype strings ("FP32",
// "INT64", "BYTES", ...) and the model config's TYPE_* values, to and from graphd's
// DType.
#ifndef GRAPHD_SERVER_MODELS_DATATYPES_H_
#define GRAPHD_SERVER_MODELS_DATATYPES_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status.h"
#include "graphd/v1/model_config.pb.h"

namespace graphd::server::models {

// "FP32" for kFloat32, "BYTES" for kString...; "" for kInvalid.
absl::string_view V2DataType(DType dtype);
// InvalidArgument naming `what` and the datatypes there are for an unknown name.
StatusOr<DType> DTypeFromV2(absl::string_view datatype, absl::string_view what);

v1::ModelDataType ConfigDataType(DType dtype);
// InvalidArgument naming `what` for TYPE_INVALID (or a value outside the enum).
StatusOr<DType> DTypeFromConfig(v1::ModelDataType type, absl::string_view what);

}  // namespace graphd::server::models

#endif  // GRAPHD_SERVER_MODELS_DATATYPES_H_
