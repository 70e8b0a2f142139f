// Node attributes: the values a NodeDef carries besides its inputs.
#ifndef GRAPHD_CORE_ATTR_VALUE_H_
#define GRAPHD_CORE_ATTR_VALUE_H_

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace graphd {

// Names a function in a graph's function library (control-flow bodies).
struct FuncName {
  std::string name;
  bool operator==(const FuncName&) const = default;
};

// A function body (control-flow branches and loop bodies); see core/graph/function.h.
struct Function;
using FunctionRef = std::shared_ptr<const Function>;

using IntList = std::vector<int64_t>;
using FloatList = std::vector<float>;
using StringList = std::vector<std::string>;
using TypeList = std::vector<DType>;
using ShapeList = std::vector<PartialShape>;

// An empty list on the wire has no element type; it is read as an empty IntList and
// accepted wherever any list is expected.
using AttrValue = std::variant<int64_t, float, bool, std::string, DType, PartialShape, Tensor,
                               IntList, FloatList, StringList, TypeList, ShapeList, FuncName,
                               FunctionRef>;

// Ordered so that printed graphs and cache keys are deterministic.
using AttrMap = std::map<std::string, AttrValue, std::less<>>;

// "int", "list(int)", ... for error messages.
absl::string_view AttrTypeName(const AttrValue& value);

}  // namespace graphd

#endif  // GRAPHD_CORE_ATTR_VALUE_H_
