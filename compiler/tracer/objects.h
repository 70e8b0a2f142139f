// The Object kinds of the interpreter: namespaces (modules, tf, np), user functions
// and their scopes, builtins, bound methods, user classes and instances.
#ifndef GRAPHD_COMPILER_TRACER_OBJECTS_H_
#define GRAPHD_COMPILER_TRACER_OBJECTS_H_

#include <functional>
#include <atomic>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/autograph/analysis.h"
#include "compiler/frontend/ast.h"
#include "compiler/tracer/value.h"

namespace graphd::compiler::tracer {

class ClassObj;

struct CallArgs {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  SourceRange site;  // the call expression
};

// Attributes by name: a module's globals, a library namespace, a class's dict.
class Namespace : public Object {
 public:
  explicit Namespace(std::string name) : name_(std::move(name)) {}
  std::string TypeName() const override { return "module"; }
  std::string Repr() const override { return "<module '" + name_ + "'>"; }
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;
  Status SetAttr(Interpreter& interp, const std::string& name, Value value) override;

  const Value* Find(const std::string& name) const;
  void Set(const std::string& name, Value value) { attrs_[name] = std::move(value); }
  void Clear() { attrs_.clear(); }
  const std::string& name() const { return name_; }
  const std::map<std::string, Value>& attrs() const { return attrs_; }

 private:
  std::string name_;
  std::map<std::string, Value> attrs_;
};

// A variable binding shared between a function activation and the closures it makes.
struct Cell {
  Value value;
  bool bound = false;
};

// What the interpreter knows statically about a function body (or lambda).
struct ScopeInfo {
  autograph::NameSet locals;     // bound in the body (parameters included)
  autograph::NameSet nonlocals;  // declared nonlocal
  autograph::NameSet globals;    // declared global
};

// One activation of a function: its cells, and the activation it was defined in.
struct Scope {
  std::shared_ptr<Scope> parent;  // enclosing function's activation, or null
  const ScopeInfo* info = nullptr;
  absl::flat_hash_map<std::string, std::shared_ptr<Cell>> cells;
};

using BuiltinFn = std::function<StatusOr<Value>(Interpreter&, CallArgs&)>;

class BuiltinObj : public Object {
 public:
  BuiltinObj(std::string name, BuiltinFn fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  std::string TypeName() const override { return "builtin_function_or_method"; }
  std::string Repr() const override { return "<built-in function " + name_ + ">"; }
  StatusOr<Value> Call(Interpreter& interp, CallArgs& args) override { return fn_(interp, args); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  BuiltinFn fn_;
};

// A user function (def or lambda) with its closure.
class FunctionObj : public Object {
 public:
  std::string TypeName() const override { return "function"; }
  std::string Repr() const override { return "<function " + name + ">"; }
  StatusOr<Value> Call(Interpreter& interp, CallArgs& args) override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& attr) override;

  std::string name;
  // Its place in the order the module's interpreter made function objects: the same
  // in every session that loaded the same source and traced the same calls, so the
  // function cache can key traces on it (Interpreter::Adopt).
  int64_t serial = 0;
  const ast::Arguments* params = nullptr;
  // Exactly one of these: a def's body (converted by AutoGraph) or a lambda's body.
  const ast::Body* body = nullptr;
  ast::ExprPtr lambda_body;
  std::shared_ptr<const ast::Stmt> def;  // keeps the AST alive
  std::shared_ptr<const ast::Expr> lambda;
  const ScopeInfo* info = nullptr;
  std::shared_ptr<Scope> closure;
  std::shared_ptr<Namespace> globals;
  std::vector<Value> defaults;
  std::vector<std::pair<std::string, Value>> kw_defaults;  // present ones only
  autograph::NameSet kwonly;
  // Set by @tf.function(input_signature=[tf.TensorSpec(...), ...]): one trace for all
  // compatible calls (TensorSpecObj values).
  std::optional<std::vector<Value>> input_signature;
  // Set by @tf.function(reduce_retracing=True): a shape miss traces a generalised
  // signature (differing dims become None) instead of one per shape.
  bool reduce_retracing = false;
  // Decorated with @tf.function: called from eager code it is traced and cached as a
  // concrete function instead of running as Python.
  bool tf_function = false;
  // The class whose body defined it (a method), for super(); weak: the class holds it.
  std::weak_ptr<ClassObj> owner;

 private:
  const std::vector<std::string>& params_list();
  std::vector<std::string> param_names_;
};

// iter(x): the items of x, consumed by next() and by iterating it (a snapshot taken
// when made, as iterating a list being changed is undefined anyway).
class IteratorObj : public Object {
 public:
  explicit IteratorObj(std::vector<Value> items) : items_(std::move(items)) {}
  std::string TypeName() const override { return "iterator"; }
  // The next item, or nullopt when exhausted.
  std::optional<Value> Next() {
    if (pos_ >= items_.size()) return std::nullopt;
    return items_[pos_++];
  }
  // The items not consumed yet; consumes them.
  std::vector<Value> Drain() {
    std::vector<Value> rest(items_.begin() + static_cast<std::ptrdiff_t>(pos_), items_.end());
    pos_ = items_.size();
    return rest;
  }

