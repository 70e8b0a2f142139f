#include "compiler/tracer/interpreter.h"

#include "compiler/autograph/symbols.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/evaluator.h"
#include "compiler/tracer/exceptions.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_value.h"

namespace graphd::compiler::tracer {

namespace {

std::string StatusText(const Status& status) {
  return errors::PythonClassOf(status).value_or("") + ": " + std::string(status.message());
}

}  // namespace

Status Interpreter::Raise(std::shared_ptr<ExceptionObj> exc) {
  Status status = exc->ToStatus();
  last_raised_ = std::move(exc);
  last_raised_text_ = StatusText(status);
  return status;
}

std::shared_ptr<ExceptionObj> Interpreter::ExceptionFor(const Status& status) {
  if (last_raised_ != nullptr && StatusText(status) == last_raised_text_) return last_raised_;
  std::string cls = errors::PythonClassOf(status).value_or("Exception");
  std::shared_ptr<ExceptionClassObj> type;
  if (const Value* v = builtins_->Find(cls)) type = v->object_as<ExceptionClassObj>();
  if (type == nullptr) {
    // A class graphd raises but does not name in builtins (OperatorNotAllowedInGraphError):
    // what it is a subclass of comes from errors.cc.
    const Value* exception = builtins_->Find("Exception");
    auto base = exception != nullptr ? exception->object_as<ExceptionClassObj>() : nullptr;
    type = std::make_shared<ExceptionClassObj>(cls, base, nullptr, /*builtin=*/true);
  }
  return ExceptionObj::FromMessage(type, std::string(status.message()));
}

void Interpreter::Adopt(const std::shared_ptr<FunctionObj>& fn) {
  fn->serial = ++function_serial_;
  if (functions_.size() >= 64 && functions_.size() == functions_.capacity()) {  // amortised pruning
    std::erase_if(functions_, [](const std::weak_ptr<FunctionObj>& f) { return f.expired(); });
  }
  functions_.push_back(fn);
}

Interpreter::~Interpreter() {
  std::vector<Value> released;
  for (const auto& weak : functions_) {
    if (auto fn = weak.lock()) {
      fn->closure.reset();
      fn->globals.reset();
      for (Value& d : fn->defaults) released.push_back(std::move(d));
      fn->defaults.clear();
      for (auto& [name, d] : fn->kw_defaults) released.push_back(std::move(d));
      fn->kw_defaults.clear();
    }
  }
  if (globals_ != nullptr) {
    for (const auto& [name, value] : globals_->attrs()) released.push_back(value);
    globals_->Clear();
  }
  ReleaseNested(released);
  containers_.CollectCycles();
}

Interpreter::Interpreter(std::shared_ptr<Namespace> globals, std::shared_ptr<Namespace> builtins,
                         InterpreterLimits limits, const CancellationToken* token)
    : globals_(std::move(globals)), builtins_(std::move(builtins)), limits_(limits), token_(token) {}

const Value* Interpreter::FindModule(const std::string& name) const {
  auto it = modules_.find(name);
  return it == modules_.end() ? nullptr : &it->second;
}

Status Interpreter::Step() {
  if (++steps_ > limits_.max_steps) {
    return PyError("RecursionError", "the trace ran more than " + std::to_string(limits_.max_steps) +
                                         " Python steps (an endless Python-level loop?)");
  }
  if (token_ != nullptr && (steps_ & 1023) == 0) return token_->Check();
  return absl::OkStatus();
}

const ScopeInfo& Interpreter::InfoFor(const void* node, const ast::Arguments& params, const ast::Body* body,
                                      const ast::Expr* lambda_body) {
  auto& slot = infos_[node];
  if (slot) return *slot;
  slot = std::make_unique<ScopeInfo>();
  for (const auto& a : params.args) slot->locals.insert(a.name);
  for (const auto& a : params.kwonlyargs) slot->locals.insert(a.name);
  if (params.vararg) slot->locals.insert(params.vararg->name);
  if (params.kwarg) slot->locals.insert(params.kwarg->name);
  if (body != nullptr) {
    autograph::NameSet assigned = autograph::AssignedNames(*body);
    slot->locals.insert(assigned.begin(), assigned.end());
    autograph::Declared declared = autograph::DeclaredNames(*body);
    slot->globals = std::move(declared.globals);
    slot->nonlocals = std::move(declared.nonlocals);
    for (const auto& n : slot->globals) slot->locals.erase(n);
  } else if (lambda_body == nullptr) {
    // A comprehension: its targets are its locals.
    const auto* e = static_cast<const ast::Expr*>(node);
    const auto& gens = e->kind == ast::ExprKind::kListComp ? e->As<ast::ListComp>()->generators
                                                            : e->As<ast::DictComp>()->generators;
    for (const auto& g : gens) autograph::AddTargetNames(*g.target, slot->locals);
  }
  return *slot;
}

Status Interpreter::ExecModule(const ast::Module& module) { return ExecModule(module, globals_); }

Status Interpreter::ExecModule(const ast::Module& module, const std::shared_ptr<Namespace>& globals) {
  ScopedContainerRegistry registry(&containers_);
  Evaluator eval(*this, nullptr, globals);
  ASSIGN_OR_RETURN(Evaluator::Flow flow, eval.ExecBody(module.body));
  if (flow != Evaluator::Flow::kNormal) return PyError("SyntaxError", "'return', 'break' or 'continue' outside a function or loop");
  return absl::OkStatus();
}

StatusOr<Value> Interpreter::RunBody(FunctionObj& fn, std::shared_ptr<Scope> scope) {
  ScopedContainerRegistry registry(&containers_);
  if (++depth_ > limits_.max_depth) {
    --depth_;
    return PyError("RecursionError", "maximum recursion depth exceeded");
  }
  Evaluator eval(*this, std::move(scope), fn.globals);
  StatusOr<Value> result;
  if (fn.lambda_body) {
    result = eval.Eval(*fn.lambda_body);
  } else {
    auto flow = eval.ExecBody(*fn.body);
    result = flow.ok() ? StatusOr<Value>(eval.return_value()) : StatusOr<Value>(flow.status());
  }
  --depth_;
  return result;
}

StatusOr<Value> Interpreter::Call(const Value& callee, CallArgs args) {
  if (callee.is(Value::Kind::kObject) && callee.as_object() != nullptr) {
    return callee.as_object()->Call(*this, args);
  }
  return PyError("TypeError", "'" + callee.TypeName() + "' object is not callable");
}

StatusOr<Value> Interpreter::CallNoArgs(const Value& callee, const SourceRange& site) {
  return Call(callee, CallArgs{.site = site});
}

StatusOr<bool> Interpreter::Truthy(const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::kNone: return false;
    case K::kBool: return v.as_bool();
    case K::kInt: return v.as_int() != 0;
    case K::kFloat: return v.as_float() != 0.0;
    case K::kStr: return !v.as_str().empty();
    case K::kBytes: return !v.as_bytes().empty();
    case K::kTuple: return !v.as_tuple().empty();
    case K::kList: return !v.as_list()->items.empty();
    case K::kDict: return !v.as_dict()->items.empty();
    case K::kTensor:
      if (hooks_ != nullptr) return hooks_->Truth(*this, v);
      return PyError("TypeError", "using a tensor as a Python bool is not allowed here");
    case K::kObject:
      if (auto r = v.object_as<RangeObj>()) return r->size() != 0;
      return true;
  }
  return true;
}

