#include "core/graph/ir_text.h"

#include <type_traits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/half.h"

namespace graphd {
namespace {

constexpr int64_t kMaxPrintedElements = 8;

std::string Element(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat32: return absl::StrCat(t.data<float>()[i]);
    case DType::kFloat64: return absl::StrCat(t.data<double>()[i]);
    case DType::kInt8: return absl::StrCat(t.data<int8_t>()[i]);
    case DType::kInt16: return absl::StrCat(t.data<int16_t>()[i]);
    case DType::kInt32: return absl::StrCat(t.data<int32_t>()[i]);
    case DType::kInt64: return absl::StrCat(t.data<int64_t>()[i]);
    case DType::kUInt8: return absl::StrCat(t.data<uint8_t>()[i]);
    case DType::kUInt16: return absl::StrCat(t.data<uint16_t>()[i]);
    case DType::kUInt32: return absl::StrCat(t.data<uint32_t>()[i]);
    case DType::kUInt64: return absl::StrCat(t.data<uint64_t>()[i]);
    case DType::kFloat16: return absl::StrCat(static_cast<float>(t.data<Float16>()[i]));
    case DType::kBFloat16: return absl::StrCat(static_cast<float>(t.data<BFloat16>()[i]));
    case DType::kBool: return t.data<bool>()[i] ? "true" : "false";
    case DType::kString: return absl::StrCat("\"", absl::CHexEscape(t.data<std::string>()[i]), "\"");
    default: return "?";
  }
}

std::string TensorToText(const Tensor& t) {
  std::string out = absl::StrCat(DTypeName(t.dtype()), t.shape().ToString(), "{");
  const int64_t n = t.raw_data() == nullptr ? 0 : t.num_elements();
  for (int64_t i = 0; i < n && i < kMaxPrintedElements; ++i) {
    absl::StrAppend(&out, i > 0 ? ", " : "", Element(t, i));
  }
  if (n > kMaxPrintedElements) absl::StrAppend(&out, ", ...");
  return out + "}";
}

std::string RefToText(const OutputRef& r) {
  return r.index == 0 ? r.node->name() : absl::StrCat(r.node->name(), ":", r.index);
}

std::string TypeToText(const TensorType& t) {
  return absl::StrCat(DTypeName(t.dtype), t.shape.ToString());
}

std::string Indent(int n) { return std::string(2 * n, ' '); }

}  // namespace

std::string AttrValueToText(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, float>) {
          return absl::StrCat(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return absl::StrCat("\"", absl::CHexEscape(v), "\"");
        } else if constexpr (std::is_same_v<T, DType>) {
          return std::string(DTypeName(v));
        } else if constexpr (std::is_same_v<T, PartialShape>) {
          return v.ToString();
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return TensorToText(v);
        } else if constexpr (std::is_same_v<T, IntList> || std::is_same_v<T, FloatList>) {
          return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
        } else if constexpr (std::is_same_v<T, StringList>) {
          return absl::StrCat("[", absl::StrJoin(v, ", ", [](std::string* out, const std::string& s) {
                                absl::StrAppend(out, "\"", absl::CHexEscape(s), "\"");
                              }), "]");
        } else if constexpr (std::is_same_v<T, TypeList>) {
          return absl::StrCat("[", absl::StrJoin(v, ", ", [](std::string* out, DType d) {
                                absl::StrAppend(out, DTypeName(d));
                              }), "]");
        } else if constexpr (std::is_same_v<T, ShapeList>) {
          return absl::StrCat("[", absl::StrJoin(v, ", ", [](std::string* out, const PartialShape& s) {
                                absl::StrAppend(out, s.ToString());
                              }), "]");
        } else if constexpr (std::is_same_v<T, FuncName>) {
          return "@" + v.name;
        } else {
          static_assert(std::is_same_v<T, FunctionRef>);
          return v == nullptr ? "@<null>" : "@" + v->name;
        }
      },
      value);
}

namespace {

// The functions printed so far in one text: each body is printed once; a later
// reference (If branches naming one function, nested bodies reached along several
// paths) says where, so the text grows with the distinct functions, not the paths.
using Shown = absl::flat_hash_set<const Function*>;

std::string FunctionText(const Function& function, int indent, Shown& shown);

std::string GraphText(const Graph& graph, const std::vector<OutputRef>* results, int indent, Shown& shown) {
  std::string out;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node& n = *graph.node(id);
    absl::StrAppend(&out, Indent(indent), n.name(), " = ", n.op_name());
    if (!n.attrs().empty()) {
      absl::StrAppend(&out, "[", absl::StrJoin(n.attrs(), ", ", [](std::string* o, const auto& kv) {
                        absl::StrAppend(o, kv.first, "=", AttrValueToText(kv.second));
                      }), "]");
    }
    std::vector<std::string> ins;
    for (const OutputRef& r : n.inputs()) ins.push_back(RefToText(r));
    for (const Node* c : n.control_inputs()) ins.push_back("^" + c->name());
    absl::StrAppend(&out, "(", absl::StrJoin(ins, ", "), ")");
    if (n.num_outputs() == 1) {
      absl::StrAppend(&out, " : ", TypeToText(n.output(0)));
    } else if (n.num_outputs() > 1) {
      std::vector<std::string> types;
      for (int i = 0; i < n.num_outputs(); ++i) types.push_back(TypeToText(n.output(i)));
      absl::StrAppend(&out, " : (", absl::StrJoin(types, ", "), ")");
    }
    if (!n.device().empty()) absl::StrAppend(&out, " @ ", n.device());
    out += "\n";
    for (const auto& [name, value] : n.attrs()) {
      const FunctionRef* fn = std::get_if<FunctionRef>(&value);
      if (fn == nullptr || *fn == nullptr) continue;
      if (!shown.insert(fn->get()).second) {
        absl::StrAppend(&out, Indent(indent + 1), name, " = @", (*fn)->name, " (printed above)\n");
        continue;
      }
      absl::StrAppend(&out, Indent(indent + 1), name, " = ", FunctionText(**fn, indent + 1, shown));
    }
  }
  if (results != nullptr) {
    std::vector<std::string> rs;
    for (const OutputRef& r : *results) rs.push_back(RefToText(r));
    absl::StrAppend(&out, Indent(indent), "return ", absl::StrJoin(rs, ", "), "\n");
  }
  return out;
}

std::string FunctionText(const Function& function, int indent, Shown& shown) {
  std::vector<std::string> args;
  for (const Node* a : function.args) args.push_back(a->name());
  return absl::StrCat("@", function.name, "(", absl::StrJoin(args, ", "), ") {\n",
                      GraphText(*function.graph, &function.results, indent + 1, shown), Indent(indent), "}\n");
}

}  // namespace

std::string GraphToText(const Graph& graph, const std::vector<OutputRef>* results, int indent) {
  Shown shown;
  return GraphText(graph, results, indent, shown);
}

std::string FunctionToText(const Function& function, int indent) {
  Shown shown = {&function};
  return FunctionText(function, indent, shown);
}

}  // namespace graphd
