// Reference cycles among a module's Python values (`a = []; a.append(a)`, `o.me = o`,
// `d["d"] = d`): reference counting never frees them, so a session that made one
// would keep it (and any tensors in it) forever after closing. Each Interpreter keeps
// a ContainerRegistry of the containers its code creates (lists, dicts, instances,
// classes; registered while it runs, through ScopedContainerRegistry) and, when it
// goes, CollectCycles() frees those that only references among themselves keep alive:
// Python's cycle collection, once per module.
//
// Conservative by construction: a container that anything else refers to (a traced
// function shared through the function cache, a variable, a function's defaults or
// closure, a tuple) is left alone, as is everything it reaches; only what can no
// longer be reached from outside is cleared. Not thread-safe: the registry belongs to
// one interpreter, which runs on one thread at a time.
#ifndef GRAPHD_COMPILER_TRACER_CYCLES_H_
#define GRAPHD_COMPILER_TRACER_CYCLES_H_

#include <memory>
#include <vector>

#include "compiler/tracer/value.h"

namespace graphd::compiler::tracer {

class InstanceObj;
class ClassObj;

class ContainerRegistry {
 public:
  void Add(const std::shared_ptr<ListObj>& list);
  void Add(const std::shared_ptr<DictObj>& dict);
  void Add(const std::shared_ptr<InstanceObj>& instance);
  void Add(const std::shared_ptr<ClassObj>& cls);

  // Clears every registered container still alive that is garbage: reachable only
  // from other registered containers through cycles. Returns how many were cleared.
  int CollectCycles();


 private:
  template <typename T>
  void Push(std::vector<std::weak_ptr<T>>& v, const std::shared_ptr<T>& p);

  std::vector<std::weak_ptr<ListObj>> lists_;
  std::vector<std::weak_ptr<DictObj>> dicts_;
  std::vector<std::weak_ptr<InstanceObj>> instances_;
  std::vector<std::weak_ptr<ClassObj>> classes_;
};

// The registry of the interpreter running on this thread, or null.
ContainerRegistry* CurrentContainerRegistry();

class ScopedContainerRegistry {
 public:
  explicit ScopedContainerRegistry(ContainerRegistry* registry);
  ~ScopedContainerRegistry();
  ScopedContainerRegistry(const ScopedContainerRegistry&) = delete;
  ScopedContainerRegistry& operator=(const ScopedContainerRegistry&) = delete;

 private:
  ContainerRegistry* previous_;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_CYCLES_H_
