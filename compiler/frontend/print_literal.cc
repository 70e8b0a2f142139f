// Literals as Python's repr writes them, and f-strings.
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/frontend/print_internal.h"

namespace graphd::compiler::print_internal {
namespace {

// Characters str.isprintable() rejects (an approximation of Unicode's categories
// Cc, Cf, Cs, Co, Zl, Zp and Zs other than the space).
bool IsPrintable(char32_t cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0xAD) return false;
  if ((cp >= 0x600 && cp <= 0x605) || cp == 0x61C || cp == 0x6DD || cp == 0x70F || cp == 0x180E) return false;
  if ((cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F)) {
    return false;
  }
  if (cp == 0x3000 || (cp >= 0xD800 && cp <= 0xF8FF) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB)) {
    return false;
  }
  return cp != 0xFFFE && cp != 0xFFFF && cp < 0xE0000;
}

// Decodes one UTF-8 sequence at `p`; returns 0 length for malformed input.
char32_t Decode(absl::string_view s, size_t p, int* len) {
  const unsigned char c = s[p];
  const int n = c < 0x80 ? 1 : (c >= 0xC2 && c < 0xE0) ? 2 : (c >= 0xE0 && c < 0xF0) ? 3 : (c >= 0xF0 && c < 0xF5) ? 4 : 0;
  *len = 0;
  if (n == 0 || p + n > s.size()) return 0;
  char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int i = 1; i < n; ++i) {
    const unsigned char cc = s[p + i];
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  *len = n;
  return cp;
}

char ChooseQuote(absl::string_view s) {
  return s.find('\'') != absl::string_view::npos && s.find('"') == absl::string_view::npos ? '"' : '\'';
}

// Appends `s` escaped for a literal quoted with `quote`; in f-strings braces double.
void AppendEscaped(absl::string_view s, char quote, bool bytes, bool fstring, std::string* out) {
  for (size_t p = 0; p < s.size();) {
    const unsigned char c = s[p];
    if (c == '\\' || c == static_cast<unsigned char>(quote)) {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c == '\n') {
      *out += "\\n";
    } else if (c == '\r') {
      *out += "\\r";
    } else if (c == '\t') {
      *out += "\\t";
    } else if (fstring && (c == '{' || c == '}')) {
      out->push_back(static_cast<char>(c));
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7F || (bytes && c >= 0x80)) {
      absl::StrAppendFormat(out, "\\x%02x", c);
    } else if (c >= 0x80) {
      int len;
      const char32_t cp = Decode(s, p, &len);
      if (len == 0) {  // not UTF-8: keep the byte visible
        absl::StrAppendFormat(out, "\\x%02x", c);
      } else if (IsPrintable(cp)) {
        out->append(s.data() + p, len);
      } else if (cp < 0x100) {
        absl::StrAppendFormat(out, "\\x%02x", static_cast<unsigned>(cp));
      } else if (cp < 0x10000) {
        absl::StrAppendFormat(out, "\\u%04x", static_cast<unsigned>(cp));
      } else {
        absl::StrAppendFormat(out, "\\U%08x", static_cast<unsigned>(cp));
      }
      p += len == 0 ? 1 : len;
      continue;
    } else {
      out->push_back(static_cast<char>(c));
    }
    ++p;
  }
}

// The text of a replacement field's expression, as it must appear between braces.
std::string FieldText(const ast::Expr& value) {
  std::string text;
  AppendExpr(value, value.kind == ast::ExprKind::kLambda ? kOr : kTest, &text);
  if (!text.empty() && text[0] == '{') text = absl::StrCat(" ", text);  // `{{` would be an escaped brace
  return text;
}

void CollectFieldTexts(const std::vector<ast::ExprPtr>& values, std::string* all) {
  for (const ast::ExprPtr& v : values) {
    if (const auto* f = v->As<ast::FormattedValue>()) {
      *all += FieldText(*f->value);
      if (const auto* spec = f->format_spec ? f->format_spec->As<ast::JoinedStr>() : nullptr) {
        CollectFieldTexts(spec->values, all);
      }
    }
  }
}

