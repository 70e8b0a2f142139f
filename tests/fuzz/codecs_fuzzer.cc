// The codecs between wire messages and graphd's values, without a server: byte 0 picks
// one, the rest is its input. Beyond not crashing, each checks a property: what was
// decoded encodes, and the encoding decodes to the same thing again.
//   0: graphd.v1.TensorProto      1: graphd.v1.PyValue (call arguments)
//   2: graphd.v1.GraphDef         3: inference.ModelInferRequest (KServe v2 gRPC)
//   4: a KServe v2 HTTP infer body (byte 1 odd: bytes 2-3 give the JSON header's length,
//      binary tensor data follows)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "google/protobuf/util/message_differencer.h"
#include "graphd/v1/graph.pb.h"
#include "graphd/v1/session.pb.h"
#include "server/service/graph_codec.h"
#include "server/service/http_codec.h"
#include "server/service/infer_codec.h"
#include "server/service/tensor_codec.h"
#include "server/service/value_codec.h"

namespace graphd::server {
namespace {

void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "codec property broken: %s\n", what);
    std::abort();
  }
}

void TensorRoundTrip(const Tensor& t) {
  v1::TensorProto encoded;
  TensorToProto(t, &encoded);
  auto again = TensorFromProto(encoded, "round trip");
  Require(again.ok(), "an encoded tensor does not decode");
  v1::TensorProto reencoded;
  TensorToProto(*again, &reencoded);
  Require(google::protobuf::util::MessageDifferencer::Equals(encoded, reencoded), "a tensor changes in a round trip");
}

int Tensors(const uint8_t* data, size_t size) {
  v1::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return -1;
  auto t = TensorFromProto(proto, "fuzzed");
  if (t.ok()) TensorRoundTrip(*t);
  return 0;
}

int Values(const uint8_t* data, size_t size) {
  v1::PyValue proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return -1;
  auto value = ValueFromProto(proto, "fuzzed");
  if (!value.ok()) return 0;
  v1::PyValue encoded;
  if (ValueToProto(*value, &encoded).ok()) {
    Require(ValueFromProto(encoded, "round trip").ok(), "an encoded value does not decode");
  }
  return 0;
}

int Graphs(const uint8_t* data, size_t size) {
  v1::GraphDef proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return -1;
  auto def = GraphDefFromProto(proto);
  if (!def.ok()) return 0;
  v1::GraphDef encoded;
  GraphDefToProto(*def, &encoded);
  auto again = GraphDefFromProto(encoded);
  Require(again.ok(), "an encoded GraphDef does not decode");
  v1::GraphDef reencoded;
  GraphDefToProto(*again, &reencoded);
  // Compared as messages: map fields (attributes) serialize in no fixed order.
  Require(google::protobuf::util::MessageDifferencer::Equals(encoded, reencoded), "a GraphDef changes in a round trip");
  return 0;
}

int InferRequests(const uint8_t* data, size_t size) {
  inference::ModelInferRequest proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return -1;
  auto inputs = InferInputsFromProto(proto);
  if (!inputs.ok()) return 0;
  inference::ModelInferResponse response;
  for (const NamedTensor& input : *inputs) {
    Require(AddInferOutput(input.name, input.tensor, &response).ok(), "a decoded v2 tensor does not encode");
    TensorRoundTrip(input.tensor);
  }
  return 0;
}

int HttpBodies(const uint8_t* data, size_t size) {
  if (size < 3) return -1;
  std::optional<size_t> header;
  if (data[0] & 1) header = static_cast<size_t>(data[1]) | static_cast<size_t>(data[2]) << 8;
  const absl::string_view body(reinterpret_cast<const char*>(data + 3), size - 3);
  auto request = ParseHttpInfer("model", "", body, header);
  if (request.ok()) {
    for (const NamedTensor& input : request->request.inputs) TensorRoundTrip(input.tensor);
  }
  return 0;
}

}  // namespace
}  // namespace graphd::server

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphd::server;
  if (size == 0) return -1;
  switch (data[0] % 5) {
    case 0: return Tensors(data + 1, size - 1);
    case 1: return Values(data + 1, size - 1);
    case 2: return Graphs(data + 1, size - 1);
    case 3: return InferRequests(data + 1, size - 1);
    default: return HttpBodies(data + 1, size - 1);
  }
}
