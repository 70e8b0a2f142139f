#include "compiler/tracer/exceptions.h"

#include "compiler/tracer/errors.h"
#include "compiler/tracer/interpreter.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {

StatusOr<Value> ExceptionClassObj::Call(Interpreter& interp, CallArgs& args) {
  if (!args.kwargs.empty() && Lookup("__init__") == nullptr) {
    return PyError("TypeError", name_ + "() takes no keyword arguments");
  }
  auto self = std::static_pointer_cast<ExceptionClassObj>(shared_from_this());
  auto exc = std::make_shared<ExceptionObj>(self, args.args);
  if (const Value* init = Lookup("__init__")) {
    CallArgs call = args;
    call.args.insert(call.args.begin(), Value::Obj(exc));
    RETURN_IF_ERROR(interp.Call(*init, std::move(call)).status());
  }
  return Value::Obj(exc);
}

StatusOr<Value> ExceptionClassObj::GetAttr(Interpreter& interp, const std::string& name) {
  if (name == "__name__") return Value::Str(name_);
  if (const Value* v = Lookup(name)) return *v;
  return Object::GetAttr(interp, name);
}

const Value* ExceptionClassObj::Lookup(const std::string& name) const {
  for (const ExceptionClassObj* c = this; c != nullptr; c = c->base_.get()) {
    if (c->dict_ != nullptr) {
      if (const Value* v = c->dict_->Find(name)) return v;
    }
  }
  return nullptr;
}

bool ExceptionClassObj::IsSubclassOf(const ExceptionClassObj& other) const {
  for (const ExceptionClassObj* c = this; c != nullptr; c = c->base_.get()) {
    if (c == &other) return true;
    if (c->builtin_ && other.builtin_) return PyClassIsA(c->name_, other.name_);
  }
  return false;
}

std::string ExceptionObj::Str() const {
  if (message_) return *message_;
  if (args_.empty()) return "";
  if (args_.size() == 1) return cls_->builtin().name() == "KeyError" ? PyRepr(args_[0]) : PyStr(args_[0]);
  return PyRepr(Value::Tuple(args_));
}

std::string ExceptionObj::Repr() const {
  std::string inner;
  for (size_t i = 0; i < args_.size(); ++i) inner += (i ? ", " : "") + PyRepr(args_[i]);
  return cls_->name() + "(" + inner + ")";
}

StatusOr<Value> ExceptionObj::GetAttr(Interpreter& interp, const std::string& name) {
  if (name == "args") return Value::Tuple(args_);
  if (name == "__class__") return Value::Obj(cls_);
  if (auto it = attrs_.find(name); it != attrs_.end()) return it->second;
  if (const Value* v = cls_->Lookup(name)) {
    if (v->object_as<FunctionObj>()) return Value::Obj(std::make_shared<BoundMethod>(Value::Obj(shared_from_this()), *v));
    return *v;
  }
  return PyError("AttributeError", "'" + cls_->name() + "' object has no attribute '" + name + "'");
}

Status ExceptionObj::SetAttr(Interpreter&, const std::string& name, Value value) {
  if (name == "args") {
    if (!value.is(Value::Kind::kTuple)) return PyError("TypeError", "args must be a tuple");
    args_ = value.as_tuple();
    message_.reset();
    return absl::OkStatus();
  }
  attrs_[name] = std::move(value);
  return absl::OkStatus();
}

Status ExceptionObj::ToStatus() const {
  const ExceptionClassObj& builtin = cls_->builtin();
  std::string message = Str();
  if (&builtin != cls_.get()) message = cls_->name() + (message.empty() ? "" : ": " + message);
  return PyError(builtin.name(), message);
}

void AddExceptionClasses(Namespace& builtins) {
  builtins.Set("BaseException",
               Value::Obj(std::make_shared<ExceptionClassObj>("BaseException", nullptr, nullptr, /*builtin=*/true)));
  for (const auto& [name, base] : PyExceptionBases()) {
    // One base each here (the first); issubclass asks errors.cc, which knows all.
    if (builtins.Find(name) != nullptr) continue;
    auto base_cls = builtins.Find(base)->object_as<ExceptionClassObj>();
    builtins.Set(name, Value::Obj(std::make_shared<ExceptionClassObj>(name, base_cls, nullptr, /*builtin=*/true)));
  }
}

bool Catchable(const Status& status) {
  if (!errors::PythonClassOf(status).has_value()) return false;
  switch (status.code()) {
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kDeadlineExceeded: return false;
    default: return true;
  }
}

}  // namespace graphd::compiler::tracer
