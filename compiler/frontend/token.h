// Tokens produced by the lexer (lexer.h) and consumed by the parser (parser.h).
#ifndef GRAPHD_COMPILER_FRONTEND_TOKEN_H_
#define GRAPHD_COMPILER_FRONTEND_TOKEN_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/source.h"

namespace graphd::compiler {

enum class TokenKind {
  kEndMarker,  // end of input; always the last token
  kNewline,    // end of a logical line
  kIndent,     // the indentation grew (zero-width, at the first character of the line)
  kDedent,     // one indentation level closed (zero-width)
  kName,       // identifier
  kKeyword,    // a reserved word: if, def, None, True, lambda, ...
  kNumber,     // int or float literal
  kString,     // one str or bytes literal (adjacent literals are separate tokens)
  kOp,         // operator or delimiter: + ** ( ) : -> ... :=
};

// What a string token holds.
struct StringInfo {
  bool bytes = false;    // b prefix
  bool raw = false;      // r prefix
  bool fstring = false;  // f prefix
  // The decoded value (escapes processed; UTF-8 for str, raw bytes for bytes). Empty for
  // f-strings, whose body the parser reads from the source.
  std::string value;
  // Byte offsets of the text between the quotes (the raw body).
  int body_begin = 0;
  int body_end = 0;
};

struct Token {
  TokenKind kind = TokenKind::kEndMarker;
  // The source spelling (empty for NEWLINE at end of input, INDENT, DEDENT, ENDMARKER).
  std::string text;
  SourceRange range;
  // kNumber: exactly one of the two is meaningful, as `is_float` says.
  bool is_float = false;
  int64_t int_value = 0;
  double float_value = 0;
  // kString.
  StringInfo string;

  bool Is(TokenKind k, absl::string_view t) const { return kind == k && text == t; }
  bool IsOp(absl::string_view op) const { return Is(TokenKind::kOp, op); }
  bool IsKeyword(absl::string_view kw) const { return Is(TokenKind::kKeyword, kw); }
};

// "NAME", "OP", ...
absl::string_view TokenKindName(TokenKind kind);
// A compact form for tests and debugging: NAME(x), OP(+), NUMBER(1.5), STRING('a'),
// NEWLINE, INDENT, ...
std::string TokenDebugString(const Token& token);
// Whether `word` is a Python keyword (hard keywords only; `match`/`case` are names).
bool IsKeyword(absl::string_view word);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_FRONTEND_TOKEN_H_