Status Interpreter::SetAttr(const Value& v, const std::string& name, Value value) {
  if (v.is(Value::Kind::kObject) && v.as_object()) return v.as_object()->SetAttr(*this, name, std::move(value));
  return PyError("AttributeError", "'" + v.TypeName() + "' object has no attribute '" + name + "'");
}

StatusOr<std::vector<Value>> Interpreter::Iterate(const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::kTuple: return v.as_tuple();
    case K::kList: return v.as_list()->items;
    case K::kDict: {
      std::vector<Value> keys;
      for (const auto& [k, unused] : v.as_dict()->items) keys.push_back(k);
      return keys;
    }
    case K::kStr: {
      std::vector<Value> chars;
      for (char c : v.as_str()) chars.push_back(Value::Str(std::string(1, c)));
      return chars;
    }
    case K::kBytes: {
      std::vector<Value> out;
      for (unsigned char c : v.as_bytes()) out.push_back(Value::Int(c));
      return out;
    }
    case K::kTensor:
      if (hooks_ != nullptr) return hooks_->Iterate(*this, v);
      break;
    case K::kObject:
      if (const std::vector<Value>* items = v.as_object()->Items()) return *items;
      if (auto it = v.object_as<IteratorObj>()) return it->Drain();
      if (auto r = v.object_as<RangeObj>()) {
        if (r->size() > limits_.max_steps) return PyError("RecursionError", "range too long to iterate in a trace");
        std::vector<Value> out;
        for (int64_t i = 0; i < r->size(); ++i) out.push_back(Value::Int(r->start + i * r->step));
        return out;
      }
      break;
    default: break;
  }
  return PyError("TypeError", "'" + v.TypeName() + "' object is not iterable");
}

}  // namespace graphd::compiler::tracer
