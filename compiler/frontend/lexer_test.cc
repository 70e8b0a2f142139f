#include "compiler/frontend/lexer.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "compiler/frontend/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

using ::testing::ElementsAre;
using testing::ExpectedError;
using testing::ExpectError;
using testing::File;
using Code = absl::StatusCode;

std::vector<Token> Tokens(const std::string& src) {
  auto tokens = Lex(File(src));
  EXPECT_TRUE(tokens.ok()) << tokens.status();
  return tokens.ok() ? *tokens : std::vector<Token>{};
}

// The token stream as one line: "KEYWORD(if) NAME(x) OP(:) NEWLINE ...".
std::string Stream(const std::string& src) {
  std::vector<std::string> parts;
  for (const Token& t : Tokens(src)) parts.push_back(TokenDebugString(t));
  return absl::StrJoin(parts, " ");
}

Status LexError(const std::string& src) { return Lex(File(src)).status(); }

TEST(LexerTest, IndentAndDedent) {
  EXPECT_EQ(Stream("if x:\n  y = 1\nz\n"),
            "KEYWORD(if) NAME(x) OP(:) NEWLINE INDENT NAME(y) OP(=) NUMBER(1) NEWLINE DEDENT NAME(z) "
            "NEWLINE ENDMARKER");
  // Several levels close at once; a missing final newline still ends the line.
  EXPECT_EQ(Stream("def f():\n    if a:\n        b\nc"),
            "KEYWORD(def) NAME(f) OP(() OP()) OP(:) NEWLINE INDENT KEYWORD(if) NAME(a) OP(:) NEWLINE "
            "INDENT NAME(b) NEWLINE DEDENT DEDENT NAME(c) NEWLINE ENDMARKER");
  // Open levels close at the end of input.
  EXPECT_EQ(Stream("while a:\n b\n"), "KEYWORD(while) NAME(a) OP(:) NEWLINE INDENT NAME(b) NEWLINE DEDENT ENDMARKER");
}

TEST(LexerTest, BlankLinesAndCommentsAreIgnored) {
  EXPECT_EQ(Stream("\n# top\nif x:  # c\n\n      # odd indent comment\n    y\n   \n    z\n"),
            "KEYWORD(if) NAME(x) OP(:) NEWLINE INDENT NAME(y) NEWLINE NAME(z) NEWLINE DEDENT ENDMARKER");
  EXPECT_EQ(Stream(""), "ENDMARKER");
  EXPECT_EQ(Stream("\xEF\xBB\xBFx\n"), "NAME(x) NEWLINE ENDMARKER");  // a UTF-8 BOM is skipped
  EXPECT_EQ(Stream("\n  \n# only\n"), "ENDMARKER");
}

TEST(LexerTest, TabsAdvanceToMultiplesOfEight) {
  // A tab and eight spaces... are the same column but ambiguous: TabError.
  ExpectError(LexError("if x:\n\ty\n        z\n"),
              ExpectedError{Code::kInvalidArgument, "TabError", "inconsistent use of tabs and spaces", 3, 9});
  // Consistent tabs are fine; "  \t" is column 8 like "\t" but ambiguous with tabsize 1.
  EXPECT_EQ(Stream("if x:\n\ty\n\tz\n"), "KEYWORD(if) NAME(x) OP(:) NEWLINE INDENT NAME(y) NEWLINE NAME(z) NEWLINE DEDENT ENDMARKER");
  ExpectError(LexError("if x:\n\ty\n  \tz\n"),
              ExpectedError{Code::kInvalidArgument, "TabError", "inconsistent use of tabs", 3, 4});
}

