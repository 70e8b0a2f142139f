#include "executor/runtime/plan.h"

#include <algorithm>

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "executor/runtime/control_flow.h"

namespace graphd::executor {
namespace {

// Moves one value between host memory and `device`'s memory.
class CopyKernel : public OpKernel {
 public:
  CopyKernel(const Device& device, bool to_device) : device_(device), to_device_(to_device) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    StatusOr<Tensor> out = to_device_ ? device_.CopyFromHost(in) : device_.CopyToHost(in);
    if (!out.ok()) {
      return errors::Make(out.status().code(),
                          absl::StrCat("copying ", in.DebugString(), to_device_ ? " to " : " from ",
                                       device_.info().name, ": ", out.status().message()));
    }
    ctx.set_output(0, *std::move(out));
    return absl::OkStatus();
  }

 private:
  const Device& device_;
  const bool to_device_;
};

// A step before kernels and slots exist: which values it reads and writes.
struct ProtoStep {
  const Node* node;
  const Device* device;
  Plan::Step::Copy copy = Plan::Step::Copy::kNone;
  int copy_output = 0;
  std::vector<int> inputs;   // value ids; -1 for ref inputs
  std::vector<int> outputs;  // value ids; -1 for outputs that are fed (discarded)
};

// A value is a node output in one memory space.
using ValueKey = std::pair<OutputRef, int>;

class Placer {
 public:
  Placer(const ExecutionSpec& spec, const Device& device) : spec_(spec), device_(device) {
    host_ = device.fallback();
    fed_.insert(spec.feeds.begin(), spec.feeds.end());
    for (const Node* node : spec.nodes) {
      const Device* where = &device;
      if (host_ != nullptr && (IsRuntimeOp(*node) || !device.SupportsOp(*node))) where = host_;
      where_[node] = where;
    }
    if (host_ != nullptr) KeepHostOnlyConstantsOnHost();
  }

  // The steps in order, copies included.
  std::vector<ProtoStep> Steps() {
    std::vector<ProtoStep> steps;
    for (const Node* node : spec_.nodes) {
      const Device* where = where_.at(node);
      ProtoStep step{.node = node, .device = where};
      for (int i = 0; i < static_cast<int>(node->inputs().size()); ++i) {
        if (node->op().IsRefInput(i)) {
          step.inputs.push_back(-1);
          continue;
        }
        int need = where->InputOnHost(*node, i) ? kHostMemory : where->memory_space();
        step.inputs.push_back(Read(node->inputs()[i], need, steps));
      }
      for (int o = 0; o < node->num_outputs(); ++o) {
        OutputRef ref{node, o};
        step.outputs.push_back(fed_.contains(ref) ? -1 : Id({ref, where->memory_space()}));
      }
      steps.push_back(std::move(step));
    }
    for (const OutputRef& fetch : spec_.fetches) fetch_values_.push_back(Read(fetch, kHostMemory, steps));
    return steps;
  }
  int num_values() const { return static_cast<int>(values_.size()); }
  const std::vector<int>& fetch_values() const { return fetch_values_; }
  // The value a feed binds (host memory).
  int FeedValue(const OutputRef& feed) { return Id({feed, kHostMemory}); }

 private:
  int Id(const ValueKey& key) {
    auto [it, inserted] = values_.try_emplace(key, static_cast<int>(values_.size()));
    return it->second;
  }
  int SpaceOf(const OutputRef& ref) const {
    if (fed_.contains(ref)) return kHostMemory;
    auto it = where_.find(ref.node);
    return it == where_.end() ? kHostMemory : it->second->memory_space();
  }
  // The value of `ref` in memory space `need`, adding a copy step when it lives elsewhere.
  int Read(const OutputRef& ref, int need, std::vector<ProtoStep>& steps) {
    const int have = SpaceOf(ref);
    if (have == need) return Id({ref, have});
    auto found = values_.find(ValueKey{ref, need});
    if (found != values_.end()) return found->second;
    ProtoStep copy{.node = ref.node,
                   .device = &device_,
                   .copy = need == kHostMemory ? Plan::Step::Copy::kToHost : Plan::Step::Copy::kToDevice,
                   .copy_output = ref.index};
    copy.inputs.push_back(Id({ref, have}));
    copy.outputs.push_back(Id({ref, need}));
    steps.push_back(std::move(copy));
    return steps.back().outputs[0];
  }

  // A node without inputs (a constant) that no device-placed node reads would only be
  // computed on the device to be copied back on every run: it stays on the host.
  void KeepHostOnlyConstantsOnHost() {
    absl::flat_hash_set<const Node*> read_on_device;
    for (const Node* node : spec_.nodes) {
      if (where_.at(node) == host_) continue;
      for (int i = 0; i < static_cast<int>(node->inputs().size()); ++i) {
        if (!device_.InputOnHost(*node, i)) read_on_device.insert(node->inputs()[i].node);
      }
    }
    for (const Node* node : spec_.nodes) {
      if (node->inputs().empty() && where_.at(node) != host_ && !read_on_device.contains(node) &&
          host_->SupportsOp(*node)) {
        where_[node] = host_;
      }
    }
  }

