#include "compiler/import/graphdef_fingerprint.h"

#include <type_traits>

namespace graphd::compiler {
namespace {

void AddShape(Fingerprinter& f, const PartialShape& s) {
  if (!s.known_rank()) {
    f.AddInt(-2);
    return;
  }
  f.AddInt(s.rank());
  for (int i = 0; i < s.rank(); ++i) f.AddInt(s.dim(i));
}

void AddNode(Fingerprinter& f, const NodeDef& n) {
  f.Add(n.name).Add(n.op).Add(n.device).AddInt(static_cast<int64_t>(n.inputs.size()));
  for (const std::string& in : n.inputs) f.Add(in);
  f.AddInt(static_cast<int64_t>(n.attrs.size()));
  for (const auto& [name, value] : n.attrs) {
    f.Add(name);
    AddAttrValue(f, value);
  }
}

}  // namespace

void AddTensor(Fingerprinter& f, const Tensor& t) {
  f.AddInt(static_cast<int64_t>(t.dtype()));
  AddShape(f, PartialShape(t.shape()));
  if (!t.on_host()) {
    // Device memory is not readable here: the tensor's identity stands for its value.
    f.AddInt(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.buffer().get())));
    return;
  }
  if (t.dtype() == DType::kString) {
    const std::string* s = t.data<std::string>();
    for (int64_t i = 0; i < t.num_elements(); ++i) f.Add(s[i]);
  } else {
    f.Add(absl::string_view(static_cast<const char*>(t.raw_data()), t.bytes()));
  }
}

void AddAttrValue(Fingerprinter& f, const AttrValue& value) {
  f.AddInt(static_cast<int64_t>(value.index()));
  std::visit(
      [&f](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, bool>) {
          f.AddInt(v);
        } else if constexpr (std::is_same_v<T, float>) {
          f.Add(absl::string_view(reinterpret_cast<const char*>(&v), sizeof(v)));
        } else if constexpr (std::is_same_v<T, std::string>) {
          f.Add(v);
        } else if constexpr (std::is_same_v<T, DType>) {
          f.AddInt(static_cast<int64_t>(v));
        } else if constexpr (std::is_same_v<T, PartialShape>) {
          AddShape(f, v);
        } else if constexpr (std::is_same_v<T, Tensor>) {
          AddTensor(f, v);
        } else if constexpr (std::is_same_v<T, FuncName>) {
          f.Add(v.name);
        } else if constexpr (std::is_same_v<T, FunctionRef>) {
          // An imported body (not from the wire): its identity.
          f.AddInt(static_cast<int64_t>(reinterpret_cast<uintptr_t>(v.get())));
        } else {  // lists
          f.AddInt(static_cast<int64_t>(v.size()));
          for (const auto& e : v) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<E, float>) {
              f.Add(absl::string_view(reinterpret_cast<const char*>(&e), sizeof(e)));
            } else if constexpr (std::is_same_v<E, std::string>) {
              f.Add(e);
            } else if constexpr (std::is_same_v<E, PartialShape>) {
              AddShape(f, e);
            } else {
              f.AddInt(static_cast<int64_t>(e));
            }
          }
        }
      },
      value);
}

void AddGraphDef(Fingerprinter& f, const GraphDef& def) {
  f.AddInt(static_cast<int64_t>(def.nodes.size()));
  for (const NodeDef& n : def.nodes) AddNode(f, n);
  f.AddInt(static_cast<int64_t>(def.library.size()));
  for (const FunctionDef& fn : def.library) {
    f.Add(fn.name).AddInt(static_cast<int64_t>(fn.arg_names.size()));
    for (const std::string& a : fn.arg_names) f.Add(a);
    for (const TensorType& t : fn.arg_types) {
      f.AddInt(static_cast<int64_t>(t.dtype));
      AddShape(f, t.shape);
    }
    f.AddInt(static_cast<int64_t>(fn.results.size()));
    for (const std::string& r : fn.results) f.Add(r);
    f.AddInt(static_cast<int64_t>(fn.result_types.size()));
    for (const TensorType& t : fn.result_types) {
      f.AddInt(static_cast<int64_t>(t.dtype));
      AddShape(f, t.shape);
    }
    f.AddInt(static_cast<int64_t>(fn.nodes.size()));
    for (const NodeDef& n : fn.nodes) AddNode(f, n);
  }
}

}  // namespace graphd::compiler
