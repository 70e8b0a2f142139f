#include "compiler/frontend/token.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"

namespace graphd::compiler {

absl::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEndMarker: return "ENDMARKER";
    case TokenKind::kNewline: return "NEWLINE";
    case TokenKind::kIndent: return "INDENT";
    case TokenKind::kDedent: return "DEDENT";
    case TokenKind::kName: return "NAME";
    case TokenKind::kKeyword: return "KEYWORD";
    case TokenKind::kNumber: return "NUMBER";
    case TokenKind::kString: return "STRING";
    case TokenKind::kOp: return "OP";
  }
  return "?";
}

std::string TokenDebugString(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEndMarker:
    case TokenKind::kNewline:
    case TokenKind::kIndent:
    case TokenKind::kDedent:
      return std::string(TokenKindName(token.kind));
    default:
      return absl::StrCat(TokenKindName(token.kind), "(", token.text, ")");
  }
}

bool IsKeyword(absl::string_view word) {
  static constexpr std::array<absl::string_view, 35> kKeywords = {
      "False", "None",   "True",    "and",      "as",     "assert", "async",
      "await", "break",  "class",   "continue", "def",    "del",    "elif",
      "else",  "except", "finally", "for",      "from",   "global", "if",
      "import", "in",    "is",      "lambda",   "nonlocal", "not",  "or",
      "pass",  "raise",  "return",  "try",      "while",  "with",   "yield"};
  return std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
}

}  // namespace graphd::compiler