void AppendFStringBody(const std::vector<ast::ExprPtr>& values, char quote, bool in_spec, std::string* out) {
  for (const ast::ExprPtr& v : values) {
    if (const auto* c = v->As<ast::Constant>()) {
      if (const auto* s = std::get_if<std::string>(&c->value)) {
        AppendEscaped(*s, quote, /*bytes=*/false, /*fstring=*/!in_spec, out);
        continue;
      }
    }
    const auto* f = v->As<ast::FormattedValue>();
    const ast::Expr& value = f != nullptr ? *f->value : *v;
    *out += "{";
    *out += FieldText(value);
    if (f != nullptr && f->conversion != 0) {
      out->push_back('!');
      out->push_back(f->conversion);
    }
    if (f != nullptr && f->format_spec != nullptr) {
      *out += ":";
      if (const auto* spec = f->format_spec->As<ast::JoinedStr>()) {
        AppendFStringBody(spec->values, quote, /*in_spec=*/true, out);
      }
    }
    *out += "}";
  }
}

}  // namespace

std::string ReprStr(absl::string_view s) {
  const char q = ChooseQuote(s);
  std::string out(1, q);
  AppendEscaped(s, q, /*bytes=*/false, /*fstring=*/false, &out);
  out.push_back(q);
  return out;
}

std::string ReprBytes(absl::string_view s) {
  const char q = ChooseQuote(s);
  std::string out = absl::StrCat("b", std::string(1, q));
  AppendEscaped(s, q, /*bytes=*/true, /*fstring=*/false, &out);
  out.push_back(q);
  return out;
}

std::optional<std::string> TripleQuoted(absl::string_view s) {
  if (s.find('\n') == absl::string_view::npos) return std::nullopt;
  std::string out = "\"\"\"";
  for (size_t p = 0; p < s.size();) {
    const unsigned char c = s[p];
    if (c >= 0x80) {
      int len;
      const char32_t cp = Decode(s, p, &len);
      if (len == 0 || !IsPrintable(cp)) return std::nullopt;
      out.append(s.data() + p, len);
      p += len;
      continue;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return std::nullopt;
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"' && (p + 1 == s.size() || s.substr(p, 3) == "\"\"\"")) {
      out += "\\\"";  // never three quotes in a row, nor one just before the closing quotes
    } else {
      out.push_back(static_cast<char>(c));
    }
    ++p;
  }
  return out + "\"\"\"";
}

std::string ReprFloat(double d) {
  if (std::isnan(d)) return "float('nan')";
  if (std::isinf(d)) return d > 0 ? "float('inf')" : "-float('inf')";
  // Shortest round-trip digits, then Python's layout: positional for exponents in
  // [-4, 16), scientific otherwise.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  const std::string sci(buf, end);
  const size_t e_pos = sci.find('e');
  std::string mantissa = sci.substr(0, e_pos);
  const int exp = std::atoi(sci.c_str() + e_pos + 1);
  std::string sign;
  if (!mantissa.empty() && mantissa[0] == '-') {
    sign = "-";
    mantissa.erase(0, 1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  if (exp >= -4 && exp < 16) {
    std::string out = sign;
    if (exp >= 0) {
      std::string int_part = digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
      int_part.append(exp + 1 - int_part.size(), '0');
      std::string frac = digits.size() > static_cast<size_t>(exp + 1) ? digits.substr(exp + 1) : "0";
      return absl::StrCat(out, int_part, ".", frac);
    }
    return absl::StrCat(out, "0.", std::string(-exp - 1, '0'), digits);
  }
  std::string out = absl::StrCat(sign, digits.substr(0, 1));
  if (digits.size() > 1) absl::StrAppend(&out, ".", digits.substr(1));
  absl::StrAppendFormat(&out, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  return out;
}

void AppendConstant(const ast::ConstantValue& v, std::string* out) {
  std::visit(
      [out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, ast::NoneValue>) {
          *out += "None";
        } else if constexpr (std::is_same_v<T, bool>) {
          *out += x ? "True" : "False";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          absl::StrAppend(out, x);
        } else if constexpr (std::is_same_v<T, double>) {
          *out += ReprFloat(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          *out += ReprStr(x);
        } else if constexpr (std::is_same_v<T, ast::Bytes>) {
          *out += ReprBytes(x.data);
        } else {
          *out += "...";
        }
      },
      v);
}

void AppendFString(const std::vector<ast::ExprPtr>& values, std::string* out) {
  std::string fields;
  CollectFieldTexts(values, &fields);
  const bool has_single = fields.find('\'') != std::string::npos;
  const bool has_double = fields.find('"') != std::string::npos;
  std::string quote = !has_single ? "'" : !has_double ? "\"" : fields.find("'''") == std::string::npos ? "'''" : "\"\"\"";
  *out += "f";
  *out += quote;
  AppendFStringBody(values, quote[0], /*in_spec=*/false, out);
  *out += quote;
}

}  // namespace graphd::compiler::print_internal
