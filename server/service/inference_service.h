// The KServe v2 gRPC service (inference.GRPCInferenceService) over the served models
// (server/models/model_manager.h): health, metadata, ModelInfer, statistics and the
// repository extension. Handlers only translate (infer_codec.h for tensors); ModelInfer
// runs on the worker pool like every other call (pooled_call.h), with the gRPC deadline
// as its cancellation token.
#ifndef GRAPHD_SERVER_SERVICE_INFERENCE_SERVICE_H_
#define GRAPHD_SERVER_SERVICE_INFERENCE_SERVICE_H_

#include <functional>

#include "graphd/kserve/grpc_service.grpc.pb.h"
#include "server/models/model_manager.h"
#include "server/service/pooled_call.h"

namespace graphd::server {

class InferenceServiceImpl final : public inference::GRPCInferenceService::CallbackService {
 public:
  // `models` and what `env` refers to must outlive the service. `ready`: whether the
  // server takes work (false while draining).
  InferenceServiceImpl(models::ModelManager& models, PooledCall::Env env, std::function<bool()> ready)
      : models_(models), env_(env), ready_(std::move(ready)) {}

  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* ctx, const inference::ServerLiveRequest* req,
                                       inference::ServerLiveResponse* resp) override;
  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* ctx, const inference::ServerReadyRequest* req,
                                        inference::ServerReadyResponse* resp) override;
  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* ctx, const inference::ModelReadyRequest* req,
                                       inference::ModelReadyResponse* resp) override;
  grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* ctx,
                                           const inference::ServerMetadataRequest* req,
                                           inference::ServerMetadataResponse* resp) override;
  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* ctx,
                                          const inference::ModelMetadataRequest* req,
                                          inference::ModelMetadataResponse* resp) override;
  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* ctx, const inference::ModelInferRequest* req,
                                       inference::ModelInferResponse* resp) override;
  grpc::ServerUnaryReactor* ModelStatistics(grpc::CallbackServerContext* ctx,
                                            const inference::ModelStatisticsRequest* req,
                                            inference::ModelStatisticsResponse* resp) override;
  grpc::ServerUnaryReactor* RepositoryIndex(grpc::CallbackServerContext* ctx,
                                            const inference::RepositoryIndexRequest* req,
                                            inference::RepositoryIndexResponse* resp) override;
  grpc::ServerUnaryReactor* RepositoryModelLoad(grpc::CallbackServerContext* ctx,
                                                const inference::RepositoryModelLoadRequest* req,
                                                inference::RepositoryModelLoadResponse* resp) override;
  grpc::ServerUnaryReactor* RepositoryModelUnload(grpc::CallbackServerContext* ctx,
                                                  const inference::RepositoryModelUnloadRequest* req,
                                                  inference::RepositoryModelUnloadResponse* resp) override;

 private:
  models::ModelManager& models_;
  const PooledCall::Env env_;
  const std::function<bool()> ready_;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_INFERENCE_SERVICE_H_
