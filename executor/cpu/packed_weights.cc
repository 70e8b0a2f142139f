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

// The bytes from a plain (strided, unblocked) layout's first element to the end of its
// last: what it reads. oneDNN's get_size() is the dims times the outer stride, which
// counts a block of columns as if it reached its matrix's last column.
size_t SpanBytes(const dnnl::memory::desc& plain) {
  const dnnl_memory_desc_t& d = plain.data;
  if (d.format_kind != dnnl_blocked || d.format_desc.blocking.inner_nblks != 0) return plain.get_size();
  size_t last = 0;
  for (int i = 0; i < d.ndims; ++i) {
    if (d.dims[i] == 0) return 0;
    last += static_cast<size_t>(d.dims[i] - 1) * static_cast<size_t>(d.format_desc.blocking.strides[i]);
  }
  return (last + 1) * dnnl::memory::data_type_size(plain.data_type());
}

}  // namespace

StatusOr<std::shared_ptr<const PackedWeights>> GetPackedWeights(const Tensor& source,
                                                                 const dnnl::memory::desc& plain,
                                                                 const dnnl::memory::desc& target,
                                                                 int64_t offset) {
  if (source.buffer() == nullptr) return errors::InvalidArgument("packed weights: source has no buffer");
  const size_t offset_bytes = static_cast<size_t>(offset) * DTypeSize(source.dtype());
  const size_t span = SpanBytes(plain);
  if (offset < 0 || offset_bytes > source.buffer()->bytes() || span > source.buffer()->bytes() - offset_bytes) {
    return errors::InvalidArgument(absl::StrCat("packed weights: layout needs ", span, " bytes at element ",
                                                offset, ", source ", source.DebugString(), " has ",
                                                source.buffer()->bytes()));
  }
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  r.PruneLocked();
  std::vector<std::weak_ptr<const PackedWeights>>& list = r.by_source[source.buffer().get()];
  for (const auto& w : list) {
    std::shared_ptr<const PackedWeights> p = w.lock();
    // Same address and still the same live buffer (not a recycled address).
    if (p != nullptr && p->desc == target && p->plain == plain && p->offset == offset &&
        p->source.lock() == source.buffer()) {
      return p;
    }
  }
  auto packed = std::make_shared<PackedWeights>();
  packed->desc = target;
  packed->source = source.buffer();
  packed->plain = plain;
  packed->offset = offset;
  packed->memory = dnnl::memory(target, Engine());  // owns its storage
  dnnl::memory src = Wrap(plain, source);
  src.set_data_handle(static_cast<char*>(src.get_data_handle()) + offset_bytes);
  ApplyIntraOpThreads();
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
