#include "core/ops/elementwise_program.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace graphd::ops {
namespace {

constexpr std::pair<EwOp, absl::string_view> kNames[] = {
    {EwOp::kNeg, "Neg"},         {EwOp::kAbs, "Abs"},         {EwOp::kSquare, "Square"},
    {EwOp::kExp, "Exp"},         {EwOp::kLog, "Log"},         {EwOp::kSqrt, "Sqrt"},
    {EwOp::kRsqrt, "Rsqrt"},     {EwOp::kReciprocal, "Reciprocal"},
    {EwOp::kTanh, "Tanh"},       {EwOp::kSigmoid, "Sigmoid"}, {EwOp::kRelu, "Relu"},
    {EwOp::kErf, "Erf"},
    {EwOp::kAdd, "Add"},         {EwOp::kSub, "Sub"},         {EwOp::kMul, "Mul"},
    {EwOp::kDiv, "Div"},         {EwOp::kMax, "Maximum"},     {EwOp::kMin, "Minimum"},
};

StatusOr<EwOperand> ParseOperand(absl::string_view s, int num_inputs, int instr) {
  EwOperand o;
  int64_t index = 0;
  if (absl::ConsumePrefix(&s, "#")) {
    o.kind = EwOperand::Kind::kConst;
    if (!absl::SimpleAtof(s, &o.value)) return errors::InvalidArgument(absl::StrCat("bad constant '#", s, "'"));
    return o;
  }
  const bool input = absl::ConsumePrefix(&s, "x");
  if (!input && !absl::ConsumePrefix(&s, "t")) {
    return errors::InvalidArgument(absl::StrCat("bad operand '", s, "' (x<i>, t<j> or #<float>)"));
  }
  if (!absl::SimpleAtoi(s, &index) || index < 0 || index >= (input ? num_inputs : instr)) {
    return errors::InvalidArgument(absl::StrCat("operand '", input ? "x" : "t", s, "' of instruction ", instr,
                                                input ? " is not an input" : " is not an earlier result"));
  }
  o.kind = input ? EwOperand::Kind::kInput : EwOperand::Kind::kTemp;
  o.index = static_cast<int>(index);
  return o;
}

}  // namespace

bool EwOpFromName(absl::string_view name, EwOp* op) {
  for (const auto& [o, n] : kNames) {
    if (n == name) {
      *op = o;
      return true;
    }
  }
  return false;
}

absl::string_view EwOpName(EwOp op) {
  for (const auto& [o, n] : kNames) {
    if (o == op) return n;
  }
  return "?";
}

int EwOpArity(EwOp op) { return op >= EwOp::kAdd ? 2 : 1; }

StatusOr<ElementwiseProgram> ParseElementwiseProgram(absl::string_view text, int num_inputs) {
  ElementwiseProgram p;
  for (absl::string_view line : absl::StrSplit(text, ';', absl::SkipWhitespace())) {
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
    const int instr = static_cast<int>(p.instrs.size());
    EwInstr in;
    if (words.empty() || !EwOpFromName(words[0], &in.op)) {
      return errors::InvalidArgument(absl::StrCat("instruction ", instr, " '", absl::StripAsciiWhitespace(line),
                                                  "': unknown op"));
    }
    if (static_cast<int>(words.size()) != 1 + EwOpArity(in.op)) {
      return errors::InvalidArgument(absl::StrCat("instruction ", instr, " '", absl::StripAsciiWhitespace(line),
                                                  "': ", words[0], " takes ", EwOpArity(in.op), " operand(s)"));
    }
    for (size_t i = 1; i < words.size(); ++i) {
      ASSIGN_OR_RETURN(EwOperand o, ParseOperand(words[i], num_inputs, instr));
      in.operands.push_back(o);
    }
    p.instrs.push_back(std::move(in));
  }
  if (p.instrs.empty()) return errors::InvalidArgument("empty program");
  return p;
}

std::string FormatElementwiseProgram(const ElementwiseProgram& program) {
  std::string out;
  for (const EwInstr& in : program.instrs) {
    if (!out.empty()) out += "; ";
    absl::StrAppend(&out, EwOpName(in.op));
    for (const EwOperand& o : in.operands) {
      switch (o.kind) {
        case EwOperand::Kind::kInput: absl::StrAppend(&out, " x", o.index); break;
        case EwOperand::Kind::kTemp: absl::StrAppend(&out, " t", o.index); break;
        case EwOperand::Kind::kConst: absl::StrAppend(&out, " #", absl::StrFormat("%.9g", o.value)); break;
      }
    }
  }
  return out;
}

std::optional<ChannelBroadcast> ChannelBroadcastOf(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  if (in.size() > out.size()) return std::nullopt;
  const size_t lead = out.size() - in.size();
  int lo = -1, hi = -1;  // the axes (of out) where the input has out's dim and it is not 1
  for (size_t j = 0; j < out.size(); ++j) {
    const int64_t d = j < lead ? 1 : in[j - lead];
    if (d == out[j]) {
      if (d != 1) {
        if (lo < 0) lo = static_cast<int>(j);
        hi = static_cast<int>(j);
      }
    } else if (d != 1) {
      return std::nullopt;
    }
  }
  ChannelBroadcast b;
  for (int j = lo; lo >= 0 && j <= hi; ++j) {
    const int64_t d = static_cast<size_t>(j) < lead ? 1 : in[j - lead];
    if (d != out[j]) return std::nullopt;  // a 1 inside the run: not one contiguous block
    b.channels *= d;
  }
  for (size_t j = hi < 0 ? 0 : hi + 1; j < out.size(); ++j) b.inner *= out[j];
  if (lo < 0) b.inner = 1;  // every dim 1: one value for all
  return b;
}

}  // namespace graphd::ops