 private:
  std::vector<Value> items_;
  size_t pos_ = 0;
};

class BoundMethod : public Object {
 public:
  BoundMethod(Value self, Value fn) : self_(std::move(self)), fn_(std::move(fn)) {}
  std::string TypeName() const override { return "method"; }
  StatusOr<Value> Call(Interpreter& interp, CallArgs& args) override;
  const Value& self() const { return self_; }
  const Value& fn() const { return fn_; }

 private:
  Value self_, fn_;
};

class InstanceObj;

class ClassObj : public Object {
 public:
  ClassObj(std::string name, std::shared_ptr<Namespace> dict, std::vector<std::shared_ptr<ClassObj>> bases = {})
      : name_(std::move(name)), dict_(std::move(dict)), bases_(std::move(bases)) {}
  std::string TypeName() const override { return "type"; }
  std::string Repr() const override { return "<class '" + name_ + "'>"; }
  StatusOr<Value> Call(Interpreter& interp, CallArgs& args) override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;
  Status SetAttr(Interpreter& interp, const std::string& name, Value value) override;
  const std::string& name() const { return name_; }
  Namespace& dict() { return *dict_; }
  const std::vector<std::shared_ptr<ClassObj>>& bases() const { return bases_; }
  // `name` in this class or its bases (depth-first, left to right), or null.
  const Value* Lookup(const std::string& name) const;
  // The same, in the bases only (what super() sees).
  const Value* LookupInBases(const std::string& name) const;
  bool IsSubclassOf(const ClassObj& other) const;

 private:
  std::string name_;
  std::shared_ptr<Namespace> dict_;
  std::vector<std::shared_ptr<ClassObj>> bases_;
};

// property(fget): an attribute of a class computed by calling fget(instance).
class PropertyObj : public Object {
 public:
  explicit PropertyObj(Value getter) : getter(std::move(getter)) {}
  std::string TypeName() const override { return "property"; }
  Value getter;
};

// A builtin that a class holds as a method: looked up on an instance, it binds it.
class NativeMethodObj : public BuiltinObj {
 public:
  using BuiltinObj::BuiltinObj;
};

// super(): attribute lookup in the bases of `cls`, bound to `self`.
class SuperObj : public Object {
 public:
  SuperObj(Value self, std::shared_ptr<ClassObj> cls) : self_(std::move(self)), cls_(std::move(cls)) {}
  std::string TypeName() const override { return "super"; }
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;

 private:
  Value self_;
  std::shared_ptr<ClassObj> cls_;
};

// What an instance's class gives for `name`: methods bound to `self`, properties
// computed; null when the class has no such attribute.
StatusOr<std::optional<Value>> ClassAttribute(Interpreter& interp, const ClassObj& cls, const Value& self,
                                              const std::string& name, bool bases_only = false);

class InstanceObj : public Object {
 public:
  explicit InstanceObj(std::shared_ptr<ClassObj> cls) : cls_(std::move(cls)) {}
  ~InstanceObj() override;  // its attributes through ReleaseNested (value.h)
  std::string TypeName() const override { return cls_->name(); }
  std::string Repr() const override { return "<" + cls_->name() + " object>"; }
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;
  // __call__ of its class.
  StatusOr<Value> Call(Interpreter& interp, CallArgs& args) override;
  // __enter__() and __exit__(None, None, None) (no exception details are passed; an
  // exception always propagates).
  StatusOr<Value> Enter(Interpreter& interp) override;
  Status Exit(Interpreter& interp, bool failed) override;
  Status SetAttr(Interpreter& interp, const std::string& name, Value value) override;
  const std::shared_ptr<ClassObj>& cls() const { return cls_; }
  // For the cycle collector (cycles.h).
  const std::map<std::string, Value>& attrs() const { return attrs_; }
  std::map<std::string, Value> TakeAttrs() { return std::exchange(attrs_, {}); }

 private:
  std::shared_ptr<ClassObj> cls_;
  std::map<std::string, Value> attrs_;
};

// AutoGraph's marker for a name not bound yet (`ag__.Undefined('x')`). Loading it in
// user code is the UnboundLocalError Python would raise.
class UndefinedObj : public Object {
 public:
  explicit UndefinedObj(std::string name) : name_(std::move(name)) {}
  std::string TypeName() const override { return "Undefined"; }
  std::string Repr() const override { return "Undefined('" + name_ + "')"; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// AutoGraph's initial value of the return value of a function that returns from
// inside control flow (`ag__.UndefinedReturnValue()`): no return statement ran yet.
class UndefinedReturnValueObj : public Object {
 public:
  std::string TypeName() const override { return "UndefinedReturnValue"; }
};

// start:stop:step in a subscript; each part None or a value (ints for Python
// sequences, tensors allowed for tensor indexing).
class SliceObj : public Object {
 public:
  SliceObj(Value start, Value stop, Value step) : start(std::move(start)), stop(std::move(stop)), step(std::move(step)) {}
  std::string TypeName() const override { return "slice"; }
  Value start, stop, step;
};

// Python's range(start, stop, step): iterable, indexable, len()-able.
class RangeObj : public Object {
 public:
  RangeObj(int64_t start, int64_t stop, int64_t step) : start(start), stop(stop), step(step) {}
  std::string TypeName() const override { return "range"; }
  std::string Repr() const override;
  int64_t size() const;
  int64_t start, stop, step;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_OBJECTS_H_
