#include "executor/runtime/executor.h"

namespace graphd::executor {

Status ValidateFeed(absl::string_view name, const TensorType& type, const Tensor& value) {
  if (value.dtype() != type.dtype) {
    return errors::InvalidArgument(absl::StrCat("feed '", name, "' must be ",
                                                DTypeName(type.dtype), ", got ",
                                                DTypeName(value.dtype())));
  }
  if (!type.shape.IsCompatibleWith(value.shape())) {
    return errors::InvalidArgument(absl::StrCat("feed '", name, "' must have shape ",
                                                type.shape.ToString(), ", got ",
                                                value.shape().ToString()));
  }
  return absl::OkStatus();
}

StatusOr<std::vector<Tensor>> Execute(const Plan& plan, std::vector<Tensor> feeds,
                                      const RunContext& ctx) {
  if (feeds.size() != plan.feed_slots().size()) {
    return errors::InvalidArgument(absl::StrCat("expected ", plan.feed_slots().size(),
                                                " feeds, got ", feeds.size()));
  }
  std::vector<Tensor> slots(plan.num_slots());
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Node* node = plan.feed_nodes()[i];
    RETURN_IF_ERROR(errors::WithNode(ValidateFeed(node->name(), plan.feed_types()[i], feeds[i]),
                                     node->name()));
    slots[plan.feed_slots()[i]] = std::move(feeds[i]);
  }
  static const Tensor kEmpty;
  static const CancellationToken kNeverCancelled;
  const CancellationToken& token = ctx.cancellation ? *ctx.cancellation : kNeverCancelled;
  std::vector<const Tensor*> inputs;
  std::vector<Tensor> outputs;
  for (const Plan::Step& step : plan.steps()) {
    RETURN_IF_ERROR(token.Check());
    inputs.clear();
    for (int s : step.input_slots) inputs.push_back(s == Plan::kNoSlot ? &kEmpty : &slots[s]);
    outputs.assign(step.output_slots.size(), Tensor());
    KernelContext kctx(*step.node, inputs, outputs, ctx.variables, &token, ctx.output);
    Status status = step.kernel->Compute(kctx);
    if (!status.ok()) {
      return errors::WithLocation(errors::WithNode(std::move(status), step.node->name()), step.node->range());
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (step.output_slots[o] != plan.discard_slot()) {
        slots[step.output_slots[o]] = std::move(outputs[o]);
      }
    }
    for (int s : step.release_slots) slots[s] = Tensor();
  }
  std::vector<Tensor> fetched;
  fetched.reserve(plan.fetch_slots().size());
  for (int s : plan.fetch_slots()) fetched.push_back(slots[s]);
  return fetched;
}

}  // namespace graphd::executor