TEST(LexerTest, ImplicitAndExplicitLineJoining) {
  EXPECT_EQ(Stream("f(a,\n      b)[\n1]\n"),
            "NAME(f) OP(() NAME(a) OP(,) NAME(b) OP()) OP([) NUMBER(1) OP(]) NEWLINE ENDMARKER");
  EXPECT_EQ(Stream("x = 1 + \\\n        2\n"), "NAME(x) OP(=) NUMBER(1) OP(+) NUMBER(2) NEWLINE ENDMARKER");
  EXPECT_EQ(Stream("d = {\n  'a': 1,  # comment\n}\n"),
            "NAME(d) OP(=) OP({) STRING('a') OP(:) NUMBER(1) OP(,) OP(}) NEWLINE ENDMARKER");
  EXPECT_EQ(Stream("a = 1\r\nif a:\r\n  b\r\n"),
            "NAME(a) OP(=) NUMBER(1) NEWLINE KEYWORD(if) NAME(a) OP(:) NEWLINE INDENT NAME(b) NEWLINE DEDENT ENDMARKER");
}

TEST(LexerTest, Operators) {
  EXPECT_EQ(Stream("a**=b//c->d...e!=f<<=g:=h@i\n"),
            "NAME(a) OP(**=) NAME(b) OP(//) NAME(c) OP(->) NAME(d) OP(...) NAME(e) OP(!=) NAME(f) "
            "OP(<<=) NAME(g) OP(:=) NAME(h) OP(@) NAME(i) NEWLINE ENDMARKER");
  EXPECT_EQ(Stream("x.y\n"), "NAME(x) OP(.) NAME(y) NEWLINE ENDMARKER");
}

TEST(LexerTest, IntegerLiterals) {
  std::vector<Token> t = Tokens("0 7 1_000 0x_fF 0o17 0O7 0b1010 9223372036854775807 00\n");
  std::vector<int64_t> values;
  for (const Token& tok : t) {
    if (tok.kind == TokenKind::kNumber) {
      EXPECT_FALSE(tok.is_float) << tok.text;
      values.push_back(tok.int_value);
    }
  }
  EXPECT_THAT(values, ElementsAre(0, 7, 1000, 255, 15, 7, 10, 9223372036854775807LL, 0));
}

TEST(LexerTest, FloatLiterals) {
  std::vector<double> values;
  for (const Token& tok : Tokens("1. .5 1e-3 1_000.5 1E+10 0.0 3.14_15 1e400 1e-400\n")) {
    if (tok.kind == TokenKind::kNumber) {
      EXPECT_TRUE(tok.is_float) << tok.text;
      values.push_back(tok.float_value);
    }
  }
  ASSERT_EQ(values.size(), 9u);
  EXPECT_EQ(values[0], 1.0);
  EXPECT_EQ(values[1], 0.5);
  EXPECT_EQ(values[2], 1e-3);
  EXPECT_EQ(values[3], 1000.5);
  EXPECT_EQ(values[4], 1e10);
  EXPECT_EQ(values[5], 0.0);
  EXPECT_EQ(values[6], 3.1415);
  EXPECT_TRUE(std::isinf(values[7]));
  EXPECT_EQ(values[8], 0.0);
}

TEST(LexerTest, StringPrefixesAndQuotes) {
  std::vector<Token> t = Tokens(
      "'a' \"b\" r'\\n' b'x' rb'\\x00' BR'y' u'z' '''tri\npl'e''' \"\"\"q\"\"\" f'{x}\\n' Rf'{y}\\n' fR\"a{b}\"\n");
  std::vector<std::string> values, flags;
  for (const Token& tok : t) {
    if (tok.kind != TokenKind::kString) continue;
    const StringInfo& s = tok.string;
    values.push_back(s.fstring ? "<f>" + std::string(tok.text.substr(s.body_begin - tok.range.begin,
                                                                       s.body_end - s.body_begin))
                               : s.value);
    flags.push_back(std::string(s.bytes ? "b" : "") + (s.raw ? "r" : "") + (s.fstring ? "f" : ""));
  }
  EXPECT_THAT(values, ElementsAre("a", "b", "\\n", "x", "\\x00", "y", "z", "tri\npl'e", "q",
                                  "<f>{x}\\n", "<f>{y}\\n", "<f>a{b}"));
  EXPECT_THAT(flags, ElementsAre("", "", "r", "b", "br", "br", "", "", "", "f", "rf", "rf"));
  // Ranges cover the prefix and the quotes.
  EXPECT_EQ(t[5].text, "BR'y'");
  EXPECT_EQ(t[5].range.column(), 29);
}

