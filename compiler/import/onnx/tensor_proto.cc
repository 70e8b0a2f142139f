#include "compiler/import/onnx/tensor_proto.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/half.h"

namespace graphd::compiler::onnx_import {
namespace {

using onnx::TensorProto;

// Copies `n` elements of the typed repeated field `field` into `out` as T.
template <typename T, typename Field>
Status CopyTyped(const Field& field, int64_t n, Tensor& out, const std::string& name) {
  if (field.size() != n) {
    return errors::InvalidArgument(absl::StrCat("tensor '", name, "' has ", field.size(),
                                                " values for ", n, " elements"));
  }
  T* dst = out.data<T>();
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(field.Get(static_cast<int>(i)));
  return absl::OkStatus();
}

}  // namespace

StatusOr<DType> DTypeFromOnnx(int32_t t) {
  switch (t) {
    case TensorProto::FLOAT: return DType::kFloat32;
    case TensorProto::DOUBLE: return DType::kFloat64;
    case TensorProto::FLOAT16: return DType::kFloat16;
    case TensorProto::BFLOAT16: return DType::kBFloat16;
    case TensorProto::INT8: return DType::kInt8;
    case TensorProto::INT16: return DType::kInt16;
    case TensorProto::INT32: return DType::kInt32;
    case TensorProto::INT64: return DType::kInt64;
    case TensorProto::UINT8: return DType::kUInt8;
    case TensorProto::UINT16: return DType::kUInt16;
    case TensorProto::UINT32: return DType::kUInt32;
    case TensorProto::UINT64: return DType::kUInt64;
    case TensorProto::BOOL: return DType::kBool;
    case TensorProto::STRING: return DType::kString;
    default: break;
  }
  std::string name = TensorProto::DataType_IsValid(t)
                         ? TensorProto::DataType_Name(static_cast<TensorProto::DataType>(t))
                         : absl::StrCat(t);
  return errors::InvalidArgument(absl::StrCat("ONNX element type ", name, " is not supported"));
}

StatusOr<Tensor> TensorFromProto(const TensorProto& p) {
  if (p.data_location() == TensorProto::EXTERNAL || p.external_data_size() > 0) {
    return errors::InvalidArgument(absl::StrCat(
        "tensor '", p.name(), "' uses external data; graphd only loads self-contained models"));
  }
  if (p.has_segment()) {
    return errors::InvalidArgument(absl::StrCat("tensor '", p.name(), "' is segmented"));
  }
  ASSIGN_OR_RETURN(DType dtype, DTypeFromOnnx(p.data_type()));
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  auto shape = Shape::Make(dims);
  if (!shape.ok()) {
    return errors::InvalidArgument(absl::StrCat("tensor '", p.name(), "': ", shape.status().message()));
  }
  ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, *shape));
  const int64_t n = t.num_elements();
  if (dtype == DType::kString) {
    if (p.string_data_size() != n) {
      return errors::InvalidArgument(absl::StrCat("tensor '", p.name(), "' has ",
                                                  p.string_data_size(), " strings for ", n, " elements"));
    }
    for (int64_t i = 0; i < n; ++i) t.data<std::string>()[i] = p.string_data(static_cast<int>(i));
    return t;
  }
  if (p.has_raw_data()) {
    if (p.raw_data().size() != t.bytes()) {
      return errors::InvalidArgument(absl::StrCat("tensor '", p.name(), "' has ", p.raw_data().size(),
                                                  " bytes of raw data for ", t.bytes()));
    }
    if (n > 0) std::memcpy(t.raw_data(), p.raw_data().data(), t.bytes());  // little-endian host
    return t;
  }
  const std::string& name = p.name();
  switch (dtype) {
    case DType::kFloat32: RETURN_IF_ERROR(CopyTyped<float>(p.float_data(), n, t, name)); break;
    case DType::kFloat64: RETURN_IF_ERROR(CopyTyped<double>(p.double_data(), n, t, name)); break;
    case DType::kInt64: RETURN_IF_ERROR(CopyTyped<int64_t>(p.int64_data(), n, t, name)); break;
    case DType::kInt32: RETURN_IF_ERROR(CopyTyped<int32_t>(p.int32_data(), n, t, name)); break;
    case DType::kInt16: RETURN_IF_ERROR(CopyTyped<int16_t>(p.int32_data(), n, t, name)); break;
    case DType::kInt8: RETURN_IF_ERROR(CopyTyped<int8_t>(p.int32_data(), n, t, name)); break;
    case DType::kUInt8: RETURN_IF_ERROR(CopyTyped<uint8_t>(p.int32_data(), n, t, name)); break;
    case DType::kUInt16: RETURN_IF_ERROR(CopyTyped<uint16_t>(p.int32_data(), n, t, name)); break;
    case DType::kUInt32: RETURN_IF_ERROR(CopyTyped<uint32_t>(p.uint64_data(), n, t, name)); break;
    case DType::kUInt64: RETURN_IF_ERROR(CopyTyped<uint64_t>(p.uint64_data(), n, t, name)); break;
    case DType::kBool: RETURN_IF_ERROR(CopyTyped<bool>(p.int32_data(), n, t, name)); break;
    case DType::kFloat16:
    case DType::kBFloat16:
      RETURN_IF_ERROR(CopyTyped<uint16_t>(p.int32_data(), n, t, name));
      break;
    default:
      return errors::InvalidArgument(absl::StrCat("tensor '", name, "': unsupported element type"));
  }
  return t;
}

