#include "server/service/http_codec.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "core/half.h"
#include "server/models/datatypes.h"
#include "server/service/v2_tensor.h"

namespace graphd::server {
namespace {

using Json = nlohmann::json;

// The scalars of `data` (flat or nested as the shape), at most `limit` of them.
Status Flatten(const Json& data, int depth, int64_t limit, std::vector<const Json*>& out, absl::string_view name) {
  if (!data.is_array()) {
    if (static_cast<int64_t>(out.size()) >= limit) return BadInput(name, "data has more values than its shape");
    out.push_back(&data);
    return absl::OkStatus();
  }
  if (depth > kMaxV2Rank) return BadInput(name, "data nests deeper than any shape");
  for (const Json& e : data) RETURN_IF_ERROR(Flatten(e, depth + 1, limit, out, name));
  return absl::OkStatus();
}

template <typename T>
Status FillNumbers(const std::vector<const Json*>& values, Tensor& t, absl::string_view name) {
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) {
    const Json& v = *values[i];
    if constexpr (std::is_integral_v<T>) {
      if (!v.is_number_integer()) return BadInput(name, absl::StrCat("value ", i, " is not an integer"));
      if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
          return BadInput(name, absl::StrCat("value ", i, " is out of range"));
        }
        out[i] = static_cast<T>(u);
      } else {
        const int64_t s = v.get<int64_t>();
        if (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            (s > 0 && static_cast<uint64_t>(s) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
          return BadInput(name, absl::StrCat("value ", i, " is out of range"));
        }
        out[i] = static_cast<T>(s);
      }
    } else {
      if (!v.is_number()) return BadInput(name, absl::StrCat("value ", i, " is not a number"));
      out[i] = T(v.get<double>());
    }
  }
  return absl::OkStatus();
}

// The values of `data` (checked against `in`'s element count before anything is allocated).
StatusOr<std::vector<const Json*>> JsonValues(const Json& data, const V2Input& in, absl::string_view name) {
  std::vector<const Json*> values;
  RETURN_IF_ERROR(Flatten(data, 0, in.elements, values, name));
  if (static_cast<int64_t>(values.size()) != in.elements) {
    return BadInput(name, absl::StrCat("shape ", in.shape.ToString(), " holds ", in.elements, " elements; data has ",
                                       values.size()));
  }
  return values;
}

Status FillFromJson(const std::vector<const Json*>& values, Tensor& t, absl::string_view name) {
  switch (t.dtype()) {
    case DType::kBool:
      for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i]->is_boolean()) return BadInput(name, absl::StrCat("value ", i, " is not true or false"));
        t.data<bool>()[i] = values[i]->get<bool>();
      }
      return absl::OkStatus();
    case DType::kString:
      for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i]->is_string()) return BadInput(name, absl::StrCat("value ", i, " is not a string"));
        t.data<std::string>()[i] = values[i]->get<std::string>();
      }
      return absl::OkStatus();
    case DType::kInt8: return FillNumbers<int8_t>(values, t, name);
    case DType::kInt16: return FillNumbers<int16_t>(values, t, name);
    case DType::kInt32: return FillNumbers<int32_t>(values, t, name);
    case DType::kInt64: return FillNumbers<int64_t>(values, t, name);
    case DType::kUInt8: return FillNumbers<uint8_t>(values, t, name);
    case DType::kUInt16: return FillNumbers<uint16_t>(values, t, name);
    case DType::kUInt32: return FillNumbers<uint32_t>(values, t, name);
    case DType::kUInt64: return FillNumbers<uint64_t>(values, t, name);
    case DType::kFloat16: return FillNumbers<Float16>(values, t, name);
    case DType::kBFloat16: return FillNumbers<BFloat16>(values, t, name);
    case DType::kFloat32: return FillNumbers<float>(values, t, name);
    case DType::kFloat64: return FillNumbers<double>(values, t, name);
    default: return BadInput(name, "unsupported datatype");
  }
}

template <typename T>
Json NumbersJson(const Tensor& t) {
  Json out = Json::array();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      out.push_back(static_cast<float>(t.data<T>()[i]));
    } else {
      out.push_back(t.data<T>()[i]);
    }
  }
  return out;
}

