// PrintV2 and Assert on the CPU: tensors formatted as tf.print formats them.
#include <cmath>
#include <cstdio>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

// Elements per dimension shown before eliding with "..." (tf.print's summarize=3).
constexpr int64_t kSummarize = 3;

std::string Scalar(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kString: return t.data<std::string>()[i];
    case DType::kBool: return t.data<bool>()[i] ? "True" : "False";
    case DType::kFloat32:
    case DType::kFloat64: {
      double v = t.dtype() == DType::kFloat32 ? t.data<float>()[i] : t.data<double>()[i];
      if (std::isnan(v)) return "nan";
      if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.*g", t.dtype() == DType::kFloat32 ? 7 : 15, v);
      return buf;
    }
    default: {
      std::string out;
      Status s = DispatchNumeric(t.dtype(), [&]<typename T>() -> Status {
        out = std::to_string(static_cast<int64_t>(t.data<T>()[i]));
        return absl::OkStatus();
      });
      return s.ok() ? out : "?";
    }
  }
}

void Format(const Tensor& t, int dim, int64_t offset, int64_t stride, std::string& out) {
  const Shape& s = t.shape();
  if (dim == s.rank()) {
    std::string v = Scalar(t, offset);
    out += t.dtype() == DType::kString && s.rank() > 0 ? "\"" + v + "\"" : v;
    return;
  }
  int64_t n = s.dim(dim), inner = stride / std::max<int64_t>(n, 1);
  out += "[";
  for (int64_t i = 0; i < n; ++i) {
    if (n > 2 * kSummarize && i == kSummarize) {
      out += dim + 1 == s.rank() ? " ..." : "\n" + std::string(dim + 1, ' ') + "...";
      i = n - kSummarize - 1;
      continue;
    }
    if (i > 0) out += dim + 1 == s.rank() ? " " : "\n" + std::string(dim + 1, ' ');
    Format(t, dim + 1, offset + i * inner, inner, out);
  }
  out += "]";
}

std::string FormatTensor(const Tensor& t) {
  std::string out;
  Format(t, 0, 0, t.num_elements(), out);
  return out;
}

Status PrintFn(KernelContext& ctx) {
  const AttrMap& attrs = ctx.node().attrs();
  const std::string& tmpl = std::get<std::string>(attrs.find("template")->second);
  auto stream_attr = attrs.find("output_stream");
  auto end_attr = attrs.find("end");
  std::string text;
  int next = 0;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '{' && i + 1 < tmpl.size() && tmpl[i + 1] == '}') {
      text += FormatTensor(ctx.input(next++));
      ++i;
    } else {
      text += tmpl[i];
    }
  }
  text += end_attr == attrs.end() ? "\n" : std::get<std::string>(end_attr->second);
  if (ctx.output() != nullptr) {
    bool to_stdout = stream_attr != attrs.end() && std::get<std::string>(stream_attr->second) == "stdout";
    ctx.output()->Write(to_stdout ? OutputSink::Stream::kStdout : OutputSink::Stream::kStderr, text);
  }
  return absl::OkStatus();
}

Status AssertFn(KernelContext& ctx) {
  const Tensor& cond = ctx.input(0);
  if (cond.num_elements() == 1 && cond.data<bool>()[0]) return absl::OkStatus();
  auto message = ctx.node().attrs().find("message");
  std::string text = message == ctx.node().attrs().end() ? "" : std::get<std::string>(message->second);
  for (int i = 1; i < ctx.num_inputs(); ++i) text += (text.empty() ? "" : " ") + FormatTensor(ctx.input(i));
  return errors::WithNode(errors::InvalidArgument(text.empty() ? "assertion failed" : text), ctx.node().name());
}

}  // namespace

void RegisterLoggingKernels(KernelRegistry& r) {
  // Both read any dtype from host memory without computing on it.
  r.Register("PrintV2", kCpu, DType::kInvalid, FnKernel::Factory(PrintFn));
  r.Register("Assert", kCpu, DType::kInvalid, FnKernel::Factory(AssertFn));
}

}  // namespace graphd::executor::cpu
