#include "compiler/frontend/lexer.h"

#include <charconv>
#include <cstdlib>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "compiler/frontend/diagnostics.h"
#include "compiler/frontend/lex_string.h"

namespace graphd::compiler {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the UTF-8 sequence at `p` (validated beforehand); sets its length.
char32_t DecodeUtf8(absl::string_view s, int p, int* len) {
  unsigned char c = s[p];
  int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[p + i]) & 0x3F);
  *len = n;
  return cp;
}

// The offset of the first byte that is not part of well-formed UTF-8, or -1.
int FindInvalidUtf8(absl::string_view s) {
  for (int p = 0, n = static_cast<int>(s.size()); p < n;) {
    unsigned char c = s[p];
    int len = c < 0x80 ? 1 : (c >= 0xC2 && c < 0xE0) ? 2 : (c >= 0xE0 && c < 0xF0) ? 3
                                                       : (c >= 0xF0 && c < 0xF5) ? 4 : 0;
    if (len == 0 || p + len > n) return p;
    for (int i = 1; i < len; ++i) {
      if ((static_cast<unsigned char>(s[p + i]) & 0xC0) != 0x80) return p;
    }
    if (len > 1) {
      int dummy;
      char32_t cp = DecodeUtf8(s, p, &dummy);
      if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
          (cp >= 0xD800 && cp <= 0xDFFF)) {
        return p;
      }
    }
    p += len;
  }
  return -1;
}

