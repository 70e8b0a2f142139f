#include "server/service/infer_codec.h"

#include <cstring>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "server/models/datatypes.h"
#include "server/service/v2_tensor.h"

namespace graphd::server {
namespace {

using InputTensor = inference::ModelInferRequest::InferInputTensor;

Status Bad(const std::string& input, absl::string_view problem) { return BadInput(input, problem); }

template <typename To, typename From>
Status CopyTyped(const google::protobuf::RepeatedField<From>& values, const InputTensor& in, Tensor& t,
                 absl::string_view field) {
  if (values.size() != t.num_elements()) {
    return Bad(in.name(), absl::StrCat("shape ", t.shape().ToString(), " holds ", t.num_elements(), " elements; ",
                                       field, " has ", values.size()));
  }
  To* out = t.data<To>();
  for (int i = 0; i < values.size(); ++i) {
    const From v = values[i];
    if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool> && sizeof(To) < sizeof(From)) {
      if (v < static_cast<From>(std::numeric_limits<To>::min()) || v > static_cast<From>(std::numeric_limits<To>::max())) {
        return Bad(in.name(), absl::StrCat("value ", v, " at ", i, " is out of range for ", in.datatype()));
      }
    }
    out[i] = static_cast<To>(v);
  }
  return absl::OkStatus();
}

// How many values the typed contents hold, over all fields.
int64_t TypedCount(const inference::InferTensorContents& c) {
  return c.bool_contents_size() + c.int_contents_size() + c.int64_contents_size() + c.uint_contents_size() +
         c.uint64_contents_size() + c.fp32_contents_size() + c.fp64_contents_size() + c.bytes_contents_size();
}

Status FromTyped(const InputTensor& in, Tensor& t) {
  const auto& c = in.contents();
  // Only the datatype's own field may hold values.
  auto only = [&](int64_t own, absl::string_view field) -> Status {
    if (TypedCount(c) != own) return Bad(in.name(), absl::StrCat(in.datatype(), " values go in contents.", field));
    return absl::OkStatus();
  };
  switch (t.dtype()) {
    case DType::kBool:
      RETURN_IF_ERROR(only(c.bool_contents_size(), "bool_contents"));
      return CopyTyped<bool>(c.bool_contents(), in, t, "bool_contents");
    case DType::kInt8:
      RETURN_IF_ERROR(only(c.int_contents_size(), "int_contents"));
      return CopyTyped<int8_t>(c.int_contents(), in, t, "int_contents");
    case DType::kInt16:
      RETURN_IF_ERROR(only(c.int_contents_size(), "int_contents"));
      return CopyTyped<int16_t>(c.int_contents(), in, t, "int_contents");
    case DType::kInt32:
      RETURN_IF_ERROR(only(c.int_contents_size(), "int_contents"));
      return CopyTyped<int32_t>(c.int_contents(), in, t, "int_contents");
    case DType::kInt64:
      RETURN_IF_ERROR(only(c.int64_contents_size(), "int64_contents"));
      return CopyTyped<int64_t>(c.int64_contents(), in, t, "int64_contents");
    case DType::kUInt8:
      RETURN_IF_ERROR(only(c.uint_contents_size(), "uint_contents"));
      return CopyTyped<uint8_t>(c.uint_contents(), in, t, "uint_contents");
    case DType::kUInt16:
      RETURN_IF_ERROR(only(c.uint_contents_size(), "uint_contents"));
      return CopyTyped<uint16_t>(c.uint_contents(), in, t, "uint_contents");
    case DType::kUInt32:
      RETURN_IF_ERROR(only(c.uint_contents_size(), "uint_contents"));
      return CopyTyped<uint32_t>(c.uint_contents(), in, t, "uint_contents");
    case DType::kUInt64:
      RETURN_IF_ERROR(only(c.uint64_contents_size(), "uint64_contents"));
      return CopyTyped<uint64_t>(c.uint64_contents(), in, t, "uint64_contents");
    case DType::kFloat32:
      RETURN_IF_ERROR(only(c.fp32_contents_size(), "fp32_contents"));
      return CopyTyped<float>(c.fp32_contents(), in, t, "fp32_contents");
    case DType::kFloat64:
      RETURN_IF_ERROR(only(c.fp64_contents_size(), "fp64_contents"));
      return CopyTyped<double>(c.fp64_contents(), in, t, "fp64_contents");
    case DType::kString: {
      RETURN_IF_ERROR(only(c.bytes_contents_size(), "bytes_contents"));
      if (c.bytes_contents_size() != t.num_elements()) {
        return Bad(in.name(), absl::StrCat("shape ", t.shape().ToString(), " holds ", t.num_elements(),
                                           " elements; bytes_contents has ", c.bytes_contents_size()));
      }
      for (int i = 0; i < c.bytes_contents_size(); ++i) t.data<std::string>()[i] = c.bytes_contents(i);
      return absl::OkStatus();
    }
    default:
      return Bad(in.name(), absl::StrCat(in.datatype(), " values must come as raw_input_contents"));
  }
}

}  // namespace

