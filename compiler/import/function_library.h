// A graph's function library: the Functions that control-flow nodes (If, While) name
// in function attributes, and the import of FunctionDefs into them.
#ifndef GRAPHD_COMPILER_IMPORT_FUNCTION_LIBRARY_H_
#define GRAPHD_COMPILER_IMPORT_FUNCTION_LIBRARY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/graph/function.h"
#include "core/graph/node_def.h"

namespace graphd::compiler {

// Functions by name. A session's library only grows: a name, once imported, keeps its
// function (Functions are immutable and may be shared by plans still running).
// Not thread-safe; the owner serialises access.
class FunctionLibrary {
 public:
  // nullptr when absent.
  FunctionRef Find(absl::string_view name) const;
  bool contains(absl::string_view name) const { return functions_.contains(name); }
  int size() const { return static_cast<int>(functions_.size()); }
  // Adds `fn` under its name; InvalidArgument when the name is taken.
  Status Add(FunctionRef fn);
  // Adds every function of `other`, whose names must all be new (checked first; on
  // error nothing is added).
  Status Merge(const FunctionLibrary& other);

 private:
  absl::flat_hash_map<std::string, FunctionRef> functions_;
};

// Imports `defs` into a library of new Functions (not yet merged into `existing`).
// Definitions may come in any order and name each other and functions of `existing`
// in their nodes' function attributes. Checks, all-or-nothing, every error naming the
// function (and node): valid names, new (unique in `defs`, absent from `existing`);
// references to known functions; no reference cycles (recursion is not supported);
// argument names valid and distinct, one type each, no DT_INVALID; body nodes as
// ImportNodes checks them, with no Placeholder or Arg nodes (bodies read arguments
// by name); results naming body tensors and matching the declared result types.
StatusOr<FunctionLibrary> ImportFunctionLibrary(const std::vector<FunctionDef>& defs,
                                                const FunctionLibrary& existing);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_IMPORT_FUNCTION_LIBRARY_H_
