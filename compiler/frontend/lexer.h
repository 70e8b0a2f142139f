// The lexer: source text -> tokens, with Python's rules for logical lines and
// indentation (INDENT/DEDENT; tabs advance to the next multiple of 8; an inconsistent
// dedent or an ambiguous mix of tabs and spaces is an error), implicit line joining
// inside () [] {}, backslash continuation, comments and blank lines, and literals:
// ints (decimal, 0x, 0o, 0b, underscores; beyond int64 is rejected), floats, and
// str/bytes literals with any of the prefixes r b rb br f rf fr u (any case), single,
// double or triple quotes, and all of Python's escapes except \N{...}. F-string bodies
// are kept raw for the parser (StringInfo::body_begin/body_end).
//
// Errors are located (errors::LocationsOf) and classed (errors::PythonClassOf):
// SyntaxError, IndentationError, TabError, NotImplementedError (complex literals,
// ints beyond 64 bits, \N escapes) and RecursionError (nesting beyond kMaxNesting).
// Thread-safe: no shared state.
#ifndef GRAPHD_COMPILER_FRONTEND_LEXER_H_
#define GRAPHD_COMPILER_FRONTEND_LEXER_H_

#include <memory>
#include <vector>

#include "compiler/frontend/token.h"
#include "core/source.h"
#include "core/status.h"

namespace graphd::compiler {

// Larger sources are rejected (ResourceExhausted).
inline constexpr int kMaxSourceBytes = 1 << 20;
// Most nested brackets, and most indentation levels (RecursionError beyond).
inline constexpr int kMaxNesting = 100;

// Tokenizes a whole module. The stream ends with NEWLINE (if the last line had
// tokens), one DEDENT per open indentation level, and ENDMARKER.
StatusOr<std::vector<Token>> Lex(std::shared_ptr<const SourceFile> file);

// Tokenizes bytes [begin, end) of `file` as the inside of a parenthesised expression:
// newlines are insignificant and no NEWLINE/INDENT/DEDENT tokens are produced; ends
// with ENDMARKER. Used for whole-input expressions and f-string replacement fields.
StatusOr<std::vector<Token>> LexExpression(std::shared_ptr<const SourceFile> file, int begin,
                                           int end);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_FRONTEND_LEXER_H_
