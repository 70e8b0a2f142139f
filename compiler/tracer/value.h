// The tracer's values: Python values and tensors.
//
// Immutable values (None, bool, int, float, str, bytes, tuple) are held by value;
// mutable ones (list, dict, objects) by shared pointer, so copies alias as Python
// references do. Everything that is not a primitive, list, tuple, dict or tensor is
// an Object: functions, builtins, namespaces (tf, np), classes and their instances,
// variables, TensorArrays, ... Objects answer attribute access and calls.
// Thread safety: values belong to one interpreter (one trace) at a time.
#ifndef GRAPHD_COMPILER_TRACER_VALUE_H_
#define GRAPHD_COMPILER_TRACER_VALUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"

namespace graphd::compiler::tracer {

class Value;
class Object;
struct ListObj;
struct DictObj;
struct TensorObj;

struct BytesVal {
  std::string data;
  bool operator==(const BytesVal&) const = default;
};
using TupleVal = std::shared_ptr<const std::vector<Value>>;

class Value {
 public:
  enum class Kind { kNone, kBool, kInt, kFloat, kStr, kBytes, kTuple, kList, kDict, kTensor, kObject };

  Value() = default;  // None
  static Value None() { return Value(); }
  static Value Bool(bool b) { return Value(b); }
  static Value Int(int64_t i) { return Value(i); }
  static Value Float(double d) { return Value(d); }
  static Value Str(std::string s) { return Value(std::move(s)); }
  static Value Bytes(std::string s) { return Value(BytesVal{std::move(s)}); }
  static Value Tuple(std::vector<Value> items);
  static Value List(std::vector<Value> items);
  static Value NewDict();
  static Value Tensor(std::shared_ptr<TensorObj> t) { return Value(std::move(t)); }
  static Value Obj(std::shared_ptr<Object> o) { return Value(std::move(o)); }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is(Kind k) const { return kind() == k; }
  bool is_none() const { return is(Kind::kNone); }
  // bool or int (Python's bool is an int).
  bool is_int_like() const { return is(Kind::kBool) || is(Kind::kInt); }
  bool is_number() const { return is_int_like() || is(Kind::kFloat); }

  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return is(Kind::kBool) ? std::get<bool>(v_) : std::get<int64_t>(v_); }
  double as_float() const { return is(Kind::kFloat) ? std::get<double>(v_) : static_cast<double>(as_int()); }
  const std::string& as_str() const { return std::get<std::string>(v_); }
  const std::string& as_bytes() const { return std::get<BytesVal>(v_).data; }
  const std::vector<Value>& as_tuple() const { return *std::get<TupleVal>(v_); }
  const std::shared_ptr<ListObj>& as_list() const { return std::get<std::shared_ptr<ListObj>>(v_); }
  const std::shared_ptr<DictObj>& as_dict() const { return std::get<std::shared_ptr<DictObj>>(v_); }
  const std::shared_ptr<TensorObj>& as_tensor() const { return std::get<std::shared_ptr<TensorObj>>(v_); }
  const std::shared_ptr<Object>& as_object() const { return std::get<std::shared_ptr<Object>>(v_); }
  // The object as T, or nullptr.
  template <typename T>
  std::shared_ptr<T> object_as() const {
    return is(Kind::kObject) ? std::dynamic_pointer_cast<T>(as_object()) : nullptr;
  }

  // Python's type(x).__name__ ("int", "list", "Tensor", "function", ...).
  std::string TypeName() const;
  // Identity for mutable values, equality for immutable ones (Python's `is`, close
  // enough for the values a trace sees).
  bool Is(const Value& other) const;

 private:
  template <typename T>
  explicit Value(T v) : v_(std::move(v)) {}

  std::variant<std::monostate, bool, int64_t, double, std::string, BytesVal, TupleVal,
               std::shared_ptr<ListObj>, std::shared_ptr<DictObj>, std::shared_ptr<TensorObj>,
               std::shared_ptr<Object>>
      v_;
};

// Containers nest without bound (x = [x] in a loop), so nothing that walks a value may
// recurse once per level on the C++ stack:
// - destruction: ListObj, DictObj, tuples and instances hand their elements to
//   ReleaseNested, which destroys a nested value iteratively;
// - walks (repr, ==, hashing, flattening, encoding a result): CheckNesting first,
//   RecursionError past kMaxNesting levels (Python's own recursion limit), or on a
//   value that contains itself.
inline constexpr int kMaxNesting = 1000;
void ReleaseNested(std::vector<Value>& items);
// RecursionError "maximum recursion depth exceeded while <what>" when `v` nests
// containers (tuples, lists, dicts) more than kMaxNesting deep or contains itself.
Status CheckNesting(const Value& v, absl::string_view what);

struct ListObj {
  ListObj() = default;
  ListObj(const ListObj&) = delete;
  ListObj& operator=(const ListObj&) = delete;
  ~ListObj() { ReleaseNested(items); }
  std::vector<Value> items;
  // Set by tf.autograph.experimental.set_element_type: a staged loop that appends to
  // this list turns it into a TensorArray of this dtype (an int DType value).
  int element_dtype = 0;
};

// Insertion-ordered; keys are hashable values (None, bool, int, float, str, bytes,
// tuples of those, objects by identity). Lookup is linear: trace-time dicts are small.
struct DictObj {
  DictObj() = default;
  DictObj(const DictObj&) = delete;
  DictObj& operator=(const DictObj&) = delete;
  ~DictObj();
  std::vector<std::pair<Value, Value>> items;
  // Index of `key`, or -1. Error for unhashable keys (lists, dicts, tensors).
  StatusOr<int> Find(const Value& key) const;
};

// Python equality of two non-tensor values (1 == 1.0 == True).
bool PyEquals(const Value& a, const Value& b);
// TypeError when `v` cannot be a dict key.
Status CheckHashable(const Value& v);

class Interpreter;
struct CallArgs;

// Base of every non-primitive, non-container, non-tensor value.
class Object : public std::enable_shared_from_this<Object> {
 public:
  virtual ~Object() = default;
  virtual std::string TypeName() const = 0;
  // AttributeError by default.
  virtual StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name);
  // AttributeError by default.
  virtual Status SetAttr(Interpreter& interp, const std::string& name, Value value);
  // TypeError "'x' object is not callable" by default.
  virtual StatusOr<Value> Call(Interpreter& interp, CallArgs& args);
  // repr() text.
  virtual std::string Repr() const;
  // str() text (repr() by default).
  virtual std::string Str() const { return Repr(); }
  // A sequence object (a namedtuple): its items, which iteration, indexing, len() and
  // tf.nest use; and a copy of it with other items. Null for other objects.
  virtual const std::vector<Value>* Items() const { return nullptr; }
  virtual std::shared_ptr<Object> WithItems(std::vector<Value> items) const { return nullptr; }
  // Objects that stand for a tensor in operators and ops (variables) convert here.
  virtual bool IsTensorLike() const { return false; }
  virtual StatusOr<Value> AsTensor(Interpreter& interp);
  // The context manager protocol of `with`: Enter's value is what `as` binds, Exit
  // runs when the block is left (`failed`: by an exception, which propagates).
  // Default: the object itself, and nothing.
  virtual StatusOr<Value> Enter(Interpreter& interp);
  virtual Status Exit(Interpreter& interp, bool failed);

  // Unique in the process and never reused (unlike an address): what a function cache
  // key says for an object passed as an argument whose repr does not tell which it is.
  uint64_t unique_id() const { return unique_id_; }

 private:
  static uint64_t NextUniqueId();
  const uint64_t unique_id_ = NextUniqueId();
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_VALUE_H_
