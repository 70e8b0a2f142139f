#include "executor/gpu/caching_allocator.h"

#include <limits>
#include <utility>

#include "absl/strings/str_format.h"

namespace graphd::executor::gpu {
namespace {

// "1.50 MiB (1572864 bytes)".
std::string FormatBytes(size_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%d bytes", bytes);
  return absl::StrFormat("%.2f %s (%d bytes)", value, kUnits[unit], bytes);
}

}  // namespace

bool CachingAllocator::CacheOrder::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return a->stream < b->stream;
  if (a->size != b->size) return a->size < b->size;
  return reinterpret_cast<std::uintptr_t>(a->ptr) < reinterpret_cast<std::uintptr_t>(b->ptr);
}

CachingAllocator::CachingAllocator(AllocatorBackend* backend) : backend_(backend) {}

CachingAllocator::~CachingAllocator() {
  absl::MutexLock lock(&mu_);
  TrimLocked();
}

size_t CachingAllocator::RoundUp(size_t bytes) {
  if (bytes == 0) return kGranularity;
  return (bytes + kGranularity - 1) / kGranularity * kGranularity;
}

absl::StatusOr<void*> CachingAllocator::Allocate(size_t bytes, Stream stream,
                                                 absl::string_view owner) {
  if (bytes > std::numeric_limits<size_t>::max() / 2) {
    return errors::ResourceExhausted(
        absl::StrFormat("device allocation of %d bytes is larger than any device", bytes));
  }
  const size_t size = RoundUp(bytes);
  absl::MutexLock lock(&mu_);
  if (Block* block = FindCached(size, stream)) {
    ++stats_.cache_hits;
    stats_.bytes_cached -= block->size;
    --stats_.blocks_cached;
    MarkInUse(block, stream, owner);
    return block->ptr;
  }
  absl::StatusOr<void*> ptr = backend_->Malloc(size);
  const size_t cached_before = stats_.bytes_cached;
  const bool retried = !ptr.ok() && absl::IsResourceExhausted(ptr.status()) && !cached_.empty();
  if (retried) {
    ++stats_.oom_trims;
    TrimLocked();
    ptr = backend_->Malloc(size);
  }
  if (!ptr.ok()) {
    if (absl::IsResourceExhausted(ptr.status())) {
      return errors::ResourceExhausted(absl::StrFormat(
          "out of device memory: asked for %s (rounded to %d) on stream %#x "
          "for owner "
          "'%s'; in use %s in %d blocks, cached %s%s; backend: %s",
          FormatBytes(bytes), size, stream, owner, FormatBytes(stats_.bytes_in_use),
          stats_.blocks_in_use, FormatBytes(cached_before),
          retried ? " (handed back to the device, then retried)" : "", ptr.status().message()));
    }
    return absl::Status(ptr.status().code(),
                        absl::StrFormat("device allocation of %s failed: %s", FormatBytes(bytes),
                                        ptr.status().message()));
  }
  if (*ptr == nullptr) {
    return errors::Internal(
        absl::StrFormat("device backend returned null for %s", FormatBytes(size)));
  }
  auto owned = std::make_unique<Block>();
  Block* block = owned.get();
  block->ptr = *ptr;
  block->size = size;
  if (!blocks_.emplace(block->ptr, std::move(owned)).second) {
    return errors::Internal(
        absl::StrFormat("device backend returned %p, which the allocator already holds", *ptr));
  }
  ++stats_.backend_mallocs;
  MarkInUse(block, stream, owner);
  return block->ptr;
}

CachingAllocator::Block* CachingAllocator::FindCached(size_t size, Stream stream) {
  Block probe;
  probe.stream = stream;
  probe.size = size;
  auto it = cached_.lower_bound(&probe);
  if (it != cached_.end() && (*it)->stream == stream && (*it)->size <= 2 * size) {
    return *it;
  }
  return FindOtherStream(size, stream);
}

CachingAllocator::Block* CachingAllocator::FindOtherStream(size_t size, Stream stream) {
  Block* best = nullptr;
  Block probe;
  auto it = cached_.begin();
  while (it != cached_.end()) {
    const Stream other = (*it)->stream;
    if (other != stream) {
      probe.stream = other;
      probe.size = size;
      probe.ptr = nullptr;
      // Sorted by size within the stream: the first ready block is this
      // stream's best.
      for (auto j = cached_.lower_bound(&probe);
           j != cached_.end() && (*j)->stream == other && (*j)->size <= 2 * size; ++j) {
        Block* block = *j;
        if (best != nullptr && block->size >= best->size) break;
        if (!block->has_event) {
          absl::StatusOr<Event> event = backend_->RecordEvent(other);
          if (!event.ok()) continue;  // not provably idle: leave it for its own stream
          block->event = *event;
          block->has_event = true;
        }
        if (backend_->EventDone(block->event)) {
          best = block;
          break;
        }
      }
    }
    // Skip to the next stream.
    probe.stream = other;
    probe.size = std::numeric_limits<size_t>::max();
    probe.ptr = reinterpret_cast<void*>(std::numeric_limits<std::uintptr_t>::max());
    it = cached_.upper_bound(&probe);
  }
  return best;
}

