// String literals: adjacent-literal concatenation and f-strings (JoinedStr with
// FormattedValue parts; replacement fields are lexed and parsed from the source).
#include "absl/strings/str_cat.h"
#include "compiler/frontend/lex_string.h"
#include "compiler/frontend/lexer.h"
#include "compiler/frontend/parser_impl.h"

namespace graphd::compiler::internal {

using ast::ExprPtr;

struct Parser::FString {
  bool raw;
  int end;             // end of the body
  SourceRange range;   // the whole literal, given to its constant parts
};

StatusOr<ExprPtr> Parser::ParseStrings() {
  const Token& first = Peek();
  const bool bytes = first.string.bytes;
  std::vector<const Token*> literals;
  bool any_f = false;
  while (At(TokenKind::kString)) {
    const Token& t = Advance();
    if (t.string.bytes != bytes) return SyntaxError(t.range, "cannot mix bytes and nonbytes literals");
    any_f = any_f || t.string.fstring;
    literals.push_back(&t);
  }
  const SourceRange range = From(first);
  if (!any_f) {
    std::string v;
    for (const Token* t : literals) v += t->string.value;
    if (bytes) return New<ast::Constant>(ast::Bytes{std::move(v)}, range);
    return New<ast::Constant>(std::move(v), range);
  }
  std::vector<ExprPtr> values;
  std::string pending;
  for (const Token* t : literals) {
    if (!t->string.fstring) {
      pending += t->string.value;
      continue;
    }
    FString f{.raw = t->string.raw, .end = t->string.body_end, .range = t->range};
    RETURN_IF_ERROR(WalkFString(f, t->string.body_begin, 0, /*in_spec=*/false, &values, &pending).status());
  }
  if (!pending.empty()) values.push_back(New<ast::Constant>(std::move(pending), range));
  return New<ast::JoinedStr>(std::move(values), range);
}

// Walks f-string text from `p`, appending literal text to `pending` and fields to
// `parts`. In a format spec, stops at the '}' that closes the field and returns its
// offset; otherwise walks to the end of the body.
StatusOr<int> Parser::WalkFString(FString& f, int p, int nesting, bool in_spec,
                                  std::vector<ExprPtr>* parts, std::string* pending) {
  const std::string& text = file_->text();
  int lit = p;
  auto flush = [&](int upto) -> Status {
    ASSIGN_OR_RETURN(std::string s, DecodeStringBody(file_, lit, upto, f.raw, /*bytes=*/false));
    *pending += s;
    return absl::OkStatus();
  };
  while (p < f.end) {
    const char c = text[p];
    const char next = p + 1 < f.end ? text[p + 1] : '\0';
    if (c == '\\' && !f.raw) {
      p += (next == '{' || next == '}') ? 1 : 2;  // \{ keeps its backslash; the brace still counts
      continue;
    }
    if (c == '{') {
      if (!in_spec && next == '{') {
        RETURN_IF_ERROR(flush(p + 1));
        p += 2;
      } else {
        RETURN_IF_ERROR(flush(p));
        ASSIGN_OR_RETURN(p, ParseField(f, p, nesting, parts, pending));
      }
      lit = p;
      continue;
    }
    if (c == '}') {
      if (in_spec) {
        RETURN_IF_ERROR(flush(p));
        return p;
      }
      if (next != '}') return SyntaxError(Range(p, p + 1), "f-string: single '}' is not allowed");
      RETURN_IF_ERROR(flush(p + 1));
      p += 2;
      lit = p;
      continue;
    }
    ++p;
  }
  if (in_spec) return SyntaxError(Range(f.end, f.end), "f-string: expecting '}'");
  RETURN_IF_ERROR(flush(f.end));
  return f.end;
}

// Parses the replacement field whose '{' is at `open`; returns the offset after its '}'.
StatusOr<int> Parser::ParseField(FString& f, int open, int nesting, std::vector<ExprPtr>* parts,
                                 std::string* pending) {
  const std::string& text = file_->text();
  if (nesting >= 2) return SyntaxError(Range(open, open + 1), "f-string: expressions nested too deeply");
  auto at = [&](int i) { return i < f.end ? text[i] : '\0'; };
  // Find the end of the expression: '}', ':', '!' (not '!=') or a debugging '=' at depth 0.
  int q = open + 1, depth = 0;
  char quote = 0;
  bool debug = false;
  for (; q < f.end; ++q) {
    const char c = text[q];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\') {
      return SyntaxError(Range(q, q + 1), "f-string expression part cannot include a backslash");
    } else if (c == '#') {
      return SyntaxError(Range(q, q + 1), "f-string expression part cannot include '#'");
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (depth > 0) {
      if (c == ')' || c == ']' || c == '}') --depth;
    } else if (c == '}' || c == ':' || (c == '!' && at(q + 1) != '=')) {
      break;
    } else if (c == '=' && at(q + 1) != '=' && absl::string_view("=!<>").find(text[q - 1]) == absl::string_view::npos) {
      debug = true;
      break;
    }
  }
  if (q >= f.end) return SyntaxError(Range(open, open + 1), "f-string: expecting '}'");
  const int expr_end = q;
  if (text.find_first_not_of(" \t\r\n\f", open + 1) >= static_cast<size_t>(expr_end)) {
    return SyntaxError(Range(open, q + 1), "f-string: empty expression not allowed");
  }
  if (debug) {  // f'{x = }' prints "x = " then the repr of x
    ++q;
    while (q < f.end && (text[q] == ' ' || text[q] == '\t')) ++q;
    *pending += text.substr(open + 1, q - open - 1);
  }
  char conversion = 0;
  if (at(q) == '!') {
    const char c = at(q + 1);
    if (c != 's' && c != 'r' && c != 'a') {
      return SyntaxError(Range(q, q + 2), "f-string: invalid conversion character: expected 's', 'r', or 'a'");
    }
    conversion = c;
    q += 2;
  }
  ExprPtr spec;
  if (at(q) == ':') {
    const int colon = q;
    std::vector<ExprPtr> spec_parts;
    std::string spec_pending;
    ASSIGN_OR_RETURN(q, WalkFString(f, q + 1, nesting + 1, /*in_spec=*/true, &spec_parts, &spec_pending));
    if (!spec_pending.empty()) spec_parts.push_back(New<ast::Constant>(std::move(spec_pending), f.range));
    spec = New<ast::JoinedStr>(std::move(spec_parts), Range(colon, q));
  }
  if (at(q) != '}') return SyntaxError(Range(open, open + 1), "f-string: expecting '}'");
  ASSIGN_OR_RETURN(ExprPtr value, ParseFieldExpression(open + 1, expr_end));
  if (debug && conversion == 0 && spec == nullptr) conversion = 'r';
  if (!pending->empty()) {
    parts->push_back(New<ast::Constant>(std::move(*pending), f.range));
    pending->clear();
  }
  parts->push_back(New<ast::FormattedValue>(value, conversion, spec, Range(open, q + 1)));
  return q + 1;
}

StatusOr<ExprPtr> Parser::ParseFieldExpression(int begin, int end) {
  ASSIGN_OR_RETURN(std::vector<Token> tokens, LexExpression(file_, begin, end));
  Parser sub(file_, std::move(tokens), depth_ + 1);
  ASSIGN_OR_RETURN(ExprPtr value, sub.ParseEval());
  heights_[value.get()] = sub.HeightOf(value);
  return value;
}

}  // namespace graphd::compiler::internal
