// Python's operators, indexing and builtin-type methods over tracer values; tensors
// go to the TensorHooks.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/interpreter.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;
using ast::BinOpKind;
using ast::CmpOpKind;

const char* OpSymbol(BinOpKind op) {
  static const char* kSymbols[] = {"+", "-", "*", "@", "/", "//", "%", "**", "<<", ">>", "|", "^", "&"};
  return kSymbols[static_cast<int>(op)];
}

Status Unsupported(const char* op, const Value& a, const Value& b) {
  return PyError("TypeError", absl::StrCat("unsupported operand type(s) for ", op, ": '", a.TypeName(), "' and '",
                                           b.TypeName(), "'"));
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

StatusOr<Value> IntOp(BinOpKind op, int64_t a, int64_t b) {
  int64_t r;
  switch (op) {
    case BinOpKind::kAdd:
      if (__builtin_add_overflow(a, b, &r)) break;
      return Value::Int(r);
    case BinOpKind::kSub:
      if (__builtin_sub_overflow(a, b, &r)) break;
      return Value::Int(r);
    case BinOpKind::kMult:
      if (__builtin_mul_overflow(a, b, &r)) break;
      return Value::Int(r);
    case BinOpKind::kDiv:
      if (b == 0) return PyError("ZeroDivisionError", "division by zero");
      return Value::Float(static_cast<double>(a) / static_cast<double>(b));
    case BinOpKind::kFloorDiv:
      if (b == 0) return PyError("ZeroDivisionError", "integer division or modulo by zero");
      if (a == INT64_MIN && b == -1) break;
      return Value::Int(FloorDivInt(a, b));
    case BinOpKind::kMod:
      if (b == 0) return PyError("ZeroDivisionError", "integer division or modulo by zero");
      if (b == -1) return Value::Int(0);
      return Value::Int(a - FloorDivInt(a, b) * b);
    case BinOpKind::kPow: {
      if (b < 0) return Value::Float(std::pow(static_cast<double>(a), static_cast<double>(b)));
      int64_t result = 1, base = a;
      for (int64_t e = b; e > 0; e >>= 1) {
        if ((e & 1) && __builtin_mul_overflow(result, base, &result)) return PyError("OverflowError", "integer too large for graphd (int64)");
        if (e > 1 && __builtin_mul_overflow(base, base, &base)) return PyError("OverflowError", "integer too large for graphd (int64)");
      }
      return Value::Int(result);
    }
    case BinOpKind::kLShift: return b < 0 || b > 63 ? PyError("ValueError", "shift count out of range") : StatusOr<Value>(Value::Int(a << b));
    case BinOpKind::kRShift: return b < 0 ? PyError("ValueError", "negative shift count") : StatusOr<Value>(Value::Int(a >> std::min<int64_t>(b, 63)));
    case BinOpKind::kBitOr: return Value::Int(a | b);
    case BinOpKind::kBitXor: return Value::Int(a ^ b);
    case BinOpKind::kBitAnd: return Value::Int(a & b);
    case BinOpKind::kMatMult: break;
  }
  if (op == BinOpKind::kMatMult) return PyError("TypeError", "unsupported operand type(s) for @: 'int' and 'int'");
  return PyError("OverflowError", "integer result out of graphd's int64 range");
}

StatusOr<Value> FloatOp(BinOpKind op, double a, double b) {
  switch (op) {
    case BinOpKind::kAdd: return Value::Float(a + b);
    case BinOpKind::kSub: return Value::Float(a - b);
    case BinOpKind::kMult: return Value::Float(a * b);
    case BinOpKind::kDiv:
      if (b == 0) return PyError("ZeroDivisionError", "float division by zero");
      return Value::Float(a / b);
    case BinOpKind::kFloorDiv:
      if (b == 0) return PyError("ZeroDivisionError", "float floor division by zero");
      return Value::Float(std::floor(a / b));
    case BinOpKind::kMod: {
      if (b == 0) return PyError("ZeroDivisionError", "float modulo");
      double r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return Value::Float(r);
    }
    case BinOpKind::kPow: return Value::Float(std::pow(a, b));
    default: return PyError("TypeError", absl::StrCat("unsupported operand type(s) for ", OpSymbol(op), ": 'float'"));
  }
}

StatusOr<Value> Repeat(const std::vector<Value>& items, int64_t n, bool tuple) {
  std::vector<Value> out;
  for (int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
  return tuple ? Value::Tuple(std::move(out)) : Value::List(std::move(out));
}

// Python's ordering (<) of two non-tensor values; TypeError when unordered.
StatusOr<int> Order(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is(K::kFloat) || b.is(K::kFloat)) return a.as_float() < b.as_float() ? -1 : (a.as_float() > b.as_float() ? 1 : 0);
    return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
  }
  if (a.is(K::kStr) && b.is(K::kStr)) return a.as_str().compare(b.as_str()) < 0 ? -1 : (a.as_str() == b.as_str() ? 0 : 1);
  if (a.is(K::kBytes) && b.is(K::kBytes)) return a.as_bytes().compare(b.as_bytes()) < 0 ? -1 : (a.as_bytes() == b.as_bytes() ? 0 : 1);
  if ((a.is(K::kTuple) && b.is(K::kTuple)) || (a.is(K::kList) && b.is(K::kList))) {
    const auto& x = a.is(K::kTuple) ? a.as_tuple() : a.as_list()->items;
    const auto& y = b.is(K::kTuple) ? b.as_tuple() : b.as_list()->items;
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
      if (PyEquals(x[i], y[i])) continue;
      return Order(x[i], y[i]);
    }
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  return PyError("TypeError", "'<' not supported between instances of '" + a.TypeName() + "' and '" + b.TypeName() + "'");
}

}  // namespace

