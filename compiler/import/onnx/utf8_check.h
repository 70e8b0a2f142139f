// ONNX's strings (names of the graph, its values, nodes, attributes...) are UTF-8 by
// the format's definition, but onnx.proto is proto2, whose parser does not check. A name
// that is not UTF-8 would travel into graphd's own replies (LoadGraphResponse.name,
// signatures, metadata, error details: proto3 strings), which the client then cannot
// parse. Models are checked when they are read.
#ifndef GRAPHD_COMPILER_IMPORT_ONNX_UTF8_CHECK_H_
#define GRAPHD_COMPILER_IMPORT_ONNX_UTF8_CHECK_H_

#include "core/status.h"
#include "google/protobuf/message.h"

namespace graphd::compiler::onnx_import {

// InvalidArgument naming the first `string` field (not `bytes`) of `root`, at any depth,
// that is not valid UTF-8, e.g. "graph.node[3].output[0]"; OK when there is none.
// Iterative: the nesting depth is whatever the parser accepted.
Status CheckUtf8Strings(const google::protobuf::Message& root);

}  // namespace graphd::compiler::onnx_import

#endif  // GRAPHD_COMPILER_IMPORT_ONNX_UTF8_CHECK_H_
