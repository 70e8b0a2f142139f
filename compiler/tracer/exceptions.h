// Python exceptions as values, for try/except/raise in traced code (Python-level
// errors while tracing, as TensorFlow's tracing runs them). A raised exception
// travels as a Status of its class (errors.h); `except` turns the Status back into an
// ExceptionObj (the object raised, when it is the one the interpreter last raised).
//
// What can be caught: errors with a Python class, except the server's own limits
// (step budget, recursion depth, cancellation, deadline: RESOURCE_EXHAUSTED,
// CANCELLED, DEADLINE_EXCEEDED), which no user code may swallow.
#ifndef GRAPHD_COMPILER_TRACER_EXCEPTIONS_H_
#define GRAPHD_COMPILER_TRACER_EXCEPTIONS_H_

#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/tracer/objects.h"

namespace graphd::compiler::tracer {

// An exception class: a builtin one (ValueError, ...) or one user code derives from
// them (`class MyError(ValueError): ...`, its body's functions as methods).
class ExceptionClassObj : public Object {
 public:
  ExceptionClassObj(std::string name, std::shared_ptr<ExceptionClassObj> base, std::shared_ptr<Namespace> dict,
                    bool builtin)
      : name_(std::move(name)), base_(std::move(base)), dict_(std::move(dict)), builtin_(builtin) {}
  std::string TypeName() const override { return "type"; }
  std::string Repr() const override { return "<class '" + name_ + "'>"; }
  // Makes an instance: args are the call's arguments; a user __init__ runs on it.
  StatusOr<Value> Call(Interpreter& interp, CallArgs& args) override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;

  const std::string& name() const { return name_; }
  // The nearest builtin class at or above this one: the class a raised instance
  // reports to the client.
  const ExceptionClassObj& builtin() const { return builtin_ ? *this : base_->builtin(); }
  // issubclass(this, other).
  bool IsSubclassOf(const ExceptionClassObj& other) const;
  // A class attribute (methods included) found on this class or its bases.
  const Value* Lookup(const std::string& name) const;

 private:
  std::string name_;
  std::shared_ptr<ExceptionClassObj> base_;  // null for BaseException
  std::shared_ptr<Namespace> dict_;          // null for builtins
  bool builtin_;
};

// An exception instance.
class ExceptionObj : public Object {
 public:
  ExceptionObj(std::shared_ptr<ExceptionClassObj> cls, std::vector<Value> args)
      : cls_(std::move(cls)), args_(std::move(args)) {}
  // An exception that arrived as a Status (raised by graphd, not by a `raise`): its
  // message is str() of it as it is (a KeyError's is already the key's repr).
  static std::shared_ptr<ExceptionObj> FromMessage(std::shared_ptr<ExceptionClassObj> cls, std::string message) {
    auto e = std::make_shared<ExceptionObj>(std::move(cls), std::vector<Value>{Value::Str(message)});
    e->message_ = std::move(message);
    return e;
  }
  std::string TypeName() const override { return cls_->name(); }
  std::string Repr() const override;
  std::string Str() const override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;
  Status SetAttr(Interpreter& interp, const std::string& name, Value value) override;

  const std::shared_ptr<ExceptionClassObj>& cls() const { return cls_; }
  // The Status that raising it propagates (class: the builtin one; a user class's
  // name leads the message).
  Status ToStatus() const;

 private:
  std::shared_ptr<ExceptionClassObj> cls_;
  std::vector<Value> args_;
  std::map<std::string, Value> attrs_;
  std::optional<std::string> message_;  // FromMessage
};

// The builtin exception classes (the hierarchy errors.cc knows), added to `builtins`.
void AddExceptionClasses(Namespace& builtins);

// True when user code may catch `status` (see above).
bool Catchable(const Status& status);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_EXCEPTIONS_H_