// Non-ASCII code points that cannot be part of an identifier: spaces, punctuation,
// symbols (a conservative list; other non-ASCII characters are accepted as letters).
bool IsNonPrintable(char32_t cp) {
  return (cp >= 0x80 && cp <= 0xA0) || cp == 0xAD || (cp >= 0x2000 && cp <= 0x200F) ||
         (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 ||
         cp == 0xFEFF;
}
bool IsInvalidIdentifierChar(char32_t cp) {
  return IsNonPrintable(cp) || (cp >= 0xA1 && cp <= 0xBF && cp != 0xAA && cp != 0xB5 && cp != 0xBA) ||
         cp == 0xD7 || cp == 0xF7 || (cp >= 0x2010 && cp <= 0x205E) || (cp >= 0x20A0 && cp <= 0x20CF) ||
         (cp >= 0x2190 && cp <= 0x2BFF) || (cp >= 0x3001 && cp <= 0x303F) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF01 && cp <= 0xFF0F) ||
         (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
         (cp >= 0xFF5B && cp <= 0xFF65) || cp >= 0x1F000;
}

constexpr absl::string_view kOps3[] = {"**=", "//=", ">>=", "<<=", "..."};
constexpr absl::string_view kOps2[] = {"**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", "+=",
                                       "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":="};
constexpr absl::string_view kOps1 = "+-*/%@&|^~<>()[]{},:.;=";

class Lexer {
 public:
  Lexer(std::shared_ptr<const SourceFile> file, int begin, int end, bool expression)
      : file_(std::move(file)), text_(file_->text()), pos_(begin), end_(end), expression_(expression) {}

  StatusOr<std::vector<Token>> Run();

 private:
  enum class LineStart { kBlank, kEnd, kLine };

  SourceRange Range(int b, int e) const { return SourceRange{file_, b, e}; }
  char At(int p) const { return p < end_ ? text_[p] : '\0'; }
  Token& Emit(TokenKind kind, int b, int e) {
    Token& t = tokens_.emplace_back();
    t.kind = kind;
    t.text = text_.substr(b, e - b);
    t.range = Range(b, e);
    return t;
  }
  void EmitEmpty(TokenKind kind, int at) {
    Token& t = tokens_.emplace_back();
    t.kind = kind;
    t.range = Range(at, at);
  }
  StatusOr<LineStart> Indentation();
  Status ScanDigits(int base, int begin, absl::string_view what);
  Status LexNumber();
  Status LexName();
  Status LexOp();

  std::shared_ptr<const SourceFile> file_;
  const std::string& text_;
  int pos_;
  const int end_;
  const bool expression_;
  bool at_line_start_ = true;
  std::vector<int> indents_ = {0};
  std::vector<int> alt_indents_ = {0};  // with tabs as one column, to detect ambiguity
  struct Bracket {
    char c;
    int offset;
  };
  std::vector<Bracket> brackets_;
  std::vector<Token> tokens_;
};

StatusOr<std::vector<Token>> Lexer::Run() {
  if (expression_) at_line_start_ = false;
  while (true) {
    if (at_line_start_ && brackets_.empty()) {
      ASSIGN_OR_RETURN(LineStart line, Indentation());
      if (line == LineStart::kEnd) break;
      if (line == LineStart::kBlank) continue;
    }
    if (pos_ >= end_) break;
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\f') {
      ++pos_;
    } else if (c == '#') {
      while (pos_ < end_ && text_[pos_] != '\n' && text_[pos_] != '\r') ++pos_;
    } else if (c == '\n' || c == '\r') {
      pos_ += (c == '\r' && At(pos_ + 1) == '\n') ? 2 : 1;
      if (expression_ || !brackets_.empty()) continue;
      int at = tokens_.empty() ? pos_ : tokens_.back().range.end;
      Token& t = tokens_.emplace_back();
      t.kind = TokenKind::kNewline;
      t.text = std::string(1, '\n');
      t.range = Range(at, at);
      at_line_start_ = true;
    } else if (c == '\\') {
      int p = pos_ + 1;
      if (At(p) == '\r' && At(p + 1) == '\n') ++p;
      if (At(p) != '\n' && At(p) != '\r') {
        return SyntaxError(Range(pos_, pos_ + 1), "unexpected character after line continuation character");
      }
      if (p + 1 >= end_) return SyntaxError(Range(pos_, pos_ + 1), "unexpected EOF while parsing");
      pos_ = p + 1;
    } else if (IsDigit(c) || (c == '.' && IsDigit(At(pos_ + 1)))) {
      RETURN_IF_ERROR(LexNumber());
    } else if (IsIdentStart(c)) {
      RETURN_IF_ERROR(LexName());
    } else if (c == '\'' || c == '"') {
      ASSIGN_OR_RETURN(Token tok, LexString(file_, pos_, pos_, end_));
      pos_ = tok.range.end;
      tokens_.push_back(std::move(tok));
    } else {
      RETURN_IF_ERROR(LexOp());
    }
  }
  if (!brackets_.empty()) {
    const Bracket& b = brackets_.back();
    return SyntaxError(Range(b.offset, b.offset + 1), absl::StrCat("'", std::string(1, b.c), "' was never closed"));
  }
  // End-of-input tokens sit on the last line (at its newline), not on a line after it.
  int eof = end_;
  if (eof > 0 && text_[eof - 1] == '\n') --eof;
  if (eof > 0 && text_[eof - 1] == '\r') --eof;
  if (!expression_) {
    if (!at_line_start_) EmitEmpty(TokenKind::kNewline, tokens_.empty() ? eof : tokens_.back().range.end);
    for (size_t i = 1; i < indents_.size(); ++i) EmitEmpty(TokenKind::kDedent, eof);
  }
  EmitEmpty(TokenKind::kEndMarker, eof);
  return std::move(tokens_);
}

StatusOr<Lexer::LineStart> Lexer::Indentation() {
  int col = 0, alt = 0;
  int p = pos_;
  for (; p < end_; ++p) {
    const char c = text_[p];
    if (c == ' ') {
      ++col, ++alt;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      ++alt;
    } else if (c == '\f') {
      col = alt = 0;
    } else {
      break;
    }
  }
  pos_ = p;
  if (p >= end_) return LineStart::kEnd;
  if (text_[p] == '#' || text_[p] == '\n' || text_[p] == '\r') {  // blank line
    while (pos_ < end_ && text_[pos_] != '\n' && text_[pos_] != '\r') ++pos_;
    if (pos_ < end_) pos_ += (text_[pos_] == '\r' && At(pos_ + 1) == '\n') ? 2 : 1;
    return LineStart::kBlank;
  }
  at_line_start_ = false;
  const SourceRange here = Range(p, p + 1);
  constexpr absl::string_view kTabs = "inconsistent use of tabs and spaces in indentation";
  if (col == indents_.back()) {
    if (alt != alt_indents_.back()) return TabError(here, kTabs);
  } else if (col > indents_.back()) {
    if (alt <= alt_indents_.back()) return TabError(here, kTabs);
    if (static_cast<int>(indents_.size()) > kMaxNesting) {
      return TooDeep(here, "too many levels of indentation");
    }
    indents_.push_back(col);
    alt_indents_.push_back(alt);
    EmitEmpty(TokenKind::kIndent, p);
  } else {
    while (indents_.size() > 1 && col < indents_.back()) {
      indents_.pop_back();
      alt_indents_.pop_back();
      EmitEmpty(TokenKind::kDedent, p);
    }
    if (col != indents_.back()) {
      return IndentationError(here, "unindent does not match any outer indentation level");
    }
    if (alt != alt_indents_.back()) return TabError(here, kTabs);
  }
  return LineStart::kLine;
}

// Scans digits of `base` from pos_, each optionally preceded by one underscore (the
// first only when `begin` < pos_, i.e. after a radix prefix).
Status Lexer::ScanDigits(int base, int begin, absl::string_view what) {
  while (true) {
    const bool underscore = At(pos_) == '_';
    const int q = pos_ + (underscore ? 1 : 0);
    const int d = DigitValue(At(q));
    if (d < 0 || d >= base) {
      if (underscore) return SyntaxError(Range(begin, q), absl::StrCat("invalid ", what, " literal"));
      return absl::OkStatus();
    }
    pos_ = q + 1;
  }
}

Status Lexer::LexNumber() {
  const int b = pos_;
  const char radix = static_cast<char>(At(pos_ + 1) | 0x20);
  if (text_[pos_] == '0' && (radix == 'x' || radix == 'o' || radix == 'b')) {
    const int base = radix == 'x' ? 16 : radix == 'o' ? 8 : 2;
    const absl::string_view what = radix == 'x' ? "hexadecimal" : radix == 'o' ? "octal" : "binary";
    pos_ += 2;
    const int digits_begin = pos_;
    RETURN_IF_ERROR(ScanDigits(base, b, what));
    if (IsDigit(At(pos_))) {
      return SyntaxError(Range(pos_, pos_ + 1),
                         absl::StrCat("invalid digit '", std::string(1, At(pos_)), "' in ", what, " literal"));
    }
    if (pos_ == digits_begin || IsIdentChar(At(pos_))) {
      return SyntaxError(Range(b, pos_ + 1), absl::StrCat("invalid ", what, " literal"));
    }
    uint64_t value = 0;
    bool overflow = false;
    for (int p = digits_begin; p < pos_; ++p) {
      if (text_[p] == '_') continue;
      const uint64_t d = DigitValue(text_[p]);
      if (value > (std::numeric_limits<uint64_t>::max() - d) / base) overflow = true;
      value = value * base + d;
    }
    if (overflow || value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return NotSupported(Range(b, pos_), "integer literals beyond 64 bits are not supported by graphd");
    }
    Token& t = Emit(TokenKind::kNumber, b, pos_);
    t.int_value = static_cast<int64_t>(value);
    return absl::OkStatus();
  }

  bool is_float = false;
  if (IsDigit(At(pos_))) RETURN_IF_ERROR(ScanDigits(10, b, "decimal"));
  const int int_end = pos_;
  if (At(pos_) == '.') {
    is_float = true;
    ++pos_;
    if (IsDigit(At(pos_))) RETURN_IF_ERROR(ScanDigits(10, b, "decimal"));
  }
  if ((At(pos_) | 0x20) == 'e') {
    int q = pos_ + 1;
    if (At(q) == '+' || At(q) == '-') ++q;
    if (!IsDigit(At(q))) return SyntaxError(Range(b, q), "invalid decimal literal");
    is_float = true;
    pos_ = q;
    RETURN_IF_ERROR(ScanDigits(10, b, "decimal"));
  }
  if ((At(pos_) | 0x20) == 'j') {
    return NotSupported(Range(b, pos_ + 1), "complex literals are not supported by graphd");
  }
  if (IsIdentChar(At(pos_))) return SyntaxError(Range(b, pos_ + 1), "invalid decimal literal");

  const std::string digits = absl::StrReplaceAll(text_.substr(b, pos_ - b), {{"_", ""}});
  Token& t = Emit(TokenKind::kNumber, b, pos_);
  if (!is_float) {
    if (int_end - b > 1 && text_[b] == '0' && digits.find_first_not_of('0') != std::string::npos) {
      tokens_.pop_back();
      return SyntaxError(Range(b, pos_), "leading zeros in decimal integer literals are not permitted; "
                                         "use an 0o prefix for octal integers");
    }
    if (!absl::SimpleAtoi(digits, &t.int_value)) {
      tokens_.pop_back();
      return NotSupported(Range(b, pos_), "integer literals beyond 64 bits are not supported by graphd");
    }
    return absl::OkStatus();
  }
  t.is_float = true;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t.float_value);
  if (ec == std::errc::result_out_of_range) {
    t.float_value = std::strtod(digits.c_str(), nullptr);  // inf or 0, as in Python
  }
  return absl::OkStatus();
}