Json DataJson(const Tensor& t) {
  switch (t.dtype()) {
    case DType::kBool: return NumbersJson<bool>(t);
    case DType::kString: return NumbersJson<std::string>(t);
    case DType::kInt8: return NumbersJson<int8_t>(t);
    case DType::kInt16: return NumbersJson<int16_t>(t);
    case DType::kInt32: return NumbersJson<int32_t>(t);
    case DType::kInt64: return NumbersJson<int64_t>(t);
    case DType::kUInt8: return NumbersJson<uint8_t>(t);
    case DType::kUInt16: return NumbersJson<uint16_t>(t);
    case DType::kUInt32: return NumbersJson<uint32_t>(t);
    case DType::kUInt64: return NumbersJson<uint64_t>(t);
    case DType::kFloat16: return NumbersJson<Float16>(t);
    case DType::kBFloat16: return NumbersJson<BFloat16>(t);
    case DType::kFloat32: return NumbersJson<float>(t);
    case DType::kFloat64: return NumbersJson<double>(t);
    default: return Json::array();
  }
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

bool BinaryParam(const Json& item) {
  auto p = item.find("parameters");
  if (p == item.end() || !p->is_object()) return false;
  auto b = p->find("binary_data");
  return b != p->end() && b->is_boolean() && b->get<bool>();
}

}  // namespace

StatusOr<HttpInferRequest> ParseHttpInfer(std::string model, std::string version, absl::string_view body,
                                          std::optional<size_t> header_length) {
  const size_t json_size = header_length.value_or(body.size());
  if (json_size > body.size()) {
    return errors::InvalidArgument(absl::StrCat("Inference-Header-Content-Length ", json_size,
                                                " is past the body's end (", body.size(), " bytes)"));
  }
  if (json_size > kMaxJsonHeaderBytes) {
    return errors::InvalidArgument(absl::StrCat("the JSON part of the request is over ", kMaxJsonHeaderBytes,
                                                " bytes: send large tensors as binary data"));
  }
  Json json = Json::parse(body.substr(0, json_size), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return errors::InvalidArgument("the request body is not a JSON object");
  }
  HttpInferRequest out;
  out.request.model = std::move(model);
  out.request.version = std::move(version);
  if (auto id = json.find("id"); id != json.end() && id->is_string()) out.request.id = id->get<std::string>();
  if (auto params = json.find("parameters"); params != json.end() && params->is_object()) {
    auto all = params->find("binary_data_output");
    out.all_binary = all != params->end() && all->is_boolean() && all->get<bool>();
  }
  auto inputs = json.find("inputs");
  if (inputs == json.end() || !inputs->is_array()) return errors::InvalidArgument("the request has no \"inputs\" array");
  if (inputs->size() > kMaxV2Inputs) return errors::InvalidArgument(absl::StrCat("more than ", kMaxV2Inputs, " inputs"));
  absl::string_view binary = body.substr(json_size);
  for (const Json& in : *inputs) {
    if (!in.is_object() || !in.contains("name") || !in["name"].is_string()) {
      return errors::InvalidArgument("every input needs a \"name\"");
    }
    const std::string name = in["name"].get<std::string>();
    if (!in.contains("datatype") || !in["datatype"].is_string()) return BadInput(name, "needs a \"datatype\"");
    if (!in.contains("shape") || !in["shape"].is_array()) return BadInput(name, "needs a \"shape\" array");
    std::vector<int64_t> shape;
    for (const Json& d : in["shape"]) {
      if (!d.is_number_integer()) return BadInput(name, "shape holds a value that is not an integer");
      if (shape.size() >= kMaxV2Rank) return BadInput(name, absl::StrCat("more than ", kMaxV2Rank, " dimensions"));
      shape.push_back(d.get<int64_t>());
    }
    ASSIGN_OR_RETURN(V2Input spec, CheckV2Input(name, in["datatype"].get<std::string>(), shape));
    std::optional<uint64_t> binary_size;
    if (auto p = in.find("parameters"); p != in.end() && p->is_object()) {
      if (auto b = p->find("binary_data_size"); b != p->end()) {
        if (!b->is_number_unsigned()) return BadInput(name, "binary_data_size must be a non-negative integer");
        binary_size = b->get<uint64_t>();
      }
    }
    const bool has_data = in.contains("data");
    if (binary_size.has_value() == has_data) {
      return BadInput(name, "needs either \"data\" or parameters.binary_data_size (one of them)");
    }
    Tensor t;
    if (binary_size) {
      if (*binary_size > binary.size()) {
        return BadInput(name, absl::StrCat("binary_data_size ", *binary_size, " is past the body's end"));
      }
      RETURN_IF_ERROR(CheckRawSize(name, spec, *binary_size));
      ASSIGN_OR_RETURN(t, AllocateV2Input(spec));
      RETURN_IF_ERROR(FillFromRaw(name, binary.substr(0, *binary_size), t));
      binary.remove_prefix(*binary_size);
    } else {
      ASSIGN_OR_RETURN(std::vector<const Json*> values, JsonValues(in["data"], spec, name));
      ASSIGN_OR_RETURN(t, AllocateV2Input(spec));
      RETURN_IF_ERROR(FillFromJson(values, t, name));
    }
    out.request.inputs.push_back({name, std::move(t)});
  }
  if (!binary.empty()) {
    return errors::InvalidArgument(absl::StrCat(binary.size(), " bytes of binary data follow the inputs' own"));
  }
  if (auto outputs = json.find("outputs"); outputs != json.end()) {
    if (!outputs->is_array()) return errors::InvalidArgument("\"outputs\" must be an array");
    for (const Json& o : *outputs) {
      if (!o.is_object() || !o.contains("name") || !o["name"].is_string()) {
        return errors::InvalidArgument("every requested output needs a \"name\"");
      }
      out.request.outputs.push_back(o["name"].get<std::string>());
      if (BinaryParam(o)) out.binary_outputs.push_back(out.request.outputs.back());
    }
  }
  return out;
}

