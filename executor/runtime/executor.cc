#include "executor/runtime/executor.h"

#include <chrono>

namespace graphd::executor {
namespace {

// Appends `step`'s timing to `trace`; on a device with its own memory, waits for the
// step's work first, so the time is the work's and not its launch's.
Status RecordStep(const Plan::Step& step, std::chrono::steady_clock::time_point run_start,
                  std::chrono::steady_clock::time_point step_start, RunTrace& trace) {
  if (step.device != nullptr && step.device->memory_space() != kHostMemory) {
    RETURN_IF_ERROR(step.device->Synchronize());
  }
  const auto end = std::chrono::steady_clock::now();
  StepTiming& t = trace.emplace_back();
  t.node = step.node->name();
  switch (step.copy) {
    case Plan::Step::Copy::kNone: t.op = step.node->op_name(); break;
    case Plan::Step::Copy::kToDevice: t.op = "_CopyToDevice"; break;
    case Plan::Step::Copy::kToHost: t.op = "_CopyToHost"; break;
  }
  if (step.device != nullptr) t.device = step.device->info().name;
  t.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(step_start - run_start).count();
  t.duration_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - step_start).count();
  return absl::OkStatus();
}

}  // namespace

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

PlanRunner::PlanRunner(const Plan& plan, bool check_each_step)
    : plan_(plan), slots_(plan.num_slots()), check_each_step_(check_each_step) {
  const std::vector<int>& fetches = plan.fetch_slots();
  fetch_moves_.resize(fetches.size(), true);
  for (size_t i = 0; i < fetches.size(); ++i) {
    for (size_t j = i + 1; j < fetches.size(); ++j) {
      if (fetches[j] == fetches[i]) fetch_moves_[i] = false;
    }
  }
}

void PlanRunner::ClearSlots() {
  for (Tensor& t : slots_) {
    if (t.valid()) pool_.Give(std::move(t));
  }
}

Status PlanRunner::Run(std::vector<Tensor>& values, const RunContext& ctx) {
  const std::vector<int>& feed_slots = plan_.feed_slots();
  if (values.size() != feed_slots.size()) {
    return errors::InvalidArgument(absl::StrCat("expected ", feed_slots.size(), " feeds, got ", values.size()));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    Status valid = ValidateFeed(plan_.feed_nodes()[i]->name(), plan_.feed_types()[i], values[i]);
    if (!valid.ok()) {
      ClearSlots();
      return errors::WithNode(std::move(valid), plan_.feed_nodes()[i]->name());
    }
    slots_[feed_slots[i]] = std::move(values[i]);
  }
  static const Tensor kEmpty;
  static const CancellationToken kNeverCancelled;
  const CancellationToken& token = ctx.cancellation ? *ctx.cancellation : kNeverCancelled;
  const int discard = plan_.discard_slot();
  const auto run_start = ctx.trace != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  for (const Plan::Step& step : plan_.steps()) {
    if (check_each_step_) {
      if (Status live = token.Check(); !live.ok()) {
        ClearSlots();
        return live;
      }
    }
    if (step.constant != nullptr) {  // a Const: no inputs, its one output shared
      if (step.output_slots[0] != discard) slots_[step.output_slots[0]] = *step.constant;
      continue;
    }
    inputs_.clear();
    for (int s : step.input_slots) inputs_.push_back(s == Plan::kNoSlot ? &kEmpty : &slots_[s]);
    const size_t num_outputs = step.output_slots.size();
    if (outputs_.size() < num_outputs) outputs_.resize(num_outputs);
    for (size_t o = 0; o < num_outputs; ++o) outputs_[o] = Tensor();
    const auto step_start = ctx.trace != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    KernelContext kctx(*step.node, inputs_, std::span<Tensor>(outputs_.data(), num_outputs), ctx.variables,
                       &token, ctx.output);
    kctx.set_pool(&pool_);
    if (step.forwards) {
      forwardable_.clear();
      for (size_t k = 0; k < step.input_slots.size(); ++k) {
        forwardable_.push_back(step.forwardable[k] ? &slots_[step.input_slots[k]] : nullptr);
      }
      kctx.set_forwardable(forwardable_);
    }
    Status status = step.kernel->Compute(kctx);
    if (ctx.trace != nullptr && status.ok()) status = RecordStep(step, run_start, step_start, *ctx.trace);
    if (!status.ok()) {
      ClearSlots();
      return errors::WithLocation(errors::WithNode(std::move(status), step.node->name()), step.node->range());
    }
    for (size_t o = 0; o < num_outputs; ++o) {
      int s = step.output_slots[o];
      if (s == discard) {
        pool_.Give(std::move(outputs_[o]));
      } else {
        slots_[s] = std::move(outputs_[o]);
      }
    }
    for (int s : step.release_slots) pool_.Give(std::move(slots_[s]));
  }
  const std::vector<int>& fetch_slots = plan_.fetch_slots();
  values.resize(fetch_slots.size());
  for (size_t i = 0; i < fetch_slots.size(); ++i) {
    Tensor& slot = slots_[fetch_slots[i]];
    if (fetch_moves_[i]) {
      values[i] = std::move(slot);
      slot = Tensor();
    } else {
      values[i] = slot;
    }
  }
  ClearSlots();
  return absl::OkStatus();
}

StatusOr<std::vector<Tensor>> Execute(const Plan& plan, std::vector<Tensor> feeds, const RunContext& ctx) {
  PlanRunner runner(plan);
  RETURN_IF_ERROR(runner.Run(feeds, ctx));
  return feeds;
}

}  // namespace graphd::executor
