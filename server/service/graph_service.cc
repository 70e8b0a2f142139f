// SessionService's traced-graph RPCs: LoadGraph, CallGraph.
#include "server/service/pooled_call.h"
#include "server/service/session_service.h"
#include "server/service/tensor_codec.h"

namespace graphd::server {
namespace {

void ValueInfoToProto(const compiler::onnx_import::ValueInfo& v, v1::GraphValueInfo* out) {
  out->set_name(v.name);
  out->mutable_spec()->set_dtype(DTypeToProto(v.dtype));
  PartialShapeToProto(v.shape, out->mutable_spec()->mutable_shape());
}

}  // namespace

grpc::ServerUnaryReactor* SessionServiceImpl::LoadGraph(grpc::CallbackServerContext* ctx,
                                                        const v1::LoadGraphRequest* req,
                                                        v1::LoadGraphResponse* resp) {
  return PooledCall::Start(ctx, env_, "LoadGraph", req->session_handle(), [=, this](PooledCall&) -> Status {
    ASSIGN_OR_RETURN(auto session, sessions_.Get(req->session_handle()));
    if (req->graph_case() == v1::LoadGraphRequest::kGraphDef) {
      return errors::Unimplemented("LoadGraph with a GraphDef is not implemented yet; use onnx_model");
    }
    if (req->graph_case() != v1::LoadGraphRequest::kOnnxModel) {
      return errors::InvalidArgument("LoadGraph needs onnx_model or graph_def");
    }
    ASSIGN_OR_RETURN(LoadedGraph loaded, session->graph_functions().LoadOnnx(req->name(), req->onnx_model()));
    resp->set_name(loaded.name);
    for (const auto& in : loaded.inputs) ValueInfoToProto(in, resp->add_inputs());
    for (const auto& out : loaded.outputs) ValueInfoToProto(out, resp->add_outputs());
    resp->set_opset(loaded.opset);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* SessionServiceImpl::CallGraph(grpc::CallbackServerContext* ctx,
                                                        const v1::CallGraphRequest* req,
                                                        v1::CallGraphResponse* resp) {
  return PooledCall::Start(ctx, env_, "CallGraph", req->session_handle(), [=, this](PooledCall& call) -> Status {
    if (req->options().timeout_in_ms() > 0) {
      call.token().TightenDeadline(CancellationToken::Clock::now() +
                                   std::chrono::milliseconds(req->options().timeout_in_ms()));
    }
    ASSIGN_OR_RETURN(auto session, sessions_.Get(req->session_handle()));
    std::vector<Tensor> inputs;
    for (int i = 0; i < req->inputs_size(); ++i) {
      ASSIGN_OR_RETURN(Tensor t, TensorFromProto(req->inputs(i), "input " + std::to_string(i)));
      inputs.push_back(std::move(t));
    }
    ASSIGN_OR_RETURN(GraphCallResult result, session->graph_functions().Call(req->name(), std::move(inputs),
                                                                             session->variables(), call.token()));
    for (const Tensor& t : result.outputs) TensorToProto(t, resp->add_outputs());
    v1::RunMetadata* m = resp->mutable_metadata();
    m->set_queue_us(call.queue_us());
    m->set_compile_us(result.compile_us);
    m->set_execute_us(result.execute_us);
    m->set_total_us(call.elapsed_us());
    return absl::OkStatus();
  });
}

}  // namespace graphd::server
