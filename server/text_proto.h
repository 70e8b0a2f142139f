// Reading the server's text-proto files (model configs, the tenants file): a parse
// error names the file, line and column.
#ifndef GRAPHD_SERVER_TEXT_PROTO_H_
#define GRAPHD_SERVER_TEXT_PROTO_H_

#include <google/protobuf/message.h>

#include <string>

#include "absl/strings/string_view.h"
#include "core/status.h"

namespace graphd::server {

// Parses `text` (read from `path`) into `out`. InvalidArgument "PATH:LINE:COL: message"
// for the first error (unknown fields included).
Status ParseTextProto(absl::string_view text, const std::string& path, google::protobuf::Message* out);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_TEXT_PROTO_H_