// Tensor-like objects (variables) take part in operators as their tensor.
static StatusOr<Value> Tensorize(Interpreter& in, const Value& v) {
  if (v.is(K::kObject) && v.as_object() && v.as_object()->IsTensorLike()) return v.as_object()->AsTensor(in);
  return v;
}

StatusOr<Value> Interpreter::BinaryOp(BinOpKind op, const Value& a_in, const Value& b_in) {
  ASSIGN_OR_RETURN(Value a, Tensorize(*this, a_in));
  ASSIGN_OR_RETURN(Value b, Tensorize(*this, b_in));
  if (a.is(K::kTensor) || b.is(K::kTensor)) {
    if (hooks_ != nullptr) return hooks_->Binary(*this, static_cast<int>(op), a, b);
    return Unsupported(OpSymbol(op), a, b);
  }
  if (a.is_int_like() && b.is_int_like()) return IntOp(op, a.as_int(), b.as_int());
  if (a.is_number() && b.is_number()) return FloatOp(op, a.as_float(), b.as_float());
  if (op == BinOpKind::kAdd) {
    if (a.is(K::kStr) && b.is(K::kStr)) return Value::Str(a.as_str() + b.as_str());
    if (a.is(K::kBytes) && b.is(K::kBytes)) return Value::Bytes(a.as_bytes() + b.as_bytes());
    if (a.is(K::kList) && b.is(K::kList)) {
      std::vector<Value> items = a.as_list()->items;
      items.insert(items.end(), b.as_list()->items.begin(), b.as_list()->items.end());
      return Value::List(std::move(items));
    }
    if (a.is(K::kTuple) && b.is(K::kTuple)) {
      std::vector<Value> items = a.as_tuple();
      items.insert(items.end(), b.as_tuple().begin(), b.as_tuple().end());
      return Value::Tuple(std::move(items));
    }
  }
  if (op == BinOpKind::kMult) {
    const Value& seq = a.is_int_like() ? b : a;
    const Value& n = a.is_int_like() ? a : b;
    if (n.is_int_like()) {
      int64_t times = std::max<int64_t>(0, n.as_int());
      if (seq.is(K::kList)) return Repeat(seq.as_list()->items, times, false);
      if (seq.is(K::kTuple)) return Repeat(seq.as_tuple(), times, true);
      if (seq.is(K::kStr)) {
        std::string out;
        for (int64_t i = 0; i < times; ++i) out += seq.as_str();
        return Value::Str(out);
      }
    }
  }
  if (op == BinOpKind::kMod && a.is(K::kStr)) {
    return PyError("NotImplementedError", "%-formatting of strings is not supported by graphd; use f-strings or str.format");
  }
  return Unsupported(OpSymbol(op), a, b);
}

