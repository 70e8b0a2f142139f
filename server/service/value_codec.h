// graphd.v1.PyValue <-> tracer values (tensors travel as TensorProto; TensorSpec
// arguments as TensorSpecObj).
#ifndef GRAPHD_SERVER_SERVICE_VALUE_CODEC_H_
#define GRAPHD_SERVER_SERVICE_VALUE_CODEC_H_

#include "compiler/tracer/value.h"
#include "graphd/v1/session.pb.h"

namespace graphd::server {

// `depth` bounds nesting (malicious inputs); `what` names the value in errors.
StatusOr<compiler::tracer::Value> ValueFromProto(const v1::PyValue& proto, const std::string& what, int depth = 0);
// Values the wire can carry: primitives, eager tensors, lists, tuples, dicts; others
// become their repr string.
// InvalidArgument when containers nest deeper than the protocol carries (64 levels,
// the same bound decoding has).
Status ValueToProto(const compiler::tracer::Value& value, v1::PyValue* out);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_VALUE_CODEC_H_