  const ExecutionSpec& spec_;
  const Device& device_;
  const Device* host_ = nullptr;
  absl::flat_hash_set<OutputRef> fed_;
  absl::flat_hash_map<const Node*, const Device*> where_;
  absl::flat_hash_map<ValueKey, int> values_;
  std::vector<int> fetch_values_;
};

}  // namespace

StatusOr<std::unique_ptr<const Plan>> Plan::Build(const ExecutionSpec& spec, const Device& device) {
  auto plan = std::make_unique<Plan>();
  plan->device_ = &device;
  Placer placer(spec, device);
  std::vector<int> feed_values;
  for (const OutputRef& feed : spec.feeds) feed_values.push_back(placer.FeedValue(feed));
  std::vector<ProtoStep> protos = placer.Steps();

  std::vector<int> slot_of(placer.num_values(), kNoSlot);
  int next_slot = 0;
  for (size_t f = 0; f < spec.feeds.size(); ++f) {
    slot_of[feed_values[f]] = next_slot;
    plan->feed_slots_.push_back(next_slot++);
    plan->feed_types_.push_back(spec.feeds[f].node->output(spec.feeds[f].index));
    plan->feed_nodes_.push_back(spec.feeds[f].node);
  }
  // The last step reading each value (values nobody reads get no slot).
  std::vector<int> last_reader(placer.num_values(), -1);
  for (size_t s = 0; s < protos.size(); ++s) {
    for (int v : protos[s].inputs) {
      if (v >= 0) last_reader[v] = static_cast<int>(s);
    }
  }
  for (const ProtoStep& p : protos) {
    for (int v : p.outputs) {
      if (v >= 0 && slot_of[v] == kNoSlot && last_reader[v] >= 0) slot_of[v] = next_slot++;
    }
  }
  for (int v : placer.fetch_values()) {
    if (slot_of[v] == kNoSlot) slot_of[v] = next_slot++;
    plan->fetch_slots_.push_back(slot_of[v]);
  }
  const int discard = next_slot++;
  plan->num_slots_ = next_slot;
  // Feeds and fetches are never released early.
  absl::flat_hash_set<int> kept(plan->feed_slots_.begin(), plan->feed_slots_.end());
  kept.insert(plan->fetch_slots_.begin(), plan->fetch_slots_.end());

  for (size_t s = 0; s < protos.size(); ++s) {
    const ProtoStep& p = protos[s];
    const Node* node = p.node;
    Step step{.node = node, .device = p.device, .copy = p.copy, .copy_output = p.copy_output};
    if (p.copy != Step::Copy::kNone) {
      step.kernel = std::make_unique<CopyKernel>(*p.device, p.copy == Step::Copy::kToDevice);
      ++plan->num_copies_;
    } else if (IsRuntimeOp(*node)) {
      ASSIGN_OR_RETURN(step.kernel, CreateRuntimeKernel(*node, device));
    } else {
      ASSIGN_OR_RETURN(step.kernel, p.device->CreateKernel(*node));
    }
    for (int v : p.inputs) {
      if (v < 0) {
        step.input_slots.push_back(kNoSlot);
        continue;
      }
      const int slot = slot_of[v];
      step.input_slots.push_back(slot);
      if (last_reader[v] == static_cast<int>(s) && !kept.contains(slot)) step.release_slots.push_back(slot);
    }
    for (size_t k = 0; k < step.input_slots.size(); ++k) {
      const int slot = step.input_slots[k];
      const bool released = slot != kNoSlot && std::find(step.release_slots.begin(), step.release_slots.end(),
                                                         slot) != step.release_slots.end();
      const bool once = std::count(step.input_slots.begin(), step.input_slots.end(), slot) == 1;
      step.forwardable.push_back(released && once);
      step.forwards = step.forwards || (released && once);
    }
    for (int v : p.outputs) step.output_slots.push_back(v < 0 || slot_of[v] == kNoSlot ? discard : slot_of[v]);
    if (p.copy == Step::Copy::kNone && node->num_outputs() == 1) step.constant = step.kernel->ConstantOutput();
    plan->steps_.push_back(std::move(step));
  }
  return std::unique_ptr<const Plan>(std::move(plan));
}

PlacementSummary Plan::Placement() const {
  PlacementSummary summary{.copies = num_copies_};
  for (const Step& step : steps_) {
    if (step.copy == Step::Copy::kNone) summary.nodes.emplace_back(step.node->name(), step.device->info().name);
  }
  return summary;
}

}  // namespace graphd::executor
