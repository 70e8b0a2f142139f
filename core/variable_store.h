// A session's variables, by name. Values are immutable Tensors: an assignment installs
// a new tensor, so a reader's snapshot never changes under it. It also holds the
// session's other run state that kernels shared by sessions must not keep themselves:
// the positions of stateful random streams.
// Thread safety: all methods are safe from many threads. Update() serialises
// read-modify-write on one variable; different variables proceed in parallel.
#ifndef GRAPHD_CORE_VARIABLE_STORE_H_
#define GRAPHD_CORE_VARIABLE_STORE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/tensor.h"

namespace graphd {

class VariableStore {
 public:
  // The current value; FailedPrecondition naming the variable when never assigned.
  StatusOr<Tensor> Read(absl::string_view name) const;
  // Installs `value` as the variable's value.
  void Assign(absl::string_view name, Tensor value);
  // Replaces the value with fn(current) atomically; FailedPrecondition when unset.
  StatusOr<Tensor> Update(absl::string_view name,
                          const std::function<StatusOr<Tensor>(const Tensor&)>& fn);
  int size() const;

  // Stateful random ops (one concrete function may serve many sessions, so each
  // session draws its own stream): reserves `blocks` blocks of stream `stream` (a
  // kernel's id, never reused in the process) and returns the first; each session's
  // stream starts at 0.
  uint64_t TakeRandomBlocks(uint64_t stream, uint64_t blocks);
  // Per session (random at creation): mixed into the key of unseeded random ops, so
  // sessions sharing a function do not draw the same numbers.
  uint64_t random_salt() const { return random_salt_; }

 private:
  struct Slot {
    mutable absl::Mutex mu;
    Tensor value ABSL_GUARDED_BY(mu);
  };
  Slot* FindOrCreate(absl::string_view name);
  const Slot* Find(absl::string_view name) const;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<Slot>> slots_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, uint64_t> random_next_ ABSL_GUARDED_BY(mu_);
  const uint64_t random_salt_ = NewRandomSalt();
  static uint64_t NewRandomSalt();
};

}  // namespace graphd

#endif  // GRAPHD_CORE_VARIABLE_STORE_H_