PartialShape ShapeFromTypeProto(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return PartialShape::UnknownRank();
  std::vector<int64_t> dims;
  for (const auto& d : type.tensor_type().shape().dim()) {
    dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : kUnknownDim);
  }
  return PartialShape(std::move(dims));
}

StatusOr<std::vector<int64_t>> IntValues(const Tensor& t) {
  std::vector<int64_t> out;
  if (t.dtype() == DType::kInt64) {
    for (int64_t v : t.flat<int64_t>()) out.push_back(v);
  } else if (t.dtype() == DType::kInt32) {
    for (int32_t v : t.flat<int32_t>()) out.push_back(v);
  } else {
    return errors::InvalidArgument(absl::StrCat("expected an int32/int64 tensor, got ", t.DebugString()));
  }
  return out;
}

StatusOr<std::vector<double>> DoubleValues(const Tensor& t) {
  std::vector<double> out;
  switch (t.dtype()) {
    case DType::kFloat32: for (float v : t.flat<float>()) out.push_back(v); break;
    case DType::kFloat64: for (double v : t.flat<double>()) out.push_back(v); break;
    case DType::kInt64: for (int64_t v : t.flat<int64_t>()) out.push_back(static_cast<double>(v)); break;
    case DType::kInt32: for (int32_t v : t.flat<int32_t>()) out.push_back(v); break;
    case DType::kInt8: for (int8_t v : t.flat<int8_t>()) out.push_back(v); break;
    case DType::kInt16: for (int16_t v : t.flat<int16_t>()) out.push_back(v); break;
    case DType::kUInt8: for (uint8_t v : t.flat<uint8_t>()) out.push_back(v); break;
    case DType::kUInt16: for (uint16_t v : t.flat<uint16_t>()) out.push_back(v); break;
    case DType::kUInt32: for (uint32_t v : t.flat<uint32_t>()) out.push_back(v); break;
    case DType::kUInt64: for (uint64_t v : t.flat<uint64_t>()) out.push_back(static_cast<double>(v)); break;
    case DType::kFloat16: for (Float16 v : t.flat<Float16>()) out.push_back(v); break;
    case DType::kBFloat16: for (BFloat16 v : t.flat<BFloat16>()) out.push_back(v); break;
    case DType::kBool: for (bool v : t.flat<bool>()) out.push_back(v ? 1 : 0); break;
    default:
      return errors::InvalidArgument(absl::StrCat("expected a numeric tensor, got ", t.DebugString()));
  }
  return out;
}

StatusOr<AttrValue> NumberAttrValue(const Tensor& t, int64_t i) {
  if (i < 0 || i >= t.num_elements()) {
    return errors::InvalidArgument(absl::StrCat("expected at least ", i + 1, " values, got ", t.DebugString()));
  }
  if (t.dtype() == DType::kInt64) return AttrValue(t.data<int64_t>()[i]);
  if (t.dtype() == DType::kUInt64) return AttrValue(static_cast<int64_t>(t.data<uint64_t>()[i]));  // wraps as Cast does
  ASSIGN_OR_RETURN(std::vector<double> values, DoubleValues(t));
  if (IsFloating(t.dtype())) return AttrValue(static_cast<float>(values[i]));
  return AttrValue(static_cast<int64_t>(values[i]));  // exact: at most 32 bits
}

}  // namespace graphd::compiler::onnx_import
