#include "compiler/tracer/cycles.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "compiler/tracer/objects.h"

namespace graphd::compiler::tracer {
namespace {

thread_local ContainerRegistry* current_registry = nullptr;

// One live registered container during a collection.
struct Node {
  std::shared_ptr<void> keep;  // holds it alive while collecting
  long external = 0;           // references not from other registered containers
  bool reachable = false;
  std::vector<Value> (*children)(void*) = nullptr;
  void (*clear)(void*, std::vector<Value>&) = nullptr;
};

// Each takes Node::keep.get(): the container as its own type (InstanceObj*, not Object*).
std::vector<Value> ListChildren(void* p) { return static_cast<ListObj*>(p)->items; }
std::vector<Value> DictChildren(void* p) {
  std::vector<Value> out;
  for (const auto& [k, v] : static_cast<DictObj*>(p)->items) {
    out.push_back(k);
    out.push_back(v);
  }
  return out;
}
std::vector<Value> InstanceChildren(void* p) {
  auto* instance = static_cast<InstanceObj*>(p);
  std::vector<Value> out;
  for (const auto& [name, v] : instance->attrs()) out.push_back(v);
  out.push_back(Value::Obj(instance->cls()));  // an instance holds its class too
  return out;
}
std::vector<Value> ClassChildren(void* p) {
  std::vector<Value> out;
  for (const auto& [name, v] : static_cast<ClassObj*>(p)->dict().attrs()) out.push_back(v);
  return out;
}

void ClearList(void* p, std::vector<Value>& out) {
  auto& items = static_cast<ListObj*>(p)->items;
  for (Value& v : items) out.push_back(std::move(v));
  items.clear();
}
void ClearDict(void* p, std::vector<Value>& out) {
  auto& items = static_cast<DictObj*>(p)->items;
  for (auto& [k, v] : items) {
    out.push_back(std::move(k));
    out.push_back(std::move(v));
  }
  items.clear();
}
void ClearInstance(void* p, std::vector<Value>& out) {
  for (auto& [name, v] : static_cast<InstanceObj*>(p)->TakeAttrs()) out.push_back(std::move(v));
}
void ClearClass(void* p, std::vector<Value>& out) {
  Namespace& dict = static_cast<ClassObj*>(p)->dict();
  for (const auto& [name, v] : dict.attrs()) out.push_back(v);
  dict.Clear();
}

// The registered container `v` is, or null (tuples, tensors, other objects, scalars).
void* ContainerOf(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kList: return v.as_list().get();
    case Value::Kind::kDict: return v.as_dict().get();
    case Value::Kind::kObject: return v.as_object().get();
    default: return nullptr;
  }
}

}  // namespace

template <typename T>
void ContainerRegistry::Push(std::vector<std::weak_ptr<T>>& v, const std::shared_ptr<T>& p) {
  if (v.size() >= 64 && v.size() == v.capacity()) {  // amortised pruning
    std::erase_if(v, [](const std::weak_ptr<T>& w) { return w.expired(); });
  }
  v.push_back(p);
}

void ContainerRegistry::Add(const std::shared_ptr<ListObj>& list) { Push(lists_, list); }
void ContainerRegistry::Add(const std::shared_ptr<DictObj>& dict) { Push(dicts_, dict); }
void ContainerRegistry::Add(const std::shared_ptr<InstanceObj>& instance) { Push(instances_, instance); }
void ContainerRegistry::Add(const std::shared_ptr<ClassObj>& cls) { Push(classes_, cls); }

int ContainerRegistry::CollectCycles() {
  // 1. The live containers, each with its reference count less our own hold.
  std::vector<Node> nodes;
  absl::flat_hash_map<void*, size_t> index;
  // Keyed by the address a Value holds (Object* for instances and classes).
  auto add = [&](auto strong, void* key, auto children, auto clear) {
    if (strong == nullptr || index.contains(key)) return;
    index[key] = nodes.size();
    Node n;
    n.external = strong.use_count() - 2;  // less `p` and `strong` (ours)
    n.children = children;
    n.clear = clear;
    n.keep = std::move(strong);  // `p` goes at the end of the loop body
    nodes.push_back(std::move(n));
  };
  for (const auto& w : lists_) {
    auto p = w.lock();
    add(p, p.get(), ListChildren, ClearList);
  }
  for (const auto& w : dicts_) {
    auto p = w.lock();
    add(p, p.get(), DictChildren, ClearDict);
  }
  for (const auto& w : instances_) {
    auto p = w.lock();
    add(p, static_cast<Object*>(p.get()), InstanceChildren, ClearInstance);
  }
  for (const auto& w : classes_) {
    auto p = w.lock();
    add(p, static_cast<Object*>(p.get()), ClassChildren, ClearClass);
  }
  // 2. Take away the references registered containers hold to each other (directly:
  //    a reference from inside a tuple counts as external, which only keeps more).
  for (Node& n : nodes) {
    for (const Value& child : n.children(n.keep.get())) {
      if (void* c = ContainerOf(child)) {
        if (auto it = index.find(c); it != index.end()) nodes[it->second].external -= 1;
      }
    }
  }
  // 3. What is referred to from outside, and everything it reaches (through tuples
  //    too), stays. Iterative: values nest without bound.
  std::vector<size_t> pending;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].external > 0) {
      nodes[i].reachable = true;
      pending.push_back(i);
    }
  }
  std::vector<Value> values;
  while (!pending.empty()) {
    Node& n = nodes[pending.back()];
    pending.pop_back();
    values = n.children(n.keep.get());
    while (!values.empty()) {
      Value v = std::move(values.back());
      values.pop_back();
      if (v.is(Value::Kind::kTuple)) {
        for (const Value& item : v.as_tuple()) values.push_back(item);
        continue;
      }
      if (void* c = ContainerOf(v)) {
        if (auto it = index.find(c); it != index.end() && !nodes[it->second].reachable) {
          nodes[it->second].reachable = true;
          pending.push_back(it->second);
        }
      }
    }
  }
  // 4. Clear the rest: the cycles fall apart when `nodes` lets go.
  int cleared = 0;
  std::vector<Value> released;
  for (Node& n : nodes) {
    if (n.reachable) continue;
    n.clear(n.keep.get(), released);
    ++cleared;
  }
  ReleaseNested(released);
  nodes.clear();
  std::erase_if(lists_, [](const auto& w) { return w.expired(); });
  std::erase_if(dicts_, [](const auto& w) { return w.expired(); });
  std::erase_if(instances_, [](const auto& w) { return w.expired(); });
  std::erase_if(classes_, [](const auto& w) { return w.expired(); });
  return cleared;
}

ContainerRegistry* CurrentContainerRegistry() { return current_registry; }

ScopedContainerRegistry::ScopedContainerRegistry(ContainerRegistry* registry) : previous_(current_registry) {
  current_registry = registry;
}
ScopedContainerRegistry::~ScopedContainerRegistry() { current_registry = previous_; }

}  // namespace graphd::compiler::tracer
