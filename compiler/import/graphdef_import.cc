#include "compiler/import/graphdef_import.h"

#include "compiler/import/node_import.h"

namespace graphd::compiler {

Status ImportGraphDef(const GraphDef& def, Graph& graph, FunctionLibrary* library) {
  FunctionLibrary scratch;
  FunctionLibrary& existing = library != nullptr ? *library : scratch;
  ASSIGN_OR_RETURN(FunctionLibrary imported, ImportFunctionLibrary(def.library, existing));
  FunctionLookup lookup = [&](absl::string_view name) -> FunctionRef {
    FunctionRef fn = imported.Find(name);
    return fn != nullptr ? fn : existing.Find(name);
  };
  RETURN_IF_ERROR(ImportNodes(def.nodes, graph, lookup));
  // Cannot fail: ImportFunctionLibrary checked that every name is new.
  return existing.Merge(imported);
}

}  // namespace graphd::compiler
