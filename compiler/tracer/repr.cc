#include "compiler/tracer/repr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/tracer/tensor_format.h"
#include "compiler/tracer/tensor_value.h"

namespace graphd::compiler::tracer {
namespace {

std::string TensorRepr(const TensorObj& t) {
  if (t.symbolic()) {
    return absl::StrCat("Tensor(\"", t.Name(), "\", shape=", ShapeRepr(t.shape), ", dtype=",
                        DTypeName(t.dtype), ")");
  }
  if (t.value) return EagerTensorRepr(*t.value);
  return absl::StrCat("tf.Tensor(<", DTypeName(t.dtype), ">, shape=", ShapeRepr(t.shape), ")");
}

std::string SeqRepr(const std::vector<Value>& items, const char* open, const char* close,
                    bool one_tuple) {
  std::string out = open;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += PyRepr(items[i]);
  }
  if (one_tuple && items.size() == 1) out += ",";
  return out + close;
}

}  // namespace

std::string FloatRepr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  // Python writes exponents as e-05 / e+16, uses them only below 1e-4 or from 1e16,
  // and always shows a fractional part.
  auto e = s.find('e');
  if (e != std::string::npos) {
    if (std::abs(d) >= 1e-4 && std::abs(d) < 1e16) {
      int exp10 = static_cast<int>(std::floor(std::log10(std::abs(d))));
      std::snprintf(buf, sizeof(buf), "%.*f", std::max(0, precision - 1 - exp10), d);
      s = buf;
    } else {
      std::string mantissa = s.substr(0, e), exp = s.substr(e + 1);
      char sign = exp[0] == '-' ? '-' : '+';
      std::string digits = exp.substr(exp[0] == '-' || exp[0] == '+' ? 1 : 0);
      while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1);
      if (digits.size() < 2) digits = "0" + digits;
      return mantissa + "e" + sign + digits;
    }
  }
  if (s.find('.') == std::string::npos && s.find('e') == std::string::npos) s += ".0";
  return s;
}

std::string StrRepr(const std::string& s) {
  char quote = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    if (c == quote || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + quote;
}

std::string ShapeRepr(const PartialShape& shape) {
  if (!shape.known_rank()) return "<unknown>";
  std::vector<std::string> dims;
  for (int64_t d : shape.dims()) dims.push_back(d == kUnknownDim ? "None" : std::to_string(d));
  if (dims.size() == 1) return "(" + dims[0] + ",)";
  return "(" + absl::StrJoin(dims, ", ") + ")";
}

std::string PyRepr(const Value& v) {
  using K = Value::Kind;
  // Containers nested deeper than Python's own repr could print (it raises
  // RecursionError) show as "..." there, instead of overflowing the stack.
  constexpr int kMaxReprDepth = 500;
  thread_local int depth = 0;
  if (depth >= kMaxReprDepth && (v.is(K::kTuple) || v.is(K::kList) || v.is(K::kDict))) return "...";
  struct Nest {
    Nest() { ++depth; }
    ~Nest() { --depth; }
  } nest;
  switch (v.kind()) {
    case K::kNone: return "None";
    case K::kBool: return v.as_bool() ? "True" : "False";
    case K::kInt: return std::to_string(v.as_int());
    case K::kFloat: return FloatRepr(v.as_float());
    case K::kStr: return StrRepr(v.as_str());
    case K::kBytes: return "b" + StrRepr(v.as_bytes());
    case K::kTuple: return SeqRepr(v.as_tuple(), "(", ")", true);
    case K::kList: return SeqRepr(v.as_list()->items, "[", "]", false);
    case K::kDict: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, val] : v.as_dict()->items) {
        if (!first) out += ", ";
        first = false;
        out += PyRepr(k) + ": " + PyRepr(val);
      }
      return out + "}";
    }
    case K::kTensor: return TensorRepr(*v.as_tensor());
    case K::kObject: return v.as_object()->Repr();
  }
  return "?";
}

std::string PyStr(const Value& v) {
  if (v.is(Value::Kind::kStr)) return v.as_str();
  if (v.is(Value::Kind::kObject)) return v.as_object()->Str();
  return PyRepr(v);
}

}  // namespace graphd::compiler::tracer
