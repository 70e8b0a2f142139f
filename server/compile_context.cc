#include "server/compile_context.h"

namespace graphd::server {

compiler::CompileTarget MakeCompileTarget(std::string name, const executor::Device& device,
                                          const compiler::passes::Pipeline* passes) {
  return compiler::CompileTarget{
      .device = std::move(name),
      .passes = passes,
      .build_plan = [&device](const ExecutionSpec& spec) -> StatusOr<std::unique_ptr<const compiler::Executable>> {
        ASSIGN_OR_RETURN(auto plan, executor::Plan::Build(spec, device));
        return std::make_unique<PlanExecutable>(std::move(plan));
      }};
}

}  // namespace graphd::server
