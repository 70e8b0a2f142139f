// graphd.v1.GraphDef -> core GraphDef (attributes decoded and checked).
#ifndef GRAPHD_SERVER_SERVICE_GRAPH_CODEC_H_
#define GRAPHD_SERVER_SERVICE_GRAPH_CODEC_H_

#include "core/graph/node_def.h"
#include "graphd/v1/graph.pb.h"

namespace graphd::server {

// Errors name the node and attribute.
StatusOr<GraphDef> GraphDefFromProto(const v1::GraphDef& proto);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_GRAPH_CODEC_H_
