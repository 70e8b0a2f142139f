#include "compiler/tracer/value.h"

#include <atomic>

#include "compiler/tracer/cycles.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {

namespace {
// The elements of the containers being destroyed on this thread (see ReleaseNested).
thread_local std::vector<Value>* releasing = nullptr;

bool IsContainer(const Value& v) {
  using K = Value::Kind;
  return v.is(K::kTuple) || v.is(K::kList) || v.is(K::kDict) || v.is(K::kObject);
}
}  // namespace

void ReleaseNested(std::vector<Value>& items) {
  if (releasing != nullptr) {  // inside the outermost release: queue, do not recurse
    for (Value& v : items) {
      if (IsContainer(v)) releasing->push_back(std::move(v));
    }
    items.clear();
    return;
  }
  std::vector<Value> work;
  for (Value& v : items) {
    if (IsContainer(v)) work.push_back(std::move(v));
  }
  items.clear();
  releasing = &work;
  while (!work.empty()) {
    Value last = std::move(work.back());
    work.pop_back();
    last = Value();  // may destroy a container, whose elements join `work`
  }
  releasing = nullptr;
}

DictObj::~DictObj() {
  std::vector<Value> values;
  values.reserve(items.size() * 2);
  for (auto& [k, v] : items) {
    values.push_back(std::move(k));
    values.push_back(std::move(v));
  }
  items.clear();
  ReleaseNested(values);
}

Status CheckNesting(const Value& v, absl::string_view what) {
  using K = Value::Kind;
  if (!v.is(K::kTuple) && !v.is(K::kList) && !v.is(K::kDict)) return absl::OkStatus();
  // Depth-first with an explicit stack; a container seen before at the same or a
  // smaller depth is not walked again (shared sub-values stay linear).
  std::vector<std::pair<const Value*, int>> stack = {{&v, 1}};
  absl::flat_hash_map<const void*, int> seen;
  while (!stack.empty()) {
    auto [value, depth] = stack.back();
    stack.pop_back();
    const void* id = value->is(K::kTuple)  ? static_cast<const void*>(&value->as_tuple())
                     : value->is(K::kList) ? static_cast<const void*>(value->as_list().get())
                                           : static_cast<const void*>(value->as_dict().get());
    if (depth > kMaxNesting) {
      return PyError("RecursionError", absl::StrCat("maximum recursion depth exceeded while ", what,
                                                    " (containers nest more than ", kMaxNesting,
                                                    " levels deep, or contain themselves)"));
    }
    auto [it, added] = seen.try_emplace(id, depth);
    if (!added) {
      if (it->second >= depth) continue;
      it->second = depth;
    }
    auto push = [&](const Value& child) {
      if (child.is(K::kTuple) || child.is(K::kList) || child.is(K::kDict)) stack.push_back({&child, depth + 1});
    };
    if (value->is(K::kTuple)) {
      for (const Value& child : value->as_tuple()) push(child);
    } else if (value->is(K::kList)) {
      for (const Value& child : value->as_list()->items) push(child);
    } else {
      for (const auto& [key, child] : value->as_dict()->items) {
        push(key);
        push(child);
      }
    }
  }
  return absl::OkStatus();
}

Value Value::Tuple(std::vector<Value> items) {
  // Destroyed through ReleaseNested, like a list.
  return Value(TupleVal(new std::vector<Value>(std::move(items)), [](const std::vector<Value>* p) {
    auto* items = const_cast<std::vector<Value>*>(p);
    ReleaseNested(*items);
    delete items;
  }));
}

Value Value::List(std::vector<Value> items) {
  auto l = std::make_shared<ListObj>();
  l->items = std::move(items);
  if (ContainerRegistry* r = CurrentContainerRegistry()) r->Add(l);
  return Value(std::move(l));
}

Value Value::NewDict() {
  auto d = std::make_shared<DictObj>();
  if (ContainerRegistry* r = CurrentContainerRegistry()) r->Add(d);
  return Value(std::move(d));
}