TEST(LexerTest, Escapes) {
  std::vector<Token> t = Tokens(
      "'\\n\\t\\\\\\'\\\"\\a\\b\\f\\v\\r' '\\x41\\101\\0' '\\u00e9\\U0001F600' '\\q\\d' 'a\\\nb' b'\\xff\\u1234\\7'\n");
  ASSERT_GE(t.size(), 6u);
  EXPECT_EQ(t[0].string.value, "\n\t\\'\"\a\b\f\v\r");
  EXPECT_EQ(t[1].string.value, std::string("AA\0", 3));
  EXPECT_EQ(t[2].string.value, "\xC3\xA9\xF0\x9F\x98\x80");  // UTF-8
  EXPECT_EQ(t[3].string.value, "\\q\\d");                    // unknown escapes keep the backslash
  EXPECT_EQ(t[4].string.value, "ab");                        // backslash-newline continues
  EXPECT_EQ(t[5].string.value, "\xff\\u1234\x07");           // no \u in bytes
  // A quote escaped in a raw string does not end it.
  EXPECT_EQ(Tokens("r'a\\'b'\n")[0].string.value, "a\\'b");
}

TEST(LexerTest, TokenRanges) {
  std::vector<Token> t = Tokens("x = foo(1)\n  # c\ny\n");
  EXPECT_EQ(t[2].text, "foo");
  EXPECT_EQ(t[2].range.line(), 1);
  EXPECT_EQ(t[2].range.column(), 5);
  EXPECT_EQ(t[2].range.end - t[2].range.begin, 3);
  // NEWLINE sits just after the line's last token.
  EXPECT_EQ(t[6].kind, TokenKind::kNewline);
  EXPECT_EQ(t[6].range.column(), 11);
  EXPECT_EQ(t[7].text, "y");
  EXPECT_EQ(t[7].range.line(), 3);
}

TEST(LexerTest, LexExpressionIgnoresNewlines) {
  auto file = File("a +\n  b");
  auto t = LexExpression(file, 0, static_cast<int>(file->text().size()));
  ASSERT_TRUE(t.ok()) << t.status();
  std::vector<std::string> parts;
  for (const Token& tok : *t) parts.push_back(TokenDebugString(tok));
  EXPECT_EQ(absl::StrJoin(parts, " "), "NAME(a) OP(+) NAME(b) ENDMARKER");
}

