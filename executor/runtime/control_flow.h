// Kernels the runtime itself provides on every device: Arg (a body's argument, fed by
// its caller), If and While. If and While build plans for their bodies once, when
// their own plan is built, and run them through the same executor.
#ifndef GRAPHD_EXECUTOR_RUNTIME_CONTROL_FLOW_H_
#define GRAPHD_EXECUTOR_RUNTIME_CONTROL_FLOW_H_

#include <memory>

#include "executor/device.h"

namespace graphd::executor {

// True for the ops below, which Plan::Build creates here rather than on the device.
bool IsRuntimeOp(const Node& node);
StatusOr<std::unique_ptr<OpKernel>> CreateRuntimeKernel(const Node& node, const Device& device);

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_RUNTIME_CONTROL_FLOW_H_
