#include "compiler/tracer/tracer.h"

#include "absl/strings/match.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// Graph construction errors surface to user code as Python exceptions, as in TF.
Status AsPython(Status s) {
  if (s.ok() || errors::PythonClassOf(s)) return s;
  bool type_error = absl::StrContains(s.message(), "dtype") || absl::StrContains(s.message(), " is float") ||
                    absl::StrContains(s.message(), "must be bool");
  return errors::WithPythonClass(std::move(s), type_error ? "TypeError" : "ValueError");
}

const char* BinaryOpName(ast::BinOpKind op) {
  switch (op) {
    case ast::BinOpKind::kAdd: return "Add";
    case ast::BinOpKind::kSub: return "Sub";
    case ast::BinOpKind::kMult: return "Mul";
    case ast::BinOpKind::kDiv: return "Div";
    case ast::BinOpKind::kFloorDiv: return "FloorDiv";
    case ast::BinOpKind::kMod: return "FloorMod";
    case ast::BinOpKind::kPow: return "Pow";
    case ast::BinOpKind::kMatMult: return "MatMul";
    case ast::BinOpKind::kBitAnd: return "LogicalAnd";
    case ast::BinOpKind::kBitOr: return "LogicalOr";
    case ast::BinOpKind::kBitXor: return "NotEqual";
    default: return nullptr;
  }
}

const char* CompareOpName(ast::CmpOpKind op) {
  switch (op) {
    case ast::CmpOpKind::kEq: return "Equal";
    case ast::CmpOpKind::kNotEq: return "NotEqual";
    case ast::CmpOpKind::kLt: return "Less";
    case ast::CmpOpKind::kLtE: return "LessEqual";
    case ast::CmpOpKind::kGt: return "Greater";
    case ast::CmpOpKind::kGtE: return "GreaterEqual";
    default: return nullptr;
  }
}

