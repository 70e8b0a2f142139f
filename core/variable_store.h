// A session's variables, by name. Values are immutable Tensors: an assignment installs
// a new tensor, so a reader's snapshot never changes under it.
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

 private:
  struct Slot {
    mutable absl::Mutex mu;
    Tensor value ABSL_GUARDED_BY(mu);
  };
  Slot* FindOrCreate(absl::string_view name);
  const Slot* Find(absl::string_view name) const;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<Slot>> slots_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphd

#endif  // GRAPHD_CORE_VARIABLE_STORE_H_