TEST(LexerErrorsTest, Strings) {
  ExpectError(LexError("x = 'abc\ny = 2\n"),
              ExpectedError{Code::kInvalidArgument, "SyntaxError", "unterminated string literal (detected at line 1)", 1, 5});
  ExpectError(LexError("x = 1\ns = f\"\"\"abc\n\ndef\n"),
              ExpectedError{Code::kInvalidArgument, "SyntaxError", "unterminated triple-quoted string literal", 2, 5});
  ExpectError(LexError("s = 'a\\x4'\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "truncated \\xXX escape", 1, 7});
  ExpectError(LexError("s = '\\u12'\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "truncated \\uXXXX escape", 1, 6});
  ExpectError(LexError("s = '\\U00110000'\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "illegal Unicode character", 1, 6});
  ExpectError(LexError("s = b'caf\xC3\xA9'\n"),
              ExpectedError{Code::kInvalidArgument, "SyntaxError", "bytes can only contain ASCII literal characters", 1, 10});
  ExpectError(LexError("s = '\\N{DASH}'\n"),
              ExpectedError{Code::kUnimplemented, "NotImplementedError", "\\N{...} escapes are not supported", 1, 6});
}

TEST(LexerErrorsTest, Numbers) {
  ExpectError(LexError("x = 0x\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid hexadecimal literal", 1, 5});
  ExpectError(LexError("x = 0o18\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid digit '8' in octal literal", 1, 8});
  ExpectError(LexError("x = 0b12\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid digit '2' in binary literal", 1, 8});
  ExpectError(LexError("x = 1__0\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid decimal literal", 1, 5});
  ExpectError(LexError("x = 12abc\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid decimal literal", 1, 5});
  ExpectError(LexError("x = 1e+\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid decimal literal", 1, 5});
  ExpectError(LexError("x = 017\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "leading zeros in decimal integer literals", 1, 5});
  ExpectError(LexError("x = 9223372036854775808\n"),
              ExpectedError{Code::kUnimplemented, "NotImplementedError", "integer literals beyond 64 bits", 1, 5});
  ExpectError(LexError("x = 0x1_0000_0000_0000_0000\n"),
              ExpectedError{Code::kUnimplemented, "NotImplementedError", "integer literals beyond 64 bits", 1, 5});
  ExpectError(LexError("x = 2j\n"), ExpectedError{Code::kUnimplemented, "NotImplementedError", "complex literals", 1, 5});
}

TEST(LexerErrorsTest, CharactersAndBrackets) {
  ExpectError(LexError("a = 1\nb = a $ 2\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid syntax", 2, 7});
  ExpectError(LexError("x = 1 \xE2\x82\xAC 2\n"),
              ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid character '\xE2\x82\xAC' (U+20AC)", 1, 7});
  ExpectError(LexError("x =\xC2\xA0" "1\n"),
              ExpectedError{Code::kInvalidArgument, "SyntaxError", "invalid non-printable character U+00A0", 1, 4});
  ExpectError(LexError("x = 1\xFF\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "not valid UTF-8", 1, 6});
  ExpectError(LexError(std::string("x = \0", 5)),
              ExpectedError{Code::kInvalidArgument, "SyntaxError", "cannot contain null bytes", 1, 5});
  ExpectError(LexError("x = (1 + 2))\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "unmatched ')'", 1, 12});
  ExpectError(LexError("x = [1,\n 2)\n"),
              ExpectedError{Code::kInvalidArgument, "SyntaxError",
                            "closing parenthesis ')' does not match opening parenthesis '[' on line 1", 2, 3});
  ExpectError(LexError("y = 0\nx = foo(1,\n  2\n"), ExpectedError{Code::kInvalidArgument, "SyntaxError", "'(' was never closed", 2, 8});
  ExpectError(LexError("x = 1 \\ 2\n"),
              ExpectedError{Code::kInvalidArgument, "SyntaxError", "unexpected character after line continuation", 1, 7});
}

TEST(LexerErrorsTest, Indentation) {
  ExpectError(LexError("if x:\n    a\n  b\n"),
              ExpectedError{Code::kInvalidArgument, "IndentationError", "unindent does not match any outer indentation level", 3, 3});
}

TEST(LexerErrorsTest, Limits) {
  const std::string ok = "x = " + std::string(100, '(') + "1" + std::string(100, ')') + "\n";
  EXPECT_TRUE(Lex(File(ok)).ok());
  ExpectError(LexError("x = " + std::string(101, '[') + "\n"),
              ExpectedError{Code::kResourceExhausted, "RecursionError", "too many nested parentheses", 1, 105});
  std::string deep;
  for (int i = 0; i < 101; ++i) deep += std::string(i, ' ') + "if x:\n";
  deep += std::string(101, ' ') + "pass\n";
  ExpectError(LexError(deep),
              ExpectedError{Code::kResourceExhausted, "RecursionError", "too many levels of indentation", 102, 102});
  Status big = LexError(std::string(kMaxSourceBytes + 1, '#'));
  EXPECT_EQ(big.code(), Code::kResourceExhausted);
  EXPECT_THAT(std::string(big.message()), ::testing::HasSubstr("at most 1048576"));
}

}  // namespace
}  // namespace graphd::compiler
