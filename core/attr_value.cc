#include "core/attr_value.h"

namespace graphd {

absl::string_view AttrTypeName(const AttrValue& value) {
  static constexpr absl::string_view kNames[] = {
      "int",       "float",       "bool",         "string",     "type",
      "shape",     "tensor",      "list(int)",    "list(float)", "list(string)",
      "list(type)", "list(shape)", "func",        "function body"};
  return kNames[value.index()];
}

}  // namespace graphd