StatusOr<std::vector<NamedTensor>> InferInputsFromProto(const inference::ModelInferRequest& request) {
  if (request.inputs_size() > kMaxV2Inputs) {
    return errors::InvalidArgument(absl::StrCat("more than ", kMaxV2Inputs, " inputs"));
  }
  const bool raw = request.raw_input_contents_size() > 0;
  if (raw && request.raw_input_contents_size() != request.inputs_size()) {
    return errors::InvalidArgument(absl::StrCat("raw_input_contents has ", request.raw_input_contents_size(),
                                                " entries for ", request.inputs_size(), " inputs (one per input)"));
  }
  std::set<std::string> seen;
  std::vector<NamedTensor> out;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const InputTensor& in = request.inputs(i);
    if (!seen.insert(in.name()).second) return Bad(in.name(), "given twice");
    if (raw && in.has_contents() && TypedCount(in.contents()) > 0) {
      return Bad(in.name(), "has both contents and raw_input_contents (give one)");
    }
    ASSIGN_OR_RETURN(V2Input spec, CheckV2Input(in.name(), in.datatype(), in.shape()));
    // The contents must fill the tensor before it is allocated.
    if (raw) {
      RETURN_IF_ERROR(CheckRawSize(in.name(), spec, request.raw_input_contents(i).size()));
    } else if (TypedCount(in.contents()) != spec.elements) {
      return Bad(in.name(), absl::StrCat("shape ", spec.shape.ToString(), " holds ", spec.elements,
                                         " elements; its contents have ", TypedCount(in.contents()), " values"));
    }
    ASSIGN_OR_RETURN(Tensor t, AllocateV2Input(spec));
    RETURN_IF_ERROR(raw ? FillFromRaw(in.name(), request.raw_input_contents(i), t) : FromTyped(in, t));
    out.push_back({in.name(), std::move(t)});
  }
  return out;
}

Status AddInferOutput(const std::string& name, const Tensor& tensor, inference::ModelInferResponse* response) {
  const absl::string_view datatype = models::V2DataType(tensor.dtype());
  if (datatype.empty() || !tensor.on_host()) {
    return errors::InvalidArgument(absl::StrCat("output '", name, "' (", DTypeName(tensor.dtype()),
                                                ") has no KServe v2 datatype"));
  }
  auto* out = response->add_outputs();
  out->set_name(name);
  out->set_datatype(std::string(datatype));
  for (int64_t d : tensor.shape().dims()) out->add_shape(d);
  *response->add_raw_output_contents() = RawBytes(tensor);
  return absl::OkStatus();
}

}  // namespace graphd::server

namespace graphd::server {

StatusOr<serving::InferRequest> InferRequestFromProto(const inference::ModelInferRequest& request) {
  serving::InferRequest out{request.model_name(), request.model_version(), request.id(), {}, {}};
  ASSIGN_OR_RETURN(out.inputs, InferInputsFromProto(request));
  for (const auto& o : request.outputs()) out.outputs.push_back(o.name());
  return out;
}

Status InferResponseToProto(const serving::InferResponse& response, inference::ModelInferResponse* out) {
  out->set_model_name(response.model);
  out->set_model_version(response.version);
  out->set_id(response.id);
  for (const NamedTensor& t : response.outputs) RETURN_IF_ERROR(AddInferOutput(t.name, t.tensor, out));
  return absl::OkStatus();
}

}  // namespace graphd::server