void CachingAllocator::DropEvent(Block* block) {
  if (!block->has_event) return;
  backend_->DestroyEvent(block->event);
  block->has_event = false;
  block->event = 0;
}

void CachingAllocator::MarkInUse(Block* block, Stream stream, absl::string_view owner) {
  cached_.erase(block);
  DropEvent(block);
  block->in_use = true;
  block->stream = stream;
  block->owner = std::string(owner);
  stats_.bytes_in_use += block->size;
  ++stats_.blocks_in_use;
  if (stats_.bytes_in_use > stats_.peak_bytes_in_use) {
    stats_.peak_bytes_in_use = stats_.bytes_in_use;
  }
  auto entry = stats_.owners.find(owner);
  if (entry == stats_.owners.end()) {
    entry = stats_.owners.emplace(std::string(owner), OwnerStats{}).first;
  }
  OwnerStats& o = entry->second;
  o.bytes_in_use += block->size;
  ++o.blocks_in_use;
  if (o.bytes_in_use > o.peak_bytes_in_use) o.peak_bytes_in_use = o.bytes_in_use;
}

absl::Status CachingAllocator::Free(void* ptr, Stream stream) {
  if (ptr == nullptr) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) {
    return errors::InvalidArgument(
        absl::StrFormat("Free of device pointer %p, which this allocator did "
                        "not hand out (or which was "
                        "freed and trimmed already)",
                        ptr));
  }
  Block* block = it->second.get();
  if (!block->in_use) {
    return errors::InvalidArgument(
        absl::StrFormat("double free of device pointer %p (%d bytes, freed "
                        "before on stream %#x)",
                        ptr, block->size, block->stream));
  }
  auto entry = stats_.owners.find(block->owner);
  if (entry != stats_.owners.end()) {
    entry->second.bytes_in_use -= block->size;
    --entry->second.blocks_in_use;
  }
  stats_.bytes_in_use -= block->size;
  --stats_.blocks_in_use;
  block->in_use = false;
  block->owner.clear();
  block->stream = stream;
  cached_.insert(block);
  stats_.bytes_cached += block->size;
  ++stats_.blocks_cached;
  return absl::OkStatus();
}

absl::Status CachingAllocator::ReleaseOwner(absl::string_view owner) {
  absl::MutexLock lock(&mu_);
  auto entry = stats_.owners.find(owner);
  if (entry == stats_.owners.end()) return absl::OkStatus();
  const OwnerStats& o = entry->second;
  if (o.blocks_in_use == 0) {
    stats_.owners.erase(entry);
    return absl::OkStatus();
  }
  return errors::FailedPrecondition(
      absl::StrFormat("device memory leak: owner '%s' was released with %d "
                      "blocks (%s) still in use; they "
                      "stay allocated until freed",
                      owner, o.blocks_in_use, FormatBytes(o.bytes_in_use)));
}

size_t CachingAllocator::Trim() {
  absl::MutexLock lock(&mu_);
  return TrimLocked();
}

size_t CachingAllocator::TrimLocked() {
  size_t released = 0;
  for (Block* block : cached_) {
    DropEvent(block);
    backend_->Free(block->ptr);
    ++stats_.backend_frees;
    released += block->size;
    blocks_.erase(block->ptr);  // destroys *block
  }
  cached_.clear();
  stats_.bytes_cached = 0;
  stats_.blocks_cached = 0;
  return released;
}

size_t CachingAllocator::BlockSize(const void* ptr) const {
  absl::MutexLock lock(&mu_);
  auto it = blocks_.find(ptr);
  return it == blocks_.end() || !it->second->in_use ? 0 : it->second->size;
}

AllocatorStats CachingAllocator::Stats() const {
  absl::MutexLock lock(&mu_);
  AllocatorStats stats = stats_;
  stats.bytes_backend = stats.bytes_in_use + stats.bytes_cached;
  return stats;
}

}  // namespace graphd::executor::gpu
