// The program of a FusedElementwise node: a short straight-line list of float32
// elementwise instructions over the node's inputs, written as text in its `program`
// attribute, e.g. "Mul x0 x1; Add t0 #1; Tanh t1; Mul t2 #0.5" for
// tanh(x0 * x1 + 1) * 0.5. Each instruction names a graph op (the unary ops of
// kUnaryOps, the binary ops of kBinaryOps) and its operands: "x<i>" is input i, "t<j>"
// the result of instruction j (j before this one), "#<float>" a constant (printed with
// enough digits to read back exactly; "inf", "-inf", "nan" allowed). The node's value is
// the last instruction's. The elementwise_fusion pass writes programs; the op's
// inference and the CPU kernel read them.
#ifndef GRAPHD_CORE_OPS_ELEMENTWISE_PROGRAM_H_
#define GRAPHD_CORE_OPS_ELEMENTWISE_PROGRAM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphd::ops {

enum class EwOp {
  // unary
  kNeg, kAbs, kSquare, kExp, kLog, kSqrt, kRsqrt, kReciprocal, kTanh, kSigmoid, kRelu, kErf,
  // binary
  kAdd, kSub, kMul, kDiv, kMax, kMin,
};

struct EwOperand {
  enum class Kind { kInput, kTemp, kConst };
  Kind kind = Kind::kInput;
  int index = 0;      // input or instruction number
  float value = 0.f;  // kConst
};

struct EwInstr {
  EwOp op;
  std::vector<EwOperand> operands;  // one or two
};

struct ElementwiseProgram {
  std::vector<EwInstr> instrs;
};

// The graph op names a program may use, and their ops.
bool EwOpFromName(absl::string_view name, EwOp* op);
absl::string_view EwOpName(EwOp op);
int EwOpArity(EwOp op);

// How an input of shape `in` reaches each element of an output of shape `out` (both
// fully known): the same shape; or a "channel" broadcast, where the input, aligned
// right, has out's dims on one contiguous run of axes and 1 elsewhere, so that output
// element i reads input element (i / inner) % channels: [C, 1, 1] or [1, C, 1, 1]
// against [N, C, H, W] (inner H*W), [C] against [N, H, W, C] (inner 1). Empty when the
// input reaches the output some other way (a general broadcast), or not at all.
struct ChannelBroadcast {
  int64_t channels = 1;
  int64_t inner = 1;
};
std::optional<ChannelBroadcast> ChannelBroadcastOf(const std::vector<int64_t>& in, const std::vector<int64_t>& out);

// Parses `text`; InvalidArgument naming what is wrong (an unknown op, a wrong operand
// count, an input >= `num_inputs`, a temporary not yet computed, an empty program).
StatusOr<ElementwiseProgram> ParseElementwiseProgram(absl::string_view text, int num_inputs);
std::string FormatElementwiseProgram(const ElementwiseProgram& program);

}  // namespace graphd::ops

#endif  // GRAPHD_CORE_OPS_ELEMENTWISE_PROGRAM_H_
