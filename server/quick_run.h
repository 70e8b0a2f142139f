// Short cache-hit calls may run on the gRPC thread that received them instead of
// being handed to a worker (see service/pooled_call.h). The session layer decides
// what is short: a call made with a quick-only limit (`quick_us` > 0) goes ahead only
// when its plan is cached and that plan's latest run took at most `quick_us`;
// otherwise it does nothing and returns NotQuick() (the time is the concrete
// function's RunCost, compiler/cache/compiled_function.h), and the caller makes the same call
// again, without the limit, on a worker.
#ifndef GRAPHD_SERVER_QUICK_RUN_H_
#define GRAPHD_SERVER_QUICK_RUN_H_

#include "core/status.h"

namespace graphd::server {

Status NotQuick();
bool IsNotQuick(const Status& status);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_QUICK_RUN_H_
