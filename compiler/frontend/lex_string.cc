#include "compiler/frontend/lex_string.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/frontend/diagnostics.h"

namespace graphd::compiler {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

}  // namespace

bool IsStringPrefix(absl::string_view prefix) {
  std::string p = absl::AsciiStrToLower(prefix);
  return p == "r" || p == "u" || p == "b" || p == "br" || p == "rb" || p == "f" || p == "fr" ||
         p == "rf";
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

StatusOr<Token> LexString(const std::shared_ptr<const SourceFile>& file, int start, int quote,
                          int limit) {
  const std::string& text = file->text();
  std::string prefix = absl::AsciiStrToLower(text.substr(start, quote - start));
  Token tok;
  tok.kind = TokenKind::kString;
  StringInfo& info = tok.string;
  info.raw = prefix.find('r') != std::string::npos;
  info.bytes = prefix.find('b') != std::string::npos;
  info.fstring = prefix.find('f') != std::string::npos;

  const char q = text[quote];
  const bool triple = quote + 2 < limit && text[quote + 1] == q && text[quote + 2] == q;
  const int body_begin = quote + (triple ? 3 : 1);
  int p = body_begin;
  while (true) {
    bool eol = p < limit && !triple && (text[p] == '\n' || text[p] == '\r');
    if (p >= limit || eol) {
      int detected = file->LineOf(std::max(start, std::min(p, limit) - (eol ? 0 : 1)));
      return SyntaxError(SourceRange{file, start, body_begin},
                         absl::StrCat(triple ? "unterminated triple-quoted string literal"
                                             : "unterminated string literal",
                                      " (detected at line ", detected, ")"));
    }
    char c = text[p];
    if (c == '\\') {
      // A backslash escapes the next character (even in raw literals, for termination).
      p += 2;
      if (p <= limit && text[p - 1] == '\r' && p < limit && text[p] == '\n') ++p;
      if (p > limit) p = limit;
      continue;
    }
    if (c == q && (!triple || (p + 2 < limit && text[p + 1] == q && text[p + 2] == q))) break;
    ++p;
  }
  info.body_begin = body_begin;
  info.body_end = p;
  const int end = p + (triple ? 3 : 1);
  tok.text = text.substr(start, end - start);
  tok.range = SourceRange{file, start, end};
  if (!info.fstring) {
    ASSIGN_OR_RETURN(info.value, DecodeStringBody(file, body_begin, p, info.raw, info.bytes));
  }
  return tok;
}

StatusOr<std::string> DecodeStringBody(const std::shared_ptr<const SourceFile>& file, int begin,
                                       int end, bool raw, bool bytes) {
  const std::string& text = file->text();
  auto range = [&](int b, int e) { return SourceRange{file, b, e}; };
  std::string out;
  out.reserve(end - begin);
  int p = begin;
  while (p < end) {
    const unsigned char c = text[p];
    if (bytes && c >= 0x80) {
      return SyntaxError(range(p, p + 1), "bytes can only contain ASCII literal characters");
    }
    if (c == '\r') {  // newlines in source are normalised to \n
      out.push_back('\n');
      p += (p + 1 < end && text[p + 1] == '\n') ? 2 : 1;
      continue;
    }
    if (c != '\\' || raw || p + 1 >= end) {
      out.push_back(static_cast<char>(c));
      ++p;
      continue;
    }
    const int esc = p;
    const char e = text[p + 1];
    p += 2;
    switch (e) {
      case '\n': break;  // line continuation inside the literal
      case '\r':
        if (p < end && text[p] == '\n') ++p;
        break;
      case '\\': out.push_back('\\'); break;
      case '\'': out.push_back('\''); break;
      case '"': out.push_back('"'); break;
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        int v = e - '0';
        for (int i = 0; i < 2 && p < end && IsOctal(text[p]); ++i, ++p) v = v * 8 + (text[p] - '0');
        if (bytes) {
          out.push_back(static_cast<char>(v & 0xFF));
        } else {
          AppendUtf8(static_cast<char32_t>(v), &out);
        }
        break;
      }
      case 'x': case 'u': case 'U': {
        if (bytes && e != 'x') {  // \u and \U are not escapes in bytes
          out.push_back('\\');
          out.push_back(e);
          break;
        }
        const int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t v = 0;
        for (int i = 0; i < digits; ++i, ++p) {
          int h = p < end ? HexValue(text[p]) : -1;
          if (h < 0) {
            return SyntaxError(range(esc, p),
                               e == 'x'   ? "truncated \\xXX escape"
                               : e == 'u' ? "truncated \\uXXXX escape"
                                          : "truncated \\UXXXXXXXX escape");
          }
          v = v * 16 + h;
        }
        if (bytes) {
          out.push_back(static_cast<char>(v));
        } else if (v > 0x10FFFF) {
          return SyntaxError(range(esc, p), "illegal Unicode character");
        } else if (v >= 0xD800 && v <= 0xDFFF) {
          return NotSupported(range(esc, p),
                              "surrogate code points in string literals are not supported by graphd");
        } else {
          AppendUtf8(v, &out);
        }
        break;
      }
      case 'N':
        if (!bytes) {
          return NotSupported(range(esc, p), "\\N{...} escapes are not supported by graphd");
        }
        [[fallthrough]];
      default:
        // Unknown escapes keep their backslash, as in Python.
        if (bytes && static_cast<unsigned char>(e) >= 0x80) {
          return SyntaxError(range(p - 1, p), "bytes can only contain ASCII literal characters");
        }
        out.push_back('\\');
        out.push_back(e);
        break;
    }
  }
  return out;
}

}  // namespace graphd::compiler
