// The set of known ops. Families register themselves by explicit calls
// (RegisterArrayOps, ...; see core/ops/all_ops.h), never by static initialisers.
// Thread safety: registration happens once, before use; lookups are then read-only.
#ifndef GRAPHD_CORE_GRAPH_OP_REGISTRY_H_
#define GRAPHD_CORE_GRAPH_OP_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/op_def.h"

namespace graphd {

class OpRegistry {
 public:
  // The process-wide registry with every op family registered.
  static const OpRegistry& Global();

  // Adds `def`; a second definition of the same name is a programming error (aborts).
  void Register(OpDef def);
  // Adds OpTrait bits to registered op `name`; an unknown name is a programming error
  // (aborts).
  void AddTraits(absl::string_view name, uint32_t traits);
  // Gives registered op `name` its OpId; unknown names abort, as above.
  void SetId(absl::string_view name, OpId id);
  // nullptr when unknown.
  const OpDef* Find(absl::string_view name) const;
  std::vector<std::string> OpNames() const;

 private:
  std::map<std::string, std::unique_ptr<OpDef>, std::less<>> ops_;
};

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_OP_REGISTRY_H_
