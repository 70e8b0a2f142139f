#include "server/models/datatypes.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"

namespace graphd::server::models {
namespace {

struct Names {
  DType dtype;
  const char* v2;
  v1::ModelDataType config;
};

constexpr std::array<Names, 14> kNames = {{
    {DType::kBool, "BOOL", v1::TYPE_BOOL},
    {DType::kUInt8, "UINT8", v1::TYPE_UINT8},
    {DType::kUInt16, "UINT16", v1::TYPE_UINT16},
    {DType::kUInt32, "UINT32", v1::TYPE_UINT32},
    {DType::kUInt64, "UINT64", v1::TYPE_UINT64},
    {DType::kInt8, "INT8", v1::TYPE_INT8},
    {DType::kInt16, "INT16", v1::TYPE_INT16},
    {DType::kInt32, "INT32", v1::TYPE_INT32},
    {DType::kInt64, "INT64", v1::TYPE_INT64},
    {DType::kFloat16, "FP16", v1::TYPE_FP16},
    {DType::kBFloat16, "BF16", v1::TYPE_BF16},
    {DType::kFloat32, "FP32", v1::TYPE_FP32},
    {DType::kFloat64, "FP64", v1::TYPE_FP64},
    {DType::kString, "BYTES", v1::TYPE_STRING},
}};

}  // namespace

absl::string_view V2DataType(DType dtype) {
  for (const Names& n : kNames) {
    if (n.dtype == dtype) return n.v2;
  }
  return "";
}

StatusOr<DType> DTypeFromV2(absl::string_view datatype, absl::string_view what) {
  for (const Names& n : kNames) {
    if (datatype == n.v2) return n.dtype;
  }
  return errors::InvalidArgument(absl::StrCat(what, ": unknown datatype '", datatype,
                                              "' (BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, "
                                              "FP16, BF16, FP32, FP64 or BYTES)"));
}

v1::ModelDataType ConfigDataType(DType dtype) {
  for (const Names& n : kNames) {
    if (n.dtype == dtype) return n.config;
  }
  return v1::TYPE_INVALID;
}

StatusOr<DType> DTypeFromConfig(v1::ModelDataType type, absl::string_view what) {
  for (const Names& n : kNames) {
    if (type == n.config) return n.dtype;
  }
  return errors::InvalidArgument(absl::StrCat(what, ": data_type must be set (TYPE_FP32, TYPE_INT64, ...)"));
}

}  // namespace graphd::server::models
