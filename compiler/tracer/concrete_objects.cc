#include "compiler/tracer/concrete_objects.h"

#include "compiler/tracer/errors.h"
#include "compiler/tracer/interpreter.h"

namespace graphd::compiler::tracer {
namespace {

// A plain object with fixed attributes (graph nodes, the graph def).
class RecordObj : public Object {
 public:
  RecordObj(std::string type, std::map<std::string, Value> attrs) : type_(std::move(type)), attrs_(std::move(attrs)) {}
  std::string TypeName() const override { return type_; }
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override {
    auto it = attrs_.find(name);
    if (it == attrs_.end()) return Object::GetAttr(interp, name);
    return it->second;
  }

 private:
  std::string type_;
  std::map<std::string, Value> attrs_;
};

// The function's graph: `as_graph_def().node` lists its top-level nodes in order.
Value GraphOf(const std::vector<std::pair<std::string, std::string>>& traced) {
  std::vector<Value> nodes;
  for (const auto& [name, op] : traced) {
    nodes.push_back(Value::Obj(std::make_shared<RecordObj>(
        "NodeDef", std::map<std::string, Value>{{"name", Value::Str(name)}, {"op", Value::Str(op)}})));
  }
  Value graph_def = Value::Obj(std::make_shared<RecordObj>(
      "GraphDef", std::map<std::string, Value>{{"node", Value::List(std::move(nodes))}}));
  Value as_graph_def = Value::Obj(std::make_shared<BuiltinObj>(
      "as_graph_def", [graph_def](Interpreter&, CallArgs&) -> StatusOr<Value> { return graph_def; }));
  return Value::Obj(std::make_shared<RecordObj>("FuncGraph", std::map<std::string, Value>{{"as_graph_def", as_graph_def}}));
}

}  // namespace

std::string ConcreteFunctionObj::Repr() const {
  return "<ConcreteFunction " + name_ + ">";
}

StatusOr<Value> ConcreteFunctionObj::GetAttr(Interpreter& interp, const std::string& name) {
  if (name == "graph") return GraphOf(nodes_);
  if (name == "name") return Value::Str(name_);
  return Object::GetAttr(interp, name);
}

StatusOr<Value> ConcreteFunctionObj::Call(Interpreter& interp, CallArgs& args) {
  if (!specs_.empty() && interp.tensor_hooks() != nullptr) {
    auto handled = interp.tensor_hooks()->CallFunction(interp, fn_, args, specs_);
    if (handled) return *std::move(handled);
  }
  return interp.Call(fn_, args);
}

}  // namespace graphd::compiler::tracer