Status Lexer::LexName() {
  const int b = pos_;
  while (pos_ < end_ && IsIdentChar(text_[pos_])) {
    if (static_cast<unsigned char>(text_[pos_]) < 0x80) {
      ++pos_;
      continue;
    }
    int len;
    const char32_t cp = DecodeUtf8(text_, pos_, &len);
    if (IsInvalidIdentifierChar(cp)) {
      if (pos_ > b) break;  // ends the name; reported on the next round
      const SourceRange r = Range(pos_, pos_ + len);
      if (IsNonPrintable(cp)) return SyntaxError(r, absl::StrFormat("invalid non-printable character U+%04X", cp));
      return SyntaxError(r, absl::StrFormat("invalid character '%s' (U+%04X)", text_.substr(pos_, len), cp));
    }
    pos_ += len;
  }
  const absl::string_view word(text_.data() + b, pos_ - b);
  if ((At(pos_) == '\'' || At(pos_) == '"') && IsStringPrefix(word)) {
    ASSIGN_OR_RETURN(Token tok, LexString(file_, b, pos_, end_));
    pos_ = tok.range.end;
    tokens_.push_back(std::move(tok));
    return absl::OkStatus();
  }
  Emit(IsKeyword(word) ? TokenKind::kKeyword : TokenKind::kName, b, pos_);
  return absl::OkStatus();
}

