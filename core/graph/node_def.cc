#include "core/graph/node_def.h"

#include "absl/strings/numbers.h"

namespace graphd {

StatusOr<TensorName> ParseTensorName(absl::string_view name) {
  TensorName out;
  auto colon = name.rfind(':');
  if (colon == absl::string_view::npos) {
    out.node = std::string(name);
  } else {
    out.node = std::string(name.substr(0, colon));
    int index;
    if (!absl::SimpleAtoi(name.substr(colon + 1), &index) || index < 0) {
      return errors::InvalidArgument(absl::StrCat(
          "malformed tensor name '", name, "': expected 'node' or 'node:index'"));
    }
    out.index = index;
  }
  if (out.node.empty() || out.node[0] == '^') {
    return errors::InvalidArgument(absl::StrCat(
        "malformed tensor name '", name, "': expected 'node' or 'node:index'"));
  }
  return out;
}

}  // namespace graphd
