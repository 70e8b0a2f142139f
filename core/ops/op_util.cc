#include "core/ops/op_util.h"

#include <vector>

namespace graphd::ops {

StatusOr<int> CanonicalAxis(const InferenceContext& c, int64_t axis, int rank,
                            absl::string_view what) {
  if (axis < -rank || axis >= rank) {
    return c.Error(absl::StrCat(what, " ", axis, " is out of range for a tensor of rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Status CheckDType(const InferenceContext& c, DType dtype, std::span<const DType> allowed,
                  absl::string_view what) {
  std::vector<absl::string_view> names;
  for (DType d : allowed) {
    if (d == dtype) return absl::OkStatus();
    names.push_back(DTypeName(d));
  }
  return c.Error(absl::StrCat(what, " is ", DTypeName(dtype), ", expected one of (",
                              absl::StrJoin(names, ", "), ")"));
}

Status CheckDType(const InferenceContext& c, DType dtype, std::initializer_list<DType> allowed,
                  absl::string_view what) {
  return CheckDType(c, dtype, std::span<const DType>(allowed.begin(), allowed.size()), what);
}

StatusOr<double> NumberAttr(const InferenceContext& c, absl::string_view name, double fallback) {
  auto it = c.attrs().find(name);
  if (it == c.attrs().end()) return fallback;
  if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  if (const float* f = std::get_if<float>(&it->second)) return static_cast<double>(*f);
  if (const bool* b = std::get_if<bool>(&it->second)) return *b ? 1.0 : 0.0;
  return c.Error(absl::StrCat("attribute '", name, "' must be int or float, got ",
                              AttrTypeName(it->second)));
}

StatusOr<IntList> IntListAttr(const InferenceContext& c, absl::string_view name, int64_t min) {
  ASSIGN_OR_RETURN(IntList list, c.Attr<IntList>(name));
  for (int64_t v : list) {
    if (v < min) {
      return c.Error(absl::StrCat("attribute '", name, "' has entry ", v, " < ", min, ": [",
                                  absl::StrJoin(list, ","), "]"));
    }
  }
  return list;
}

StatusOr<std::string> EnumAttr(const InferenceContext& c, absl::string_view name,
                               std::initializer_list<absl::string_view> choices,
                               absl::string_view fallback) {
  ASSIGN_OR_RETURN(std::string v, c.AttrOr<std::string>(name, std::string(fallback)));
  for (absl::string_view choice : choices) {
    if (v == choice) return v;
  }
  return c.Error(absl::StrCat("attribute '", name, "' is '", v, "', expected one of ",
                              absl::StrJoin(choices, ", ")));
}

PartialShape UnknownDims(int rank) {
  return PartialShape(std::vector<int64_t>(static_cast<size_t>(rank), kUnknownDim));
}

}  // namespace graphd::ops
