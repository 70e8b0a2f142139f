#include "core/variable_store.h"

#include <random>

namespace graphd {
namespace {
Status Uninitialized(absl::string_view name) {
  return errors::WithNode(
      errors::FailedPrecondition(absl::StrCat("Attempting to use uninitialized value ", name,
                                              " (run its initializer first)")),
      name);
}
}  // namespace

VariableStore::Slot* VariableStore::FindOrCreate(absl::string_view name) {
  absl::MutexLock lock(&mu_);
  auto& slot = slots_[name];
  if (!slot) slot = std::make_unique<Slot>();
  return slot.get();
}

const VariableStore::Slot* VariableStore::Find(absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = slots_.find(name);
  return it == slots_.end() ? nullptr : it->second.get();
}

StatusOr<Tensor> VariableStore::Read(absl::string_view name) const {
  const Slot* slot = Find(name);
  if (slot == nullptr) return Uninitialized(name);
  absl::MutexLock lock(&slot->mu);
  if (!slot->value.valid()) return Uninitialized(name);
  return slot->value;
}

void VariableStore::Assign(absl::string_view name, Tensor value) {
  Slot* slot = FindOrCreate(name);
  absl::MutexLock lock(&slot->mu);
  slot->value = std::move(value);
}

StatusOr<Tensor> VariableStore::Update(absl::string_view name,
                                       const std::function<StatusOr<Tensor>(const Tensor&)>& fn) {
  Slot* slot = FindOrCreate(name);
  absl::MutexLock lock(&slot->mu);
  if (!slot->value.valid()) return Uninitialized(name);
  ASSIGN_OR_RETURN(Tensor next, fn(slot->value));
  slot->value = next;
  return next;
}

int VariableStore::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(slots_.size());
}

uint64_t VariableStore::TakeRandomBlocks(uint64_t stream, uint64_t blocks) {
  absl::MutexLock lock(&mu_);
  uint64_t& next = random_next_[stream];
  const uint64_t first = next;
  next += blocks;
  return first;
}

uint64_t VariableStore::NewRandomSalt() {
  std::random_device device;
  return (uint64_t{device()} << 32) | device();
}

}  // namespace graphd
