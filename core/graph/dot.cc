#include "core/graph/dot.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace graphd {
namespace {

// A DOT double-quoted string: quotes and backslashes escaped, "\n" kept as line breaks.
std::string Quote(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string TypeText(const TensorType& t) {
  return absl::StrCat(DTypeName(t.dtype), t.shape.known_rank() ? t.shape.ToString() : " (unknown shape)");
}

class Emitter {
 public:
  std::string Finish(absl::string_view title) {
    return absl::StrCat("digraph ", Quote(title), " {\n  compound=true;\n  rankdir=TB;\n",
                        "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n", body_, "}\n");
  }

  // Emits the nodes of `graph` with ids prefixed by `prefix`, then (when given) its
  // results as a "return" node. Returns the id of a node inside, for cluster edges.
  std::string Graph(const graphd::Graph& graph, const std::vector<OutputRef>* results, const std::string& prefix,
                    int depth) {
    std::string pad(2 * depth + 2, ' ');
    std::string anchor;
    for (int i = 0; i < graph.num_nodes(); ++i) {
      const Node* n = graph.node(i);
      std::string id = Id(prefix, n);
      if (anchor.empty()) anchor = id;
      std::string label = absl::StrCat(n->name(), "\n", n->op_name());
      for (int o = 0; o < n->num_outputs(); ++o) {
        absl::StrAppend(&label, "\n", n->num_outputs() > 1 ? absl::StrCat(o, ": ") : "", TypeText(n->output(o)));
      }
      bool is_arg = n->op_name() == "Arg" || n->op_name() == "Placeholder";
      absl::StrAppend(&body_, pad, Quote(id), " [label=", Quote(label), is_arg ? ", shape=ellipse" : "", "];\n");
      for (size_t k = 0; k < n->inputs().size(); ++k) {
        const OutputRef& in = n->inputs()[k];
        absl::StrAppend(&body_, pad, Quote(Id(prefix, in.node)), " -> ", Quote(id),
                        in.index > 0 ? absl::StrCat(" [label=\":", in.index, "\"]") : "", ";\n");
      }
      for (const Node* c : n->control_inputs()) {
        absl::StrAppend(&body_, pad, Quote(Id(prefix, c)), " -> ", Quote(id), " [style=dashed];\n");
      }
      for (const auto& [attr, value] : n->attrs()) {
        const auto* fn = std::get_if<FunctionRef>(&value);
        if (fn == nullptr || *fn == nullptr) continue;
        // A body drawn already (If branches naming one function, or nested bodies
        // reached along several paths) gets an edge to that drawing, not a copy: the
        // picture grows with the distinct functions, not with the paths to them.
        if (auto drawn = drawn_.find(fn->get()); drawn != drawn_.end()) {
          if (!drawn->second.empty()) {
            absl::StrAppend(&body_, pad, Quote(id), " -> ", Quote(drawn->second), " [style=dotted, label=",
                            Quote(absl::StrCat(attr, " @", (*fn)->name)), "];\n");
          }
          continue;
        }
        drawn_[fn->get()] = "";  // a function reaching itself stops here
        std::string cluster = absl::StrCat("cluster_", clusters_++);
        absl::StrAppend(&body_, pad, "subgraph ", cluster, " {\n", pad, "  label=",
                        Quote(absl::StrCat(n->name(), ".", attr, " @", (*fn)->name)), ";\n", pad,
                        "  style=rounded;\n");
        std::string inner = Graph(*(*fn)->graph, &(*fn)->results, absl::StrCat(cluster, "/"), depth + 1);
        drawn_[fn->get()] = inner;
        absl::StrAppend(&body_, pad, "}\n");
        if (!inner.empty()) {
          absl::StrAppend(&body_, pad, Quote(id), " -> ", Quote(inner), " [style=dotted, lhead=", cluster, "];\n");
        }
      }
    }
    if (results != nullptr) {
      std::string ret = prefix + "return";
      absl::StrAppend(&body_, pad, Quote(ret), " [label=\"return\", shape=plaintext];\n");
      for (size_t k = 0; k < results->size(); ++k) {
        const OutputRef& r = (*results)[k];
        absl::StrAppend(&body_, pad, Quote(Id(prefix, r.node)), " -> ", Quote(ret), " [label=",
                        Quote(absl::StrCat(k, r.index > 0 ? absl::StrCat(" (:", r.index, ")") : "")), "];\n");
      }
      if (anchor.empty()) anchor = ret;
    }
    return anchor;
  }

 private:
  static std::string Id(const std::string& prefix, const Node* n) { return prefix + n->name(); }

  std::string body_;
  int clusters_ = 0;
  absl::flat_hash_map<const Function*, std::string> drawn_;  // body -> a node id inside it
};

}  // namespace

std::string FunctionToDot(const Function& function, absl::string_view title) {
  Emitter e;
  e.Graph(*function.graph, &function.results, "", 0);
  return e.Finish(title.empty() ? absl::string_view(function.name) : title);
}

std::string GraphToDot(const Graph& graph, absl::string_view title) {
  Emitter e;
  e.Graph(graph, nullptr, "", 0);
  return e.Finish(title);
}

}  // namespace graphd
