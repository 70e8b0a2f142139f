#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {

void GpuKernelTable::Add(const std::string& op, std::initializer_list<DType> dtypes, KernelFactory factory,
                         Accept accept_node) {
  kernels.Register(op, "GPU", dtypes, factory);
  accept[op] = std::move(accept_node);
}

void RegisterGpuKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  RegisterGpuArrayKernels(table, runtime);
  RegisterGpuElementwiseKernels(table, runtime);
  RegisterGpuMatMulKernels(table, runtime);
  RegisterGpuCudnnKernels(table, runtime);
  RegisterGpuNnKernels(table, runtime);
  RegisterGpuManipKernels(table, runtime);
  RegisterGpuFusedKernels(table, runtime);
  RegisterGpuNhwcKernels(table, runtime);
}

bool GpuSupports(const GpuKernelTable& table, const Node& node) {
  auto device_dtype = [](DType d) { return d != DType::kString && d != DType::kInvalid; };
  for (int o = 0; o < node.num_outputs(); ++o) {
    if (!device_dtype(node.output(o).dtype)) return false;
  }
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    if (node.op().IsRefInput(i) || !device_dtype(InputDType(node, i))) return false;
  }
  if (table.kernels.Find(node, "GPU") == nullptr) return false;
  auto it = table.accept.find(node.op_name());
  return it != table.accept.end() && it->second(node);
}

Status GpuKernel::Compute(KernelContext& ctx) {
  StatusOr<cudaStream_t> stream = runtime_->Stream();
  Status s = stream.ok() ? Run(ctx, *stream) : stream.status();
  return s.ok() ? s : ctx.Error(s);
}

StatusOr<Tensor> GpuKernel::AllocateOutput(KernelContext& ctx, int i, const Shape& shape, cudaStream_t stream) const {
  ASSIGN_OR_RETURN(Tensor t, runtime_->Allocate(ctx.node().output(i).dtype, shape, stream));
  ctx.set_output(i, t);
  return t;
}

EpilogueActivation ReadEpilogueActivation(const Node& node) {
  const std::string act = AttrOr<std::string>(node, "activation", "");
  if (act == "Relu") return {.act = EpilogueAct::kRelu};
  if (act == "Clip") {
    return {.act = EpilogueAct::kClip, .lo = AttrOr<float>(node, "clip_min", 0.f),
            .hi = AttrOr<float>(node, "clip_max", 0.f)};
  }
  return {};
}

bool ToElemType(DType dtype, ElemType* type) {
  switch (dtype) {
    case DType::kFloat32:
      *type = ElemType::kFloat32;
      return true;
    case DType::kInt32:
      *type = ElemType::kInt32;
      return true;
    case DType::kInt64:
      *type = ElemType::kInt64;
      return true;
    case DType::kBool:
      *type = ElemType::kBool;
      return true;
    default:
      return false;
  }
}

DType InputDType(const Node& node, int i) {
  if (i < 0 || i >= static_cast<int>(node.inputs().size())) return DType::kInvalid;
  const OutputRef& in = node.inputs()[i];
  return in.node->output(in.index).dtype;
}

}  // namespace graphd::executor::gpu