std::string Value::TypeName() const {
  switch (kind()) {
    case Kind::kNone: return "NoneType";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kStr: return "str";
    case Kind::kBytes: return "bytes";
    case Kind::kTuple: return "tuple";
    case Kind::kList: return "list";
    case Kind::kDict: return "dict";
    case Kind::kTensor: return "Tensor";
    case Kind::kObject: return as_object()->TypeName();
  }
  return "object";
}

bool Value::Is(const Value& o) const {
  if (kind() != o.kind()) return false;
  switch (kind()) {
    case Kind::kList: return as_list() == o.as_list();
    case Kind::kDict: return as_dict() == o.as_dict();
    case Kind::kTensor: return as_tensor() == o.as_tensor();
    case Kind::kObject: return as_object() == o.as_object();
    case Kind::kTuple: return std::get<TupleVal>(v_) == std::get<TupleVal>(o.v_);
    default: return PyEquals(*this, o);
  }
}

bool PyEquals(const Value& a, const Value& b) {
  using K = Value::Kind;
  // Callers check CheckNesting first; past it (never reached then), unequal rather
  // than a stack overflow.
  thread_local int depth = 0;
  if (depth > kMaxNesting) return false;
  struct Nest {
    Nest() { ++depth; }
    ~Nest() { --depth; }
  } nest;
  if (a.is_number() && b.is_number()) {
    if (a.is(K::kFloat) || b.is(K::kFloat)) return a.as_float() == b.as_float();
    return a.as_int() == b.as_int();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::kNone: return true;
    case K::kStr: return a.as_str() == b.as_str();
    case K::kBytes: return a.as_bytes() == b.as_bytes();
    case K::kTuple: {
      const auto& x = a.as_tuple();
      const auto& y = b.as_tuple();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!PyEquals(x[i], y[i])) return false;
      }
      return true;
    }
    case K::kList: {
      const auto& x = a.as_list()->items;
      const auto& y = b.as_list()->items;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!PyEquals(x[i], y[i])) return false;
      }
      return true;
    }
    case K::kDict: {
      const auto& x = a.as_dict()->items;
      const auto& y = b.as_dict()->items;
      if (x.size() != y.size()) return false;
      for (const auto& [k, v] : x) {
        auto i = b.as_dict()->Find(k);
        if (!i.ok() || *i < 0 || !PyEquals(v, y[*i].second)) return false;
      }
      return true;
    }
    default: return a.Is(b);
  }
}

Status CheckHashable(const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::kList:
    case K::kDict:
      return PyError("TypeError", "unhashable type: '" + v.TypeName() + "'");
    case K::kTensor:
      return PyError("TypeError", "Tensor is unhashable. Instead, use tensor.ref() as the key.");
    case K::kTuple:
      for (const Value& e : v.as_tuple()) RETURN_IF_ERROR(CheckHashable(e));
      return absl::OkStatus();
    default: return absl::OkStatus();
  }
}

StatusOr<int> DictObj::Find(const Value& key) const {
  RETURN_IF_ERROR(CheckNesting(key, "hashing"));
  RETURN_IF_ERROR(CheckHashable(key));
  for (size_t i = 0; i < items.size(); ++i) {
    if (PyEquals(items[i].first, key)) return static_cast<int>(i);
  }
  return -1;
}

StatusOr<Value> Object::GetAttr(Interpreter&, const std::string& name) {
  return PyError("AttributeError", "'" + TypeName() + "' object has no attribute '" + name + "'");
}

Status Object::SetAttr(Interpreter&, const std::string& name, Value) {
  return PyError("AttributeError", "'" + TypeName() + "' object attribute '" + name + "' is read-only");
}

StatusOr<Value> Object::Call(Interpreter&, CallArgs&) {
  return PyError("TypeError", "'" + TypeName() + "' object is not callable");
}

std::string Object::Repr() const { return "<" + TypeName() + " object>"; }

uint64_t Object::NextUniqueId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

StatusOr<Value> Object::AsTensor(Interpreter&) {
  return PyError("TypeError", "'" + TypeName() + "' object is not a tensor");
}

StatusOr<Value> Object::Enter(Interpreter&) { return Value::Obj(shared_from_this()); }

Status Object::Exit(Interpreter&, bool) { return absl::OkStatus(); }

}  // namespace graphd::compiler::tracer
