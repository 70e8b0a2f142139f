#include "executor/cpu/packed_weights.h"

#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "executor/cpu/dnnl_util.h"

namespace graphd::executor::cpu {
namespace {

// Live packed copies by source buffer. Holds weak references only: a copy is freed
// when its last kernel drops it; dead entries are pruned on the next request.
struct Registry {
  absl::Mutex mu;
  std::unordered_map<const Buffer*, std::vector<std::weak_ptr<const PackedWeights>>> by_source
      ABSL_GUARDED_BY(mu);

  void PruneLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (auto it = by_source.begin(); it != by_source.end();) {
      std::erase_if(it->second, [](const std::weak_ptr<const PackedWeights>& w) {
        std::shared_ptr<const PackedWeights> p = w.lock();
        return p == nullptr || p->source.expired();
      });
      it = it->second.empty() ? by_source.erase(it) : std::next(it);
    }
  }
};

Registry& TheRegistry() {
  static auto* registry = new Registry;
  return *registry;
}

}  // namespace

StatusOr<std::shared_ptr<const PackedWeights>> GetPackedWeights(const Tensor& source,
                                                                 const dnnl::memory::desc& plain,
                                                                 const dnnl::memory::desc& target) {
  if (source.buffer() == nullptr) return errors::InvalidArgument("packed weights: source has no buffer");
  if (plain.get_size() > source.buffer()->bytes()) {
    return errors::InvalidArgument(absl::StrCat("packed weights: layout needs ", plain.get_size(),
                                                " bytes, source ", source.DebugString(), " has ",
                                                source.buffer()->bytes()));
  }
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  r.PruneLocked();
  std::vector<std::weak_ptr<const PackedWeights>>& list = r.by_source[source.buffer().get()];
  for (const auto& w : list) {
    std::shared_ptr<const PackedWeights> p = w.lock();
    // Same address and still the same live buffer (not a recycled address).
    if (p != nullptr && p->desc == target && p->source.lock() == source.buffer()) return p;
  }
  auto packed = std::make_shared<PackedWeights>();
  packed->desc = target;
  packed->source = source.buffer();
  packed->memory = dnnl::memory(target, Engine());  // owns its storage
  dnnl::memory src = Wrap(plain, source);
  dnnl::reorder(src, packed->memory).execute(ThreadStream(), src, packed->memory);
  ThreadStream().wait();
  list.push_back(packed);
  return std::shared_ptr<const PackedWeights>(std::move(packed));
}

PackedWeightsStats GetPackedWeightsStats() {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  r.PruneLocked();
  PackedWeightsStats stats;
  for (const auto& [buffer, list] : r.by_source) {
    for (const auto& w : list) {
      if (std::shared_ptr<const PackedWeights> p = w.lock()) {
        ++stats.entries;
        stats.bytes += p->desc.get_size();
      }
    }
  }
  return stats;
}

}  // namespace graphd::executor::cpu
