#include "server/service/tensor_codec.h"

#include <cstring>

namespace graphd::server {

StatusOr<DType> DTypeFromProto(v1::DataType dtype) {
  int v = static_cast<int>(dtype);
  if (!IsValidDType(v)) {
    return errors::InvalidArgument(absl::StrCat("invalid dtype ", v));
  }
  return static_cast<DType>(v);
}

v1::DataType DTypeToProto(DType dtype) { return static_cast<v1::DataType>(static_cast<int>(dtype)); }

StatusOr<PartialShape> PartialShapeFromProto(const v1::TensorShape& shape) {
  if (shape.unknown_rank()) {
    if (shape.dim_size() != 0) {
      return errors::InvalidArgument("a shape with unknown rank cannot list dimensions");
    }
    return PartialShape::UnknownRank();
  }
  return PartialShape::Make({shape.dim().begin(), shape.dim().end()});
}

void PartialShapeToProto(const PartialShape& shape, v1::TensorShape* out) {
  out->Clear();
  if (!shape.known_rank()) {
    out->set_unknown_rank(true);
    return;
  }
  for (int64_t d : shape.dims()) out->add_dim(d);
}

StatusOr<Tensor> TensorFromProto(const v1::TensorProto& proto, absl::string_view what) {
  auto fail = [&](absl::string_view message) {
    return errors::InvalidArgument(absl::StrCat(what, ": ", message));
  };
  auto dtype = DTypeFromProto(proto.dtype());
  if (!dtype.ok()) return fail(dtype.status().message());
  if (proto.shape().unknown_rank()) return fail("a tensor value must have a known shape");
  auto shape = Shape::Make({proto.shape().dim().begin(), proto.shape().dim().end()});
  if (!shape.ok()) return fail(shape.status().message());
  int64_t n = shape->num_elements();
  if (*dtype == DType::kString) {
    if (proto.string_val_size() != n || !proto.content().empty()) {
      return fail(absl::StrCat("shape ", shape->ToString(), " needs ", n,
                               " string values, got ", proto.string_val_size()));
    }
  } else {
    // n * size cannot overflow: compare against the content size instead.
    size_t elem = DTypeSize(*dtype);
    if (proto.content().size() % elem != 0 ||
        static_cast<int64_t>(proto.content().size() / elem) != n || proto.string_val_size() != 0) {
      return fail(absl::StrCat("content has ", proto.content().size(), " bytes but ",
                               DTypeName(*dtype), " shape ", shape->ToString(), " needs ", n,
                               " elements of ", elem, " bytes"));
    }
  }
  auto tensor = Tensor::Allocate(*dtype, *shape);
  if (!tensor.ok()) {  // over a memory budget: RESOURCE_EXHAUSTED, not the client's mistake
    return errors::Make(tensor.status().code(), absl::StrCat(what, ": ", tensor.status().message()));
  }
  if (*dtype == DType::kString) {
    for (int64_t i = 0; i < n; ++i) tensor->data<std::string>()[i] = proto.string_val(i);
  } else if (n > 0) {
    std::memcpy(tensor->raw_data(), proto.content().data(), proto.content().size());
  }
  return tensor;
}

void TensorToProto(const Tensor& tensor, v1::TensorProto* out) {
  out->set_dtype(DTypeToProto(tensor.dtype()));
  auto* shape = out->mutable_shape();
  shape->clear_dim();
  for (int64_t d : tensor.shape().dims()) shape->add_dim(d);
  if (tensor.dtype() == DType::kString) {
    for (const std::string& s : tensor.flat<std::string>()) out->add_string_val(s);
  } else {
    out->set_content(tensor.raw_data(), tensor.bytes());
  }
}

}  // namespace graphd::server