std::string LowerOpName(const std::string& op) {
  std::string out;
  for (size_t i = 0; i < op.size(); ++i) {
    char c = op[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

StatusOr<Tracer*> TracerOf(Interpreter& interp) {
  auto* t = dynamic_cast<Tracer*>(interp.tensor_hooks());
  if (t == nullptr) {
    return PyError("TypeError", "TensorFlow ops run only inside a tf.function (or at module level in eager mode)");
  }
  return t;
}

Value Tracer::Wrap(OutputRef ref) {
  auto t = std::make_shared<TensorObj>();
  t->dtype = ref.node->output(ref.index).dtype;
  t->shape = ref.node->output(ref.index).shape;
  t->scope = &scope();
  t->scope_serial = scope().serial();
  t->ref = ref;
  return Value::Tensor(std::move(t));
}

namespace {

// The dtype of the first tensor in a (nested) list or tuple, or kInvalid.
DType FirstTensorDType(const Value& v) {
  if (v.is(K::kTensor)) return v.as_tensor()->dtype;
  if (v.is(K::kList) || v.is(K::kTuple)) {
    for (const Value& item : v.is(K::kList) ? v.as_list()->items : v.as_tuple()) {
      DType d = FirstTensorDType(item);
      if (d != DType::kInvalid) return d;
    }
  }
  return DType::kInvalid;
}

}  // namespace

StatusOr<OutputRef> Tracer::ToTensor(const Value& v, DType hint) {
  if (v.is(K::kTensor)) return scope().Bring(*v.as_tensor());
  if (v.is(K::kObject) && v.as_object() && v.as_object()->IsTensorLike()) {
    if (interp_ == nullptr) return PyError("TypeError", "no interpreter to read the variable");
    ASSIGN_OR_RETURN(Value t, v.as_object()->AsTensor(const_cast<Interpreter&>(*interp_)));
    return scope().Bring(*t.as_tensor());
  }
  if ((v.is(K::kList) || v.is(K::kTuple)) && FirstTensorDType(v) != DType::kInvalid) {
    // A list holding tensors packs them, as tf.convert_to_tensor does: [x, 1] -> stack.
    DType element = hint != DType::kInvalid ? hint : FirstTensorDType(v);
    std::vector<OutputRef> parts;
    for (const Value& item : v.is(K::kList) ? v.as_list()->items : v.as_tuple()) {
      ASSIGN_OR_RETURN(OutputRef r, ToTensor(item, element));
      parts.push_back(r);
    }
    ASSIGN_OR_RETURN(Value packed, Op("Pack", std::move(parts), {{"axis", int64_t{0}}}, "packed"));
    return ToTensor(packed);
  }
  ASSIGN_OR_RETURN(Tensor t, PythonToTensor(v, hint));
  ASSIGN_OR_RETURN(const Node* c, scope().Add("Const", "Const", {}, {{"value", t}}));
  return OutputRef{c, 0};
}

StatusOr<Value> Tracer::RunEager(const std::string& op, const std::vector<OutputRef>& inputs, AttrMap attrs,
                                 bool stateful) {
  // A one-op body: the inputs (constants of the module scope) copied in as Consts.
  GraphScope body(nullptr, op);
  std::vector<OutputRef> in;
  for (const OutputRef& r : inputs) {
    auto value = r.node->attrs().find("value");
    if (r.node->op_name() != "Const" || value == r.node->attrs().end()) {
      return errors::Internal("eager inputs must be constants");
    }
    ASSIGN_OR_RETURN(const Node* c, body.Add("Const", "Const", {}, {{"value", std::get<Tensor>(value->second)}}));
    in.push_back({c, 0});
  }
  auto node = body.Add(op, op, std::move(in), std::move(attrs), true, interp_ ? interp_->current_range() : SourceRange{});
  if (!node.ok()) return AsPython(node.status());
  std::vector<OutputRef> results;
  for (int i = 0; i < (*node)->num_outputs(); ++i) results.push_back({*node, i});
  ASSIGN_OR_RETURN(FunctionRef fn, body.Finish(std::move(results)));
  ASSIGN_OR_RETURN(std::vector<Tensor> outs, eager_->Run(*fn));
  for (EagerTape* tape : std::vector<EagerTape*>(eager_tapes_)) {
    RETURN_IF_ERROR(tape->RecordOp(op, inputs, (*node)->attrs(), (*node)->op().stateful || stateful, outs));
  }
  std::vector<Value> values;
  for (Tensor& t : outs) {
    auto obj = std::make_shared<TensorObj>();
    obj->dtype = t.dtype();
    obj->shape = PartialShape(t.shape());
    obj->value = std::move(t);
    values.push_back(Value::Tensor(std::move(obj)));
  }
  if (values.size() == 1) return values[0];
  return Value::Tuple(std::move(values));
}

std::optional<StatusOr<Value>> Tracer::CallFunction(Interpreter& interp, const Value& fn, CallArgs& args,
                                                    const std::vector<Value>& concrete) {
  if (eager_ == nullptr || inline_calls_) return std::nullopt;
  std::optional<StatusOr<Value>> result = eager_->CallFunction(interp, fn, args, concrete);
  if (!result.has_value() || !result->ok() || eager_tapes_.empty() || !concrete.empty()) return result;
  for (EagerTape* tape : std::vector<EagerTape*>(eager_tapes_)) {
    Status recorded = tape->RecordCall(interp, *this, fn, args, **result);
    if (!recorded.ok()) return StatusOr<Value>(recorded);
  }
  return result;
}

StatusOr<Value> Tracer::Op(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs,
                           const std::string& base, bool stateful) {
  if (eager_ != nullptr && !in_staged_body()) return RunEager(op, inputs, std::move(attrs), stateful);
  auto node = scope().Add(op, NameScopePrefix() + (base.empty() ? LowerOpName(op) : base), std::move(inputs),
                          std::move(attrs), stateful,
                          interp_ ? interp_->current_range() : SourceRange{});
  if (!node.ok()) return AsPython(node.status());
  if ((*node)->num_outputs() == 1) return Wrap({*node, 0});
  std::vector<Value> outs;
  for (int i = 0; i < (*node)->num_outputs(); ++i) outs.push_back(Wrap({*node, i}));
  return Value::Tuple(std::move(outs));
}

StatusOr<Value> Tracer::Binary(Interpreter&, int op, const Value& a, const Value& b) {
  DType hint = a.is(K::kTensor) ? a.as_tensor()->dtype : b.as_tensor()->dtype;
  ASSIGN_OR_RETURN(OutputRef x, ToTensor(a, hint));
  ASSIGN_OR_RETURN(OutputRef y, ToTensor(b, hint));
  const char* name = op >= 100 ? CompareOpName(static_cast<ast::CmpOpKind>(op - 100))
                               : BinaryOpName(static_cast<ast::BinOpKind>(op));
  if (name == nullptr) return PyError("TypeError", "this operator is not supported on tensors");
  if (op == static_cast<int>(ast::BinOpKind::kAdd) && x.node->output(x.index).dtype == DType::kString) {
    // `+` on string tensors concatenates them (TensorFlow's Add on strings).
    return Op("StringJoin", {x, y}, {{"separator", std::string()}}, "add");
  }
  if (op == static_cast<int>(ast::BinOpKind::kDiv)) {
    // Python's / is true division: integers divide as floating point (TF's truediv).
    DType dt = x.node->output(x.index).dtype;
    if (IsInteger(dt)) {
      DType to = dt == DType::kInt8 || dt == DType::kInt16 || dt == DType::kUInt8 ? DType::kFloat32 : DType::kFloat64;
      ASSIGN_OR_RETURN(Value cx, Op("Cast", {x}, {{"DstT", to}}));
      ASSIGN_OR_RETURN(Value cy, Op("Cast", {y}, {{"DstT", to}}));
      ASSIGN_OR_RETURN(x, ToTensor(cx));
      ASSIGN_OR_RETURN(y, ToTensor(cy));
    }
    return Op("Div", {x, y}, {}, "truediv");
  }
  if (op == static_cast<int>(ast::BinOpKind::kMatMult)) return MatMul(x, y, false, false);
  return Op(name, {x, y});
}

StatusOr<Value> Tracer::MatMul(OutputRef x, OutputRef y, bool transpose_a, bool transpose_b) {
  auto batched = [](OutputRef r) {
    const PartialShape& s = r.node->output(r.index).shape;
    return s.known_rank() && s.rank() > 2;
  };
  if (batched(x) || batched(y)) {
    return Op("BatchMatMulV2", {x, y}, {{"adj_x", transpose_a}, {"adj_y", transpose_b}}, "MatMul");
  }
  return Op("MatMul", {x, y}, {{"transpose_a", transpose_a}, {"transpose_b", transpose_b}}, "MatMul");
}

StatusOr<Value> Tracer::Unary(Interpreter&, ast::UnaryOpKind op, const Value& v) {
  ASSIGN_OR_RETURN(OutputRef x, ToTensor(v));
  DType dt = x.node->output(x.index).dtype;
  switch (op) {
    case ast::UnaryOpKind::kUAdd: return v;
    case ast::UnaryOpKind::kUSub: {
      ASSIGN_OR_RETURN(OutputRef zero, ToTensor(Value::Int(0), dt));
      return Op("Sub", {zero, x}, {}, "neg");
    }
    case ast::UnaryOpKind::kNot:
    case ast::UnaryOpKind::kInvert:
      if (dt != DType::kBool) {
        return PyError("TypeError", "'not' and '~' on a tensor need a bool tensor, got " + std::string(DTypeName(dt)));
      }
      return Op("LogicalNot", {x});
  }
  return PyError("TypeError", "bad unary operator");
}

StatusOr<bool> Tracer::Truth(Interpreter&, const Value& t) {
  if (!t.as_tensor()->symbolic()) {
    const Tensor& value = *t.as_tensor()->value;
    if (value.num_elements() != 1) return PyError("ValueError", "The truth value of an array with more than one element is ambiguous");
    if (value.dtype() == DType::kBool) return value.data<bool>()[0];
  }
  return PyError("OperatorNotAllowedInGraphError",
                 "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed: its value is known only when "
                 "the function runs. AutoGraph stages `if`, `while` and `for` on tensors; other uses need "
                 "tf.cond or tf.where.");
}

StatusOr<Value> Tracer::GetAttr(Interpreter& interp, const Value& tv, const std::string& name) {
  const TensorObj& t = *tv.as_tensor();
  if (name == "shape" || name == "get_shape") {
    Value shape;
    if (!t.shape.known_rank()) {
      shape = Value::None();
    } else {
      std::vector<Value> dims;
      for (int64_t d : t.shape.dims()) dims.push_back(d == kUnknownDim ? Value::None() : Value::Int(d));
      shape = Value::Tuple(std::move(dims));
    }
    if (name == "shape") return shape;
    return Value::Obj(std::make_shared<BuiltinObj>("get_shape", [shape](Interpreter&, CallArgs&) -> StatusOr<Value> { return shape; }));
  }
  if (name == "dtype") return DTypeObj::Make(t.dtype);
  if (name == "name") return Value::Str(t.Name());
  if (name == "ndim") return t.shape.known_rank() ? Value::Int(t.shape.rank()) : Value::None();
  if (name == "__abs__") {
    return Value::Obj(std::make_shared<BuiltinObj>("__abs__", [this, tv](Interpreter&, CallArgs&) -> StatusOr<Value> {
      ASSIGN_OR_RETURN(OutputRef x, ToTensor(tv));
      return Op("Abs", {x});
    }));
  }
  if (name == "set_shape") {
    auto obj = tv.as_tensor();
    return Value::Obj(std::make_shared<BuiltinObj>("set_shape", [obj](Interpreter&, CallArgs& a) -> StatusOr<Value> {
      if (a.args.size() != 1) return PyError("TypeError", "set_shape() takes 1 argument");
      ASSIGN_OR_RETURN(PartialShape want, ShapeFromValue(a.args[0]));
      if (want.known_rank()) {
        if (obj->shape.known_rank() && obj->shape.rank() != want.rank()) {
          return PyError("ValueError", "Shapes " + ShapeRepr(obj->shape) + " and " + ShapeRepr(want) + " are incompatible");
        }
        std::vector<int64_t> merged = want.dims();
        for (int i = 0; obj->shape.known_rank() && i < want.rank(); ++i) {
          int64_t have = obj->shape.dim(i);
          if (have != kUnknownDim && merged[i] != kUnknownDim && have != merged[i]) {
            return PyError("ValueError", "Shapes " + ShapeRepr(obj->shape) + " and " + ShapeRepr(want) + " are incompatible");
          }
          if (merged[i] == kUnknownDim) merged[i] = have;
        }
        obj->shape = PartialShape(merged);
      }
      return Value::None();
    }));
  }
  // Tensor methods that mirror tf functions: x.numpy() only for eager values.
  if (name == "numpy") return PyError("NotImplementedError", "numpy() of a symbolic tensor: its value exists only when the function runs");
  (void)interp;
  return PyError("AttributeError", "'Tensor' object has no attribute '" + name + "'");
}

StatusOr<Value> Tracer::Subscript(Interpreter& interp, const Value& tensor, const Value& index) {
  return SliceTensor(interp, *this, tensor, index);
}

StatusOr<std::vector<Value>> Tracer::Iterate(Interpreter&, const Value&) {
  return PyError("TypeError",
                 "Iterating over a symbolic `tf.Tensor` in Python is not allowed; use it as the iterable of a "
                 "`for` loop in a tf.function (AutoGraph stages it) or tf.unstack");
}

}  // namespace graphd::compiler::tracer
