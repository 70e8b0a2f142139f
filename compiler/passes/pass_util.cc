#include "compiler/passes/pass_util.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

namespace graphd::compiler::passes {

std::vector<bool> ControlOutputs(const Graph& graph) {
  std::vector<bool> out(graph.num_nodes(), false);
  for (int id = 0; id < graph.num_nodes(); ++id) {
    for (const Node* c : graph.node(id)->control_inputs()) out[c->id()] = true;
  }
  return out;
}

bool IsPinned(const Node& node, const std::vector<bool>& control_outputs) {
  const OpDef& op = node.op();
  if (op.stateful || !op.ref_inputs.empty() || !node.control_inputs().empty() ||
      control_outputs[node.id()]) {
    return true;
  }
  if (op.name == "Arg" || op.name == "Placeholder") return true;
  for (const auto& [name, value] : node.attrs()) {
    if (std::holds_alternative<FunctionRef>(value) || std::holds_alternative<FuncName>(value)) return true;
  }
  return false;
}

bool TensorsEqual(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.raw_data() == b.raw_data()) return true;
  if (a.raw_data() == nullptr || b.raw_data() == nullptr) return a.num_elements() == 0 && b.num_elements() == 0;
  if (a.dtype() == DType::kString) {
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    }
    return true;
  }
  // Bitwise: -0.0 and 0.0 stay distinct, a NaN equals the same NaN.
  return std::memcmp(a.raw_data(), b.raw_data(), a.bytes()) == 0;
}

bool AttrValuesEqual(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, Tensor>) {
          return TensorsEqual(x, y);
        } else if constexpr (std::is_same_v<T, float>) {
          return std::memcmp(&x, &y, sizeof(float)) == 0;
        } else if constexpr (std::is_same_v<T, FloatList>) {
          return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
        } else {
          return x == y;  // FunctionRef: the same function object
        }
      },
      a);
}

bool AttrsEqual(const AttrMap& a, const AttrMap& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || !AttrValuesEqual(ia->second, ib->second)) return false;
  }
  return true;
}

size_t AttrsHash(const AttrMap& attrs) {
  size_t h = attrs.size();
  for (const auto& [name, value] : attrs) {
    h = absl::HashOf(h, name, value.index());
    if (const Tensor* t = std::get_if<Tensor>(&value)) {
      h = absl::HashOf(h, static_cast<int>(t->dtype()), t->shape().dims());
      if (t->dtype() != DType::kString && t->raw_data() != nullptr) {
        // The first bytes distinguish most constants; equality compares all of them.
        size_t n = std::min<size_t>(t->bytes(), 64);
        h = absl::HashOf(h, absl::string_view(static_cast<const char*>(t->raw_data()), n));
      }
    } else if (const int64_t* i = std::get_if<int64_t>(&value)) {
      h = absl::HashOf(h, *i);
    } else if (const std::string* s = std::get_if<std::string>(&value)) {
      h = absl::HashOf(h, *s);
    }
  }
  return h;
}

std::string FreshName(const Graph& graph, const std::string& base) {
  if (graph.FindNode(base) == nullptr) return base;
  for (int i = 1;; ++i) {
    std::string name = absl::StrCat(base, "_", i);
    if (graph.FindNode(name) == nullptr) return name;
  }
}

std::optional<float> ScalarConst(OutputRef ref) {
  if (!ref.node->Is(OpId::kConst)) return std::nullopt;
  auto it = ref.node->attrs().find("value");
  if (it == ref.node->attrs().end() || !std::holds_alternative<Tensor>(it->second)) return std::nullopt;
  const Tensor& t = std::get<Tensor>(it->second);
  if (t.dtype() != DType::kFloat32 || t.num_elements() != 1) return std::nullopt;
  return t.data<float>()[0];
}

}  // namespace graphd::compiler::passes
