#include "executor/runtime/plan.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "executor/runtime/control_flow.h"

namespace graphd::executor {

StatusOr<std::unique_ptr<const Plan>> Plan::Build(const ExecutionSpec& spec, const Device& device) {
  auto plan = std::make_unique<Plan>();
  plan->device_ = &device;
  absl::flat_hash_map<OutputRef, int> slot_of;
  int next_slot = 0;
  for (const OutputRef& feed : spec.feeds) {
    slot_of[feed] = next_slot;
    plan->feed_slots_.push_back(next_slot++);
    plan->feed_types_.push_back(feed.node->output(feed.index));
    plan->feed_nodes_.push_back(feed.node);
  }
  // Which outputs are read at all (by a step or a fetch).
  absl::flat_hash_map<OutputRef, int> last_reader;  // output -> last step index
  for (size_t s = 0; s < spec.nodes.size(); ++s) {
    const Node* node = spec.nodes[s];
    for (int i = 0; i < static_cast<int>(node->inputs().size()); ++i) {
      if (!node->op().IsRefInput(i)) last_reader[node->inputs()[i]] = static_cast<int>(s);
    }
  }
  for (const Node* node : spec.nodes) {
    for (int o = 0; o < node->num_outputs(); ++o) {
      OutputRef ref{node, o};
      if (!slot_of.contains(ref) && last_reader.contains(ref)) slot_of[ref] = next_slot++;
    }
  }
  for (const OutputRef& fetch : spec.fetches) {
    if (!slot_of.contains(fetch)) slot_of[fetch] = next_slot++;
    plan->fetch_slots_.push_back(slot_of[fetch]);
  }
  const int discard = next_slot++;
  plan->num_slots_ = next_slot;

  absl::flat_hash_set<OutputRef> fed_set(spec.feeds.begin(), spec.feeds.end());
  absl::flat_hash_map<int, bool> is_kept;  // feeds and fetches are never released early
  for (int s : plan->feed_slots_) is_kept[s] = true;
  for (int s : plan->fetch_slots_) is_kept[s] = true;

  for (size_t s = 0; s < spec.nodes.size(); ++s) {
    const Node* node = spec.nodes[s];
    Step step{.node = node};
    if (IsRuntimeOp(*node)) {
      ASSIGN_OR_RETURN(step.kernel, CreateRuntimeKernel(*node, device));
    } else {
      ASSIGN_OR_RETURN(step.kernel, device.CreateKernel(*node));
    }
    for (int i = 0; i < static_cast<int>(node->inputs().size()); ++i) {
      const OutputRef& in = node->inputs()[i];
      if (node->op().IsRefInput(i)) {
        step.input_slots.push_back(kNoSlot);
        continue;
      }
      int slot = slot_of.at(in);
      step.input_slots.push_back(slot);
      if (last_reader.at(in) == static_cast<int>(s) && !is_kept.contains(slot)) {
        step.release_slots.push_back(slot);
      }
    }
    for (int o = 0; o < node->num_outputs(); ++o) {
      OutputRef ref{node, o};
      bool fed = fed_set.contains(ref);
      auto it = slot_of.find(ref);
      step.output_slots.push_back(fed || it == slot_of.end() ? discard : it->second);
    }
    if (node->num_outputs() == 1) step.constant = step.kernel->ConstantOutput();
    plan->steps_.push_back(std::move(step));
  }
  return std::unique_ptr<const Plan>(std::move(plan));
}

}  // namespace graphd::executor
