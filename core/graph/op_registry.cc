#include "core/graph/op_registry.h"

#include <cstdio>
#include <cstdlib>

#include "core/ops/all_ops.h"

namespace graphd {

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterAllOps(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(OpDef def) {
  std::string name = def.name;
  auto [it, inserted] = ops_.emplace(name, std::make_unique<OpDef>(std::move(def)));
  if (!inserted) {
    std::fprintf(stderr, "graphd: op %s registered twice\n", name.c_str());
    std::abort();
  }
}

void OpRegistry::SetId(absl::string_view name, OpId id) {
  auto it = ops_.find(name);
  if (it == ops_.end()) {
    std::fprintf(stderr, "graphd: an id for unknown op %.*s\n", static_cast<int>(name.size()), name.data());
    std::abort();
  }
  it->second->id = id;
}

void OpRegistry::AddTraits(absl::string_view name, uint32_t traits) {
  auto it = ops_.find(name);
  if (it == ops_.end()) {
    std::fprintf(stderr, "graphd: traits for unknown op %.*s\n", static_cast<int>(name.size()), name.data());
    std::abort();
  }
  it->second->traits |= traits;
}

const OpDef* OpRegistry::Find(absl::string_view name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::OpNames() const {
  std::vector<std::string> names;
  for (const auto& [name, def] : ops_) names.push_back(name);
  return names;
}

}  // namespace graphd
