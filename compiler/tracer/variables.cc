#include "compiler/tracer/variables.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/tracer.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// Variables are named uniquely in the process, so modules of one session never clash.
AttrMap VarAttrs(const VariableObj& v) {
  return {{"var_name", v.store_name()}, {"dtype", v.dtype()}, {"shape", v.shape()}};
}

}  // namespace

std::string VariableObj::Repr() const {
  return "<tf.Variable '" + display_name_ + ":0' shape=" + ShapeRepr(shape_) + " dtype=" + std::string(DTypeName(dtype_)) + ">";
}

StatusOr<Value> VariableObj::AsTensor(Interpreter& interp) {
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
  return t->Op("ReadVariableOp", {}, VarAttrs(*this), "ReadVariableOp", /*stateful=*/true);
}

StatusOr<Value> VariableObj::Update(Interpreter& interp, const std::string& op, const Value& value) {
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
  ASSIGN_OR_RETURN(OutputRef v, t->ToTensor(value, dtype_));
  return t->Op(op, {v}, VarAttrs(*this), op, /*stateful=*/true);
}

StatusOr<Value> VariableObj::GetAttr(Interpreter& interp, const std::string& name) {
  auto self = std::static_pointer_cast<VariableObj>(shared_from_this());
  auto method = [&](const char* op) {
    std::string op_name = op;
    return Value::Obj(std::make_shared<BuiltinObj>(name, [self, op_name, name](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
      if (a.args.size() != 1) return PyError("TypeError", name + "() takes one value");
      return self->Update(in, op_name, a.args[0]);
    }));
  };
  if (name == "assign") return method("AssignVariableOp");
  if (name == "assign_add") return method("AssignAddVariableOp");
  if (name == "assign_sub") return method("AssignSubVariableOp");
  if (name == "read_value" || name == "value") {
    return Value::Obj(std::make_shared<BuiltinObj>(name, [self](Interpreter& in, CallArgs&) { return self->AsTensor(in); }));
  }
  if (name == "dtype") return DTypeObj::Make(dtype_);
  if (name == "trainable") return Value::Bool(trainable_);
  if (name == "name") return Value::Str(display_name_ + ":0");
  if (name == "shape") {
    if (!shape_.known_rank()) return Value::None();
    std::vector<Value> dims;
    for (int64_t d : shape_.dims()) dims.push_back(d == kUnknownDim ? Value::None() : Value::Int(d));
    return Value::Tuple(std::move(dims));
  }
  // Tensor methods (x.numpy(), ...) on the current value.
  ASSIGN_OR_RETURN(Value t, AsTensor(interp));
  return interp.GetAttr(t, name);
}

StatusOr<Value> MakeVariable(Interpreter& interp, CallArgs& call) {
  Value initial, name = Value::None(), dtype_v = Value::None(), trainable = Value::Bool(true);
  if (!call.args.empty()) initial = call.args[0];
  for (const auto& [k, v] : call.kwargs) {
    if (k == "initial_value") initial = v;
    else if (k == "name") name = v;
    else if (k == "dtype") dtype_v = v;
    else if (k == "trainable") trainable = v;
    else if (k != "shape") return PyError("TypeError", "Variable() got an unexpected keyword argument '" + k + "'");
  }
  if (call.args.size() > 1) trainable = call.args[1];  // Variable(initial_value, trainable, ...)
  if (!trainable.is_none() && !trainable.is_int_like()) {
    return PyError("TypeError", "Variable() trainable must be a bool, got " + trainable.TypeName());
  }
  if (initial.is_none() && call.args.empty()) return PyError("ValueError", "initial_value must be specified.");
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
  if (!t->variable_creation_allowed()) {
    return PyError("ValueError", "tf.function-decorated function tried to create variables on non-first call.");
  }
  if (auto fn = initial.object_as<FunctionObj>()) {
    ASSIGN_OR_RETURN(initial, interp.CallNoArgs(initial, call.site));
  }
  DType dtype = DType::kInvalid;
  if (!dtype_v.is_none()) {
    ASSIGN_OR_RETURN(dtype, DTypeFromValue(dtype_v));
  }
  ASSIGN_OR_RETURN(OutputRef init, t->ToTensor(initial, dtype));
  const TensorType& type = init.node->output(init.index);
  std::string display = name.is(K::kStr) ? name.as_str() : "Variable";
  auto var = std::make_shared<VariableObj>(interp.NewVariableStoreName(display), display, type.dtype, type.shape);
  var->set_trainable(trainable.is_none() || trainable.as_int() != 0);
  AttrMap attrs = {{"var_name", var->store_name()}, {"dtype", type.dtype}, {"shape", type.shape},
                   {"only_if_uninitialized", true}};
  RETURN_IF_ERROR(t->Op("AssignVariableOp", {init}, attrs, "Variable/Assign", /*stateful=*/true).status());
  return Value::Obj(var);
}

std::string Interpreter::NewVariableStoreName(const std::string& base) {
  const std::string name = base.empty() ? "Variable" : base;
  if (!variable_prefix_.empty()) return absl::StrCat(variable_prefix_, name, "_", variables_named_++);
  static std::atomic<int64_t> counter{0};
  return absl::StrCat(name, "_", counter.fetch_add(1));
}

}  // namespace graphd::compiler::tracer
