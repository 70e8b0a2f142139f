// String literal handling for the lexer (and for the literal parts of f-strings, which
// the parser decodes piecewise). Internal to the frontend.
#ifndef GRAPHD_COMPILER_FRONTEND_LEX_STRING_H_
#define GRAPHD_COMPILER_FRONTEND_LEX_STRING_H_

#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "compiler/frontend/token.h"
#include "core/source.h"
#include "core/status.h"

namespace graphd::compiler {

// Whether `prefix` (any case) is a valid string prefix: r u b br rb f fr rf.
bool IsStringPrefix(absl::string_view prefix);

// Lexes the string literal whose prefix starts at `start` and whose opening quote is at
// `quote` (start == quote when there is no prefix), not reading at or past `limit`.
// Returns a kString token; for non-f-strings the value is decoded.
StatusOr<Token> LexString(const std::shared_ptr<const SourceFile>& file, int start, int quote,
                          int limit);

// Decodes the escapes of bytes [begin, end) of `file` (a literal body or a literal
// part of an f-string). Raw bodies are copied (only \r\n becomes \n). For str the
// result is UTF-8; for bytes, non-ASCII characters are an error.
StatusOr<std::string> DecodeStringBody(const std::shared_ptr<const SourceFile>& file, int begin,
                                       int end, bool raw, bool bytes);

// Appends the UTF-8 encoding of `code_point` (<= 0x10FFFF) to `out`.
void AppendUtf8(char32_t code_point, std::string* out);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_FRONTEND_LEX_STRING_H_
