// SessionService's function-source RPCs: LoadModule, Call, ToCode, DescribeFunction.
#include "core/graph/dot.h"
#include "core/graph/graph_export.h"
#include "server/malloc_tuning.h"
#include "server/service/graph_codec.h"
#include "server/service/pooled_call.h"
#include "server/service/run_metadata.h"
#include "server/service/session_service.h"
#include "server/service/value_codec.h"

namespace graphd::server {
namespace {

// Signatures, and (when graphs were asked for) each concrete function's picture and
// GraphDef.
void AddConcreteFunctions(const std::string& name, const std::vector<std::string>& signatures,
                          const std::vector<FunctionRef>& functions,
                          const std::vector<executor::PlacementSummary>& placements,
                          v1::DescribeFunctionResponse* resp) {
  for (size_t i = 0; i < signatures.size(); ++i) {
    resp->add_signature(signatures[i]);
    auto* p = resp->add_placement();
    p->set_signature(signatures[i]);
    if (i < placements.size()) {
      for (const auto& [node, device] : placements[i].nodes) (*p->mutable_node_device())[node] = device;
      p->set_copies(placements[i].copies);
    }
    if (i >= functions.size()) continue;
    auto* c = resp->add_concrete();
    c->set_signature(signatures[i]);
    c->set_dot(FunctionToDot(*functions[i], name));
    ExportedFunction exported = ExportFunction(*functions[i]);
    GraphDefToProto(exported.graph_def, c->mutable_graph_def());
    for (const std::string& in : exported.inputs) c->add_input_names(in);
    for (const std::string& out : exported.outputs) c->add_output_names(out);
  }
}

}  // namespace

grpc::ServerUnaryReactor* SessionServiceImpl::LoadModule(grpc::CallbackServerContext* ctx,
                                                         const v1::LoadModuleRequest* req,
                                                         v1::LoadModuleResponse* resp) {
  return PooledCall::Start(ctx, env_, "LoadModule", req->session_handle(), req, resp, [=, this](PooledCall& call) -> Status {
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    if (const int64_t max = call.tenant_config().max_source_bytes();
        max > 0 && static_cast<int64_t>(req->source().size()) > max) {
      return errors::ResourceExhausted(absl::StrCat("tenant '", call.tenant(), "' sent ", req->source().size(),
                                                    " bytes of source, its max_source_bytes quota is ", max));
    }
    std::string filename = req->filename().empty() ? "<module>" : req->filename();
    ASSIGN_OR_RETURN(SourceModules::Loaded loaded,
                     session->source_modules().Load(req->source(), filename, session->variables(), call.token()));
    resp->set_module_id(loaded.module_id);
    for (const std::string& f : loaded.functions) resp->add_function(f);
    resp->set_stdout(loaded.stdout_text);
    resp->set_stderr(loaded.stderr_text);
    ReleaseFreeMemory();  // the parser's and tracer's temporaries
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* SessionServiceImpl::Call(grpc::CallbackServerContext* ctx, const v1::CallRequest* req,
                                                   v1::CallResponse* resp) {
  return PooledCall::Start(ctx, env_, "Call", req->session_handle(), req, resp, [=, this](PooledCall& call) -> Status {
    if (req->options().timeout_in_ms() > 0) {
      call.token().TightenDeadline(CancellationToken::Clock::now() +
                                   std::chrono::milliseconds(req->options().timeout_in_ms()));
    }
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    std::vector<compiler::tracer::Value> args;
    for (int i = 0; i < req->args_size(); ++i) {
      ASSIGN_OR_RETURN(auto v, ValueFromProto(req->args(i), "argument " + std::to_string(i)));
      args.push_back(std::move(v));
    }
    std::vector<std::pair<std::string, compiler::tracer::Value>> kwargs;
    for (const v1::NamedValue& kw : req->kwargs()) {
      ASSIGN_OR_RETURN(auto v, ValueFromProto(kw.value(), "argument '" + kw.name() + "'"));
      kwargs.emplace_back(kw.name(), std::move(v));
    }
    std::vector<compiler::tracer::Value> concrete;
    for (const v1::TensorSpec& spec : req->concrete_signature()) {
      v1::PyValue as_value;
      *as_value.mutable_tensor_spec() = spec;
      ASSIGN_OR_RETURN(auto v, ValueFromProto(as_value, "concrete signature"));
      concrete.push_back(std::move(v));
    }
    executor::RunTrace steps;
    executor::RunTrace* trace = TraceFor(req->options(), steps);
    ASSIGN_OR_RETURN(CallResult result,
                     session->source_modules().Call(req->module_id(), req->function(), std::move(args),
                                                    std::move(kwargs), session->variables(), call.token(), concrete,
                                                    req->trace_only(), trace));
    RETURN_IF_ERROR(ValueToProto(result.output, resp->mutable_output()));
    resp->set_stdout(result.stdout_text);
    resp->set_stderr(result.stderr_text);
    resp->set_tracing_count(result.tracing_count);
    resp->set_graph_dot(result.graph_dot);
    FillRunMetadata(call, result.compile_us, result.execute_us, trace,
                    resp->mutable_metadata());
    return absl::OkStatus();
  }, !req->trace_only() && SmallRequest(*req));
}

grpc::ServerUnaryReactor* SessionServiceImpl::ToCode(grpc::CallbackServerContext* ctx, const v1::ToCodeRequest* req,
                                                     v1::ToCodeResponse* resp) {
  return PooledCall::Start(ctx, env_, "ToCode", req->session_handle(), req, resp, [=, this](PooledCall& call) -> Status {
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    ASSIGN_OR_RETURN(std::string code, session->source_modules().ToCode(req->module_id(), req->function()));
    resp->set_code(code);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* SessionServiceImpl::DescribeFunction(grpc::CallbackServerContext* ctx,
                                                               const v1::DescribeFunctionRequest* req,
                                                               v1::DescribeFunctionResponse* resp) {
  return PooledCall::Start(ctx, env_, "DescribeFunction", req->session_handle(), req, resp, [=, this](PooledCall& call) -> Status {
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    auto source = session->source_modules().Describe(req->module_id(), req->function(), req->include_graphs());
    if (!source.ok() && req->module_id() == 0 && absl::IsNotFound(source.status()) &&
        session->graph_functions().Contains(req->function())) {
      ASSIGN_OR_RETURN(auto d, session->graph_functions().Describe(req->function(), req->include_graphs()));
      resp->set_kind("graph");
      resp->set_tracing_count(static_cast<int64_t>(d.signatures.size()));
      AddConcreteFunctions(req->function(), d.signatures, d.functions, d.placements, resp);
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(source.status());
    resp->set_kind("source");
    resp->set_tracing_count(source->tracing_count);
    AddConcreteFunctions(req->function(), source->signatures, source->functions, source->placements, resp);
    return absl::OkStatus();
  });
}

}  // namespace graphd::server
