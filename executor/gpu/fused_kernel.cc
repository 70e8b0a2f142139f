// FusedElementwise on the GPU (the elementwise_fusion pass's op): the node's program,
// parsed once, runs in one CUDA kernel (fused.cu). Programs of up to kMaxFusedInstrs
// instructions over up to kMaxFusedInputs inputs; longer ones stay on the CPU.
#include "absl/strings/str_cat.h"
#include "core/ops/elementwise_program.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

FusedOp ToFusedOp(ops::EwOp op) {
  switch (op) {
    case ops::EwOp::kNeg:
      return FusedOp::kNeg;
    case ops::EwOp::kAbs:
      return FusedOp::kAbs;
    case ops::EwOp::kSquare:
      return FusedOp::kSquare;
    case ops::EwOp::kExp:
      return FusedOp::kExp;
    case ops::EwOp::kLog:
      return FusedOp::kLog;
    case ops::EwOp::kSqrt:
      return FusedOp::kSqrt;
    case ops::EwOp::kRsqrt:
      return FusedOp::kRsqrt;
    case ops::EwOp::kReciprocal:
      return FusedOp::kReciprocal;
    case ops::EwOp::kTanh:
      return FusedOp::kTanh;
    case ops::EwOp::kSigmoid:
      return FusedOp::kSigmoid;
    case ops::EwOp::kRelu:
      return FusedOp::kRelu;
    case ops::EwOp::kErf:
      return FusedOp::kErf;
    case ops::EwOp::kAdd:
      return FusedOp::kAdd;
    case ops::EwOp::kSub:
      return FusedOp::kSub;
    case ops::EwOp::kMul:
      return FusedOp::kMul;
    case ops::EwOp::kDiv:
      return FusedOp::kDiv;
    case ops::EwOp::kMax:
      return FusedOp::kMax;
    case ops::EwOp::kMin:
      return FusedOp::kMin;
  }
  return FusedOp::kNeg;
}

// The node's program in kernel form (inputs not yet bound); false when it does not fit.
bool Compile(const Node& node, FusedProgram* out) {
  const int num_inputs = static_cast<int>(node.inputs().size());
  if (num_inputs > kMaxFusedInputs) return false;
  auto program = ops::ParseElementwiseProgram(AttrOr<std::string>(node, "program", ""), num_inputs);
  if (!program.ok() || program->instrs.empty() || program->instrs.size() > kMaxFusedInstrs) return false;
  out->num_instrs = static_cast<int>(program->instrs.size());
  out->num_inputs = num_inputs;
  for (int k = 0; k < out->num_instrs; ++k) {
    const ops::EwInstr& in = program->instrs[k];
    if (in.operands.empty() || in.operands.size() > 2) return false;
    FusedInstr& f = out->instrs[k];
    f.op = ToFusedOp(in.op);
    f.arity = static_cast<int>(in.operands.size());
    for (int o = 0; o < f.arity; ++o) {
      const ops::EwOperand& operand = in.operands[o];
      f.operands[o].kind = operand.kind == ops::EwOperand::Kind::kInput  ? 0
                           : operand.kind == ops::EwOperand::Kind::kTemp ? 1
                                                                         : 2;
      f.operands[o].index = operand.index;
      f.operands[o].value = operand.value;
    }
  }
  return true;
}

class FusedKernel : public GpuKernel {
 public:
  FusedKernel(std::shared_ptr<GpuRuntime> runtime, const FusedProgram& program)
      : GpuKernel(std::move(runtime)), program_(program) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    FusedProgram p = program_;
    const Shape* shape = nullptr;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      p.inputs[i] = x.data<float>();
      p.scalar[i] = x.shape().rank() == 0;
      if (p.scalar[i]) continue;
      if (shape == nullptr) {
        shape = &x.shape();
      } else if (x.shape() != *shape) {
        return errors::InvalidArgument(absl::StrCat("input ", i, " has shape ", x.shape().ToString(),
                                                    " but an earlier input has ", shape->ToString()));
      }
    }
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, shape != nullptr ? *shape : Shape(), stream));
    return CudaCall(LaunchFused(p, y.data<float>(), y.num_elements(), stream), "FusedElementwise kernel launch");
  }

 private:
  const FusedProgram program_;
};

}  // namespace

void RegisterGpuFusedKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  table.Add(
      "FusedElementwise", {DType::kFloat32},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        auto program = std::make_unique<FusedProgram>();
        if (!Compile(node, program.get())) return errors::Unimplemented("program does not fit the GPU kernel");
        return std::unique_ptr<OpKernel>(new FusedKernel(runtime, *program));
      },
      [](const Node& node) {
        for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
          if (InputDType(node, i) != DType::kFloat32) return false;
        }
        auto program = std::make_unique<FusedProgram>();
        return Compile(node, program.get());
      });
}

}  // namespace graphd::executor::gpu
