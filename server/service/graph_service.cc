// SessionService's traced-graph RPCs: LoadGraph, CallGraph.
#include "server/malloc_tuning.h"
#include "server/service/graph_codec.h"
#include "server/service/model_upload.h"
#include "server/service/pooled_call.h"
#include "server/service/run_metadata.h"
#include "server/service/session_service.h"
#include "server/service/tensor_codec.h"

namespace graphd::server {
namespace {

void ValueInfoToProto(const compiler::onnx_import::ValueInfo& v, v1::GraphValueInfo* out) {
  out->set_name(v.name);
  out->mutable_spec()->set_dtype(DTypeToProto(v.dtype));
  PartialShapeToProto(v.shape, out->mutable_spec()->mutable_shape());
  out->set_sequence(v.sequence);
  out->set_optional(v.optional);
}

StatusOr<GraphValue> ValueFromProto(const v1::GraphValue& proto, const std::string& what, int depth = 0) {
  GraphValue v;
  switch (proto.kind_case()) {
    case v1::GraphValue::kTensor: {
      ASSIGN_OR_RETURN(v.tensor, TensorFromProto(proto.tensor(), what));
      return v;
    }
    case v1::GraphValue::kSequence: {
      v.kind = GraphValue::Kind::kSequence;
      if (proto.sequence().dtype() != v1::DT_INVALID) {
        ASSIGN_OR_RETURN(v.element_dtype, DTypeFromProto(proto.sequence().dtype()));
      }
      for (int k = 0; k < proto.sequence().tensors_size(); ++k) {
        ASSIGN_OR_RETURN(Tensor t, TensorFromProto(proto.sequence().tensors(k), what + "[" + std::to_string(k) + "]"));
        v.items.push_back(GraphValue::FromTensor(std::move(t)));
      }
      return v;
    }
    case v1::GraphValue::kOptional: {
      v.kind = GraphValue::Kind::kOptional;
      if (proto.optional().has_value()) {
        if (depth > 0) return errors::InvalidArgument(what + ": an optional cannot hold an optional");
        ASSIGN_OR_RETURN(GraphValue inner, ValueFromProto(proto.optional().value(), what, depth + 1));
        v.items.push_back(std::move(inner));
      }
      return v;
    }
    default:
      return errors::InvalidArgument(what + " is empty: set tensor, sequence or optional");
  }
}

void ValueToProto(const GraphValue& v, v1::GraphValue* out) {
  switch (v.kind) {
    case GraphValue::Kind::kTensor:
      TensorToProto(v.tensor, out->mutable_tensor());
      return;
    case GraphValue::Kind::kSequence: {
      v1::TensorSequence* seq = out->mutable_sequence();
      seq->set_dtype(DTypeToProto(v.element_dtype));
      for (const GraphValue& item : v.items) TensorToProto(item.tensor, seq->add_tensors());
      return;
    }
    case GraphValue::Kind::kOptional: {
      v1::OptionalValue* opt = out->mutable_optional();
      if (!v.items.empty()) ValueToProto(v.items[0], opt->mutable_value());
      return;
    }
  }
}

void LoadedToProto(const LoadedGraph& loaded, PooledCall::Clock::time_point start, v1::LoadGraphResponse* resp) {
  resp->set_import_us(
      std::chrono::duration_cast<std::chrono::microseconds>(PooledCall::Clock::now() - start).count());
  resp->set_name(loaded.name);
  for (const auto& in : loaded.inputs) ValueInfoToProto(in, resp->add_inputs());
  for (const auto& out : loaded.outputs) ValueInfoToProto(out, resp->add_outputs());
  resp->set_opset(loaded.opset);
  ReleaseFreeMemory();  // the import's temporaries
}

}  // namespace

grpc::ServerUnaryReactor* SessionServiceImpl::LoadGraph(grpc::CallbackServerContext* ctx,
                                                        const v1::LoadGraphRequest* req,
                                                        v1::LoadGraphResponse* resp) {
  return PooledCall::Start(ctx, env_, "LoadGraph", req->session_handle(), req, resp, [=, this](PooledCall& call) -> Status {
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    const auto start = PooledCall::Clock::now();
    LoadedGraph loaded;
    if (req->graph_case() == v1::LoadGraphRequest::kGraphDef) {
      ASSIGN_OR_RETURN(GraphDef def, GraphDefFromProto(req->graph_def()));
      std::vector<std::string> inputs(req->input_names().begin(), req->input_names().end());
      std::vector<std::string> outputs(req->output_names().begin(), req->output_names().end());
      ASSIGN_OR_RETURN(loaded, session->graph_functions().LoadGraphDef(req->name(), def, inputs, outputs,
                                                                                req->reduce_retracing()));
    } else if (req->graph_case() == v1::LoadGraphRequest::kOnnxModel) {
      if (req->input_names_size() || req->output_names_size()) {
        return errors::InvalidArgument("input_names and output_names apply to graph_def only (an ONNX model "
                                       "declares its inputs and outputs)");
      }
      ASSIGN_OR_RETURN(loaded, session->graph_functions().LoadOnnx(req->name(), {.bytes = req->onnx_model()},
                                                                            req->reduce_retracing(), &call.token()));
    } else {
      return errors::InvalidArgument("LoadGraph needs onnx_model or graph_def");
    }
    LoadedToProto(loaded, start, resp);
    return absl::OkStatus();
  });
}

grpc::ServerReadReactor<v1::LoadGraphChunk>* SessionServiceImpl::LoadGraphStream(grpc::CallbackServerContext* ctx,
                                                                                 v1::LoadGraphResponse* resp) {
  auto check = [this](PooledCall& call, const v1::LoadGraphRequest& header) -> Status {
    return sessions_.Get(header.session_handle(), call.tenant()).status();
  };
  auto import = [this, resp](PooledCall& call, ModelUpload& upload) -> Status {
    const v1::LoadGraphRequest& header = upload.header();
    ASSIGN_OR_RETURN(auto session, SessionFor(call, header.session_handle()));
    const auto start = PooledCall::Clock::now();
    ASSIGN_OR_RETURN(LoadedGraph loaded,
                     session->graph_functions().LoadOnnx(header.name(),
                                                         {.bytes = upload.bytes(),
                                                          .fingerprint = upload.Fingerprint(),
                                                          .parsed = [&upload] { upload.Release(); }},
                                                         header.reduce_retracing(), &call.token()));
    upload.Release();  // the parsed model was shared: the bytes were not parsed here
    LoadedToProto(loaded, start, resp);
    resp->set_import_us(resp->import_us() + upload.hash_us());  // hashed while the bytes arrived
    return absl::OkStatus();
  };
  return ModelUpload::Start(ctx, env_, "LoadGraphStream", resp, std::move(check), std::move(import));
}

grpc::ServerUnaryReactor* SessionServiceImpl::CallGraph(grpc::CallbackServerContext* ctx,
                                                        const v1::CallGraphRequest* req,
                                                        v1::CallGraphResponse* resp) {
  return PooledCall::Start(ctx, env_, "CallGraph", req->session_handle(), req, resp, [=, this](PooledCall& call) -> Status {
    if (req->options().timeout_in_ms() > 0) {
      call.token().TightenDeadline(CancellationToken::Clock::now() +
                                   std::chrono::milliseconds(req->options().timeout_in_ms()));
    }
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    if (req->inputs_size() > 0 && req->values_size() > 0) {
      return errors::InvalidArgument("CallGraph takes inputs or values, not both");
    }
    std::vector<GraphValue> inputs;
    for (int i = 0; i < req->inputs_size(); ++i) {
      ASSIGN_OR_RETURN(Tensor t, TensorFromProto(req->inputs(i), "input " + std::to_string(i)));
      inputs.push_back(GraphValue::FromTensor(std::move(t)));
    }
    for (int i = 0; i < req->values_size(); ++i) {
      ASSIGN_OR_RETURN(GraphValue v, ValueFromProto(req->values(i), "input " + std::to_string(i)));
      inputs.push_back(std::move(v));
    }
    executor::RunTrace steps;
    executor::RunTrace* trace = TraceFor(req->options(), steps);
    ASSIGN_OR_RETURN(GraphCallResult result,
                     session->graph_functions().Call(req->name(), std::move(inputs), session->variables(), call.token(),
                                                     trace));
    bool all_tensors = true;
    for (const GraphValue& v : result.outputs) all_tensors = all_tensors && v.kind == GraphValue::Kind::kTensor;
    for (const GraphValue& v : result.outputs) {
      if (all_tensors) {
        TensorToProto(v.tensor, resp->add_outputs());
      } else {
        ValueToProto(v, resp->add_values());
      }
    }
    FillRunMetadata(call, result.compile_us, result.execute_us, trace,
                    resp->mutable_metadata());
    // The build's and planner's temporaries, or (a function another session built)
    // what loading the graph left free.
    if (result.compile_us > 0 || result.first_use) ReleaseFreeMemory();
    return absl::OkStatus();
  }, SmallRequest(*req));
}

}  // namespace graphd::server
