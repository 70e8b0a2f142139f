#include "core/graph/op_def.h"

namespace graphd {

Status InferenceContext::Error(absl::string_view message) const {
  return errors::WithNode(errors::InvalidArgument(absl::StrCat(
                              "node '", node_name_, "' (", op_.name, "): ", message)),
                          node_name_);
}

Status InferenceContext::AttrTypeError(absl::string_view name, const AttrValue& v,
                                       absl::string_view want) const {
  return Error(absl::StrCat("attribute '", name, "' must be ", want, ", got ",
                            AttrTypeName(v)));
}

}  // namespace graphd
