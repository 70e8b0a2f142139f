#include "compiler/tracer/tensor_array.h"

#include "compiler/tracer/errors.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/tracer.h"

namespace graphd::compiler::tracer {

using K = Value::Kind;

StatusOr<Value> TensorArrayObj::BufferTensor(Interpreter& interp) const {
  if (!buffer_.is_none()) return buffer_;
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
  ASSIGN_OR_RETURN(Tensor empty, Tensor::Allocate(dtype_, Shape({0})));
  return t->Op("Const", {}, {{"value", empty}}, "TensorArray");
}

StatusOr<Value> TensorArrayObj::GetAttr(Interpreter& interp, const std::string& name) {
  auto self = std::static_pointer_cast<TensorArrayObj>(shared_from_this());
  auto method = [&](BuiltinFn fn) { return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn))); };
  if (name == "write") {
    return method([self](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
      if (a.args.size() != 2) return PyError("TypeError", "write() takes an index and a value");
      ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
      ASSIGN_OR_RETURN(Value buffer, self->BufferTensor(in));
      ASSIGN_OR_RETURN(OutputRef b, t->ToTensor(buffer));
      ASSIGN_OR_RETURN(OutputRef i, t->ToTensor(a.args[0], DType::kInt32));
      ASSIGN_OR_RETURN(OutputRef v, t->ToTensor(a.args[1], self->dtype()));
      ASSIGN_OR_RETURN(Value written, t->Op("TensorArrayWrite", {b, i, v}, {}, "TensorArrayWrite"));
      return Value::Obj(std::make_shared<TensorArrayObj>(self->dtype(), written));
    });
  }
  if (name == "append") {  // write at size(): list.append in a staged loop
    return method([self](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
      if (a.args.size() != 1) return PyError("TypeError", "append() takes one value");
      ASSIGN_OR_RETURN(Value size, in.Call(*self->GetAttr(in, "size"), CallArgs{}));
      ASSIGN_OR_RETURN(Value write, self->GetAttr(in, "write"));
      return in.Call(write, CallArgs{.args = {size, a.args[0]}});
    });
  }
  if (name == "stack") {
    return method([self](Interpreter& in, CallArgs&) { return self->BufferTensor(in); });
  }
  if (name == "read") {
    return method([self](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
      if (a.args.size() != 1) return PyError("TypeError", "read() takes an index");
      ASSIGN_OR_RETURN(Value buffer, self->BufferTensor(in));
      return in.Subscript(buffer, a.args[0]);
    });
  }
  if (name == "unstack") {
    return method([self](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
      if (a.args.size() != 1) return PyError("TypeError", "unstack() takes a tensor");
      ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
      ASSIGN_OR_RETURN(OutputRef v, t->ToTensor(a.args[0], self->dtype()));
      return Value::Obj(std::make_shared<TensorArrayObj>(self->dtype(), t->Wrap(v)));
    });
  }
  if (name == "size") {
    return method([self](Interpreter& in, CallArgs&) -> StatusOr<Value> {
      ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
      ASSIGN_OR_RETURN(Value buffer, self->BufferTensor(in));
      ASSIGN_OR_RETURN(OutputRef b, t->ToTensor(buffer));
      ASSIGN_OR_RETURN(Value shape, t->Op("Shape", {b}, {{"out_type", DType::kInt32}}));
      return in.Subscript(shape, Value::Int(0));
    });
  }
  if (name == "dtype") return DTypeObj::Make(dtype_);
  return Object::GetAttr(interp, name);
}

StatusOr<Value> MakeTensorArray(Interpreter&, CallArgs& call) {
  Value dtype_v = call.args.empty() ? Value::None() : call.args[0];
  for (const auto& [k, v] : call.kwargs) {
    if (k == "dtype") dtype_v = v;
  }
  if (dtype_v.is_none()) return PyError("TypeError", "TensorArray() needs a dtype");
  ASSIGN_OR_RETURN(DType dtype, DTypeFromValue(dtype_v));
  // `size` and `dynamic_size` only pre-size TensorFlow's array; this one grows on write.
  return Value::Obj(std::make_shared<TensorArrayObj>(dtype, Value::None()));
}

}  // namespace graphd::compiler::tracer