Status Lexer::LexOp() {
  const int b = pos_;
  for (absl::string_view op : kOps3) {
    if (end_ - b >= 3 && absl::string_view(text_).substr(b, 3) == op) {
      pos_ += 3;
      Emit(TokenKind::kOp, b, pos_);
      return absl::OkStatus();
    }
  }
  for (absl::string_view op : kOps2) {
    if (end_ - b >= 2 && absl::string_view(text_).substr(b, 2) == op) {
      pos_ += 2;
      Emit(TokenKind::kOp, b, pos_);
      return absl::OkStatus();
    }
  }
  const char c = text_[b];
  const SourceRange here = Range(b, b + 1);
  if (kOps1.find(c) == absl::string_view::npos) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return SyntaxError(here, absl::StrFormat("invalid non-printable character U+%04X", c));
    }
    return SyntaxError(here, "invalid syntax");
  }
  if (c == '(' || c == '[' || c == '{') {
    if (static_cast<int>(brackets_.size()) >= kMaxNesting) {
      return TooDeep(here, "too many nested parentheses");
    }
    brackets_.push_back({c, b});
  } else if (c == ')' || c == ']' || c == '}') {
    if (brackets_.empty()) return SyntaxError(here, absl::StrCat("unmatched '", std::string(1, c), "'"));
    const Bracket open = brackets_.back();
    const char want = open.c == '(' ? ')' : open.c == '[' ? ']' : '}';
    if (c != want) {
      std::string msg = absl::StrCat("closing parenthesis '", std::string(1, c),
                                     "' does not match opening parenthesis '", std::string(1, open.c), "'");
      const int open_line = file_->LineOf(open.offset);
      if (open_line != file_->LineOf(b)) absl::StrAppend(&msg, " on line ", open_line);
      return SyntaxError(here, msg);
    }
    brackets_.pop_back();
  }
  ++pos_;
  Emit(TokenKind::kOp, b, pos_);
  return absl::OkStatus();
}

Status CheckText(const std::shared_ptr<const SourceFile>& file, int begin, int end) {
  const absl::string_view text = absl::string_view(file->text()).substr(begin, end - begin);
  if (const size_t nul = text.find('\0'); nul != absl::string_view::npos) {
    const int at = begin + static_cast<int>(nul);
    return SyntaxError(SourceRange{file, at, at + 1}, "source code cannot contain null bytes");
  }
  if (const int bad = FindInvalidUtf8(text); bad >= 0) {
    const int at = begin + bad;
    return SyntaxError(SourceRange{file, at, at + 1},
                       absl::StrFormat("source is not valid UTF-8 (byte 0x%02x)",
                                       static_cast<unsigned char>(text[bad])));
  }
  return absl::OkStatus();
}

}  // namespace

StatusOr<std::vector<Token>> Lex(std::shared_ptr<const SourceFile> file) {
  const int size = static_cast<int>(file->text().size());
  if (file->text().size() > static_cast<size_t>(kMaxSourceBytes)) {
    return errors::ResourceExhausted(absl::StrCat("source of ", file->name(), " is ", file->text().size(),
                                                  " bytes; graphd accepts at most ", kMaxSourceBytes));
  }
  RETURN_IF_ERROR(CheckText(file, 0, size));
  const int begin = file->text().compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // UTF-8 BOM
  return Lexer(std::move(file), begin, size, /*expression=*/false).Run();
}

StatusOr<std::vector<Token>> LexExpression(std::shared_ptr<const SourceFile> file, int begin, int end) {
  if (end - begin > kMaxSourceBytes) {
    return errors::ResourceExhausted(absl::StrCat("expression is ", end - begin,
                                                  " bytes; graphd accepts at most ", kMaxSourceBytes));
  }
  RETURN_IF_ERROR(CheckText(file, begin, end));
  return Lexer(std::move(file), begin, end, /*expression=*/true).Run();
}

}  // namespace graphd::compiler