HttpBody EncodeHttpInfer(const serving::InferResponse& response, const HttpInferRequest& request) {
  Json json = {{"model_name", response.model}, {"model_version", response.version}};
  if (!response.id.empty()) json["id"] = response.id;
  Json outputs = Json::array();
  std::string binary;
  for (const serving::NamedTensor& t : response.outputs) {
    Json o = {{"name", t.name},
              {"datatype", std::string(models::V2DataType(t.tensor.dtype()))},
              {"shape", t.tensor.shape().dims()}};
    const bool as_binary = request.all_binary || absl::c_linear_search(request.binary_outputs, t.name);
    if (as_binary) {
      std::string raw = RawBytes(t.tensor);
      o["parameters"] = {{"binary_data_size", raw.size()}};
      binary += raw;
    } else {
      o["data"] = DataJson(t.tensor);
    }
    outputs.push_back(std::move(o));
  }
  json["outputs"] = std::move(outputs);
  HttpBody body{Dump(json), "application/json", std::nullopt};
  if (!binary.empty() || request.all_binary || !request.binary_outputs.empty()) {
    body.header_length = body.body.size();
    body.body += binary;
    body.content_type = "application/octet-stream";
  }
  return body;
}

std::string HttpErrorJson(const Status& status) { return Dump(Json{{"error", std::string(status.message())}}); }

int HttpStatusOf(const Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kUnimplemented:
      return 501;
    default:
      return 500;
  }
}

std::string ServerMetadataJson(absl::string_view version) {
  return Dump(Json{{"name", "graphd"}, {"version", std::string(version)},
                   {"extensions", {"model_repository", "statistics", "binary_tensor_data"}}});
}

std::string ModelMetadataJson(const models::ServedModel& model, const std::vector<int64_t>& versions) {
  auto tensors = [](const std::vector<models::TensorInfo>& list) {
    Json out = Json::array();
    for (const auto& t : list) {
      out.push_back({{"name", t.name}, {"datatype", std::string(models::V2DataType(t.dtype))}, {"shape", t.shape}});
    }
    return out;
  };
  Json vs = Json::array();
  for (int64_t v : versions) vs.push_back(absl::StrCat(v));
  return Dump(Json{{"name", model.name()},
                   {"versions", vs},
                   {"platform", std::string(model.platform())},
                   {"inputs", tensors(model.inputs())},
                   {"outputs", tensors(model.outputs())}});
}

}  // namespace graphd::server