StatusOr<Value> Interpreter::CompareOp(CmpOpKind op, const Value& a_in, const Value& b_in) {
  if (op == CmpOpKind::kIs) return Value::Bool(a_in.Is(b_in));
  if (op == CmpOpKind::kIsNot) return Value::Bool(!a_in.Is(b_in));
  ASSIGN_OR_RETURN(Value a, Tensorize(*this, a_in));
  ASSIGN_OR_RETURN(Value b, Tensorize(*this, b_in));
  // Comparisons walk containers recursively (PyEquals, Order).
  RETURN_IF_ERROR(CheckNesting(a, "comparing"));
  RETURN_IF_ERROR(CheckNesting(b, "comparing"));
  if (op == CmpOpKind::kIn || op == CmpOpKind::kNotIn) {
    bool found = false;
    if (b.is(K::kStr) && a.is(K::kStr)) {
      found = b.as_str().find(a.as_str()) != std::string::npos;
    } else if (b.is(K::kDict)) {
      ASSIGN_OR_RETURN(int i, b.as_dict()->Find(a));
      found = i >= 0;
    } else {
      ASSIGN_OR_RETURN(std::vector<Value> items, Iterate(b));
      for (const Value& item : items) {
        if (item.is(K::kTensor) || a.is(K::kTensor) ? item.Is(a) : PyEquals(item, a)) {
          found = true;
          break;
        }
      }
    }
    return Value::Bool(found == (op == CmpOpKind::kIn));
  }
  if (a.is(K::kTensor) || b.is(K::kTensor)) {
    if (hooks_ != nullptr) return hooks_->Binary(*this, 100 + static_cast<int>(op), a, b);
    return PyError("TypeError", "comparison with a tensor needs the tracer");
  }
  if (op == CmpOpKind::kEq) return Value::Bool(PyEquals(a, b));
  if (op == CmpOpKind::kNotEq) return Value::Bool(!PyEquals(a, b));
  ASSIGN_OR_RETURN(int order, Order(a, b));
  switch (op) {
    case CmpOpKind::kLt: return Value::Bool(order < 0);
    case CmpOpKind::kLtE: return Value::Bool(order <= 0);
    case CmpOpKind::kGt: return Value::Bool(order > 0);
    case CmpOpKind::kGtE: return Value::Bool(order >= 0);
    default: return PyError("SystemError", "bad comparison");
  }
}

StatusOr<Value> Interpreter::UnaryOp(ast::UnaryOpKind op, const Value& x_in) {
  ASSIGN_OR_RETURN(Value x, Tensorize(*this, x_in));
  if (op == ast::UnaryOpKind::kNot && !x.is(K::kTensor)) {
    ASSIGN_OR_RETURN(bool t, Truthy(x));
    return Value::Bool(!t);
  }
  if (x.is(K::kTensor)) {
    if (hooks_ != nullptr) return hooks_->Unary(*this, op, x);
    return PyError("TypeError", "bad operand type for unary operator: 'Tensor'");
  }
  if (x.is_int_like()) {
    int64_t v = x.as_int();
    if (op == ast::UnaryOpKind::kUAdd) return Value::Int(v);
    if (op == ast::UnaryOpKind::kUSub) {
      if (v == INT64_MIN) return PyError("OverflowError", "integer result out of graphd's int64 range");
      return Value::Int(-v);
    }
    return Value::Int(~v);
  }
  if (x.is(K::kFloat)) {
    if (op == ast::UnaryOpKind::kUAdd) return x;
    if (op == ast::UnaryOpKind::kUSub) return Value::Float(-x.as_float());
  }
  return PyError("TypeError", "bad operand type for unary operator: '" + x.TypeName() + "'");
}

}  // namespace graphd::compiler::tracer
