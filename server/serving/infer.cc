#include "server/serving/infer.h"

#include <chrono>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/quick_run.h"

namespace graphd::server::serving {
namespace {

using Clock = std::chrono::steady_clock;

std::string Names(const std::vector<models::TensorInfo>& tensors) {
  std::vector<std::string> names;
  for (const auto& t : tensors) names.push_back(t.name);
  return absl::StrJoin(names, ", ");
}

// The model's inputs, in its order, from the request's (by name).
StatusOr<std::vector<Tensor>> OrderInputs(const models::ServedModel& model, std::vector<NamedTensor> given) {
  std::vector<Tensor> out(model.inputs().size());
  std::vector<bool> have(out.size(), false);
  for (NamedTensor& g : given) {
    size_t i = 0;
    while (i < model.inputs().size() && model.inputs()[i].name != g.name) ++i;
    if (i == model.inputs().size()) {
      return errors::InvalidArgument(absl::StrCat("model '", model.name(), "' has no input '", g.name,
                                                  "' (its inputs: ", Names(model.inputs()), ")"));
    }
    if (have[i]) return errors::InvalidArgument(absl::StrCat("input '", g.name, "' is given twice"));
    out[i] = std::move(g.tensor);
    have[i] = true;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!have[i]) {
      return errors::InvalidArgument(
          absl::StrCat("model '", model.name(), "' needs input '", model.inputs()[i].name, "'"));
    }
  }
  return out;
}

// The outputs a request asks for (indices into model.outputs(); all when it names none).
StatusOr<std::vector<int>> WantedOutputs(const models::ServedModel& model, const std::vector<std::string>& names) {
  std::vector<int> wanted;
  for (const std::string& name : names) {
    size_t i = 0;
    while (i < model.outputs().size() && model.outputs()[i].name != name) ++i;
    if (i == model.outputs().size()) {
      return errors::InvalidArgument(absl::StrCat("model '", model.name(), "' has no output '", name,
                                                  "' (its outputs: ", Names(model.outputs()), ")"));
    }
    if (absl::c_linear_search(wanted, static_cast<int>(i))) {
      return errors::InvalidArgument(absl::StrCat("output '", name, "' is requested twice"));
    }
    wanted.push_back(static_cast<int>(i));
  }
  if (wanted.empty()) {
    for (size_t i = 0; i < model.outputs().size(); ++i) wanted.push_back(static_cast<int>(i));
  }
  return wanted;
}

uint64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Records a finished request in the model's statistics.
void Record(const models::ServedModel& model, const Status& status, Clock::time_point start, uint64_t rows) {
  const uint64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  models::ModelStats& stats = model.stats();
  (status.ok() ? stats.success : stats.fail).Add(ns);
  if (status.ok()) stats.inference_count.fetch_add(rows, std::memory_order_relaxed);
  stats.last_inference_ms.store(NowMs(), std::memory_order_relaxed);
}

std::string CodeName(const Status& s) { return absl::StatusCodeToString(s.code()); }

}  // namespace

void Infer(const models::ModelManager& models, InferRequest request, const CancellationToken* token, InferDone done) {
  const ServingMetrics* metrics = models.metrics();
  auto found = models.Find(request.model, request.version);
  if (!found.ok()) {
    // Labelled "": a client's made-up model names must not grow the metrics without bound.
    if (metrics) metrics->requests.With({"", "", CodeName(found.status())}).Add();
    return done(found.status());
  }
  std::shared_ptr<const models::ServedModel> model = *std::move(found);
  const auto start = Clock::now();
  if (metrics != nullptr && model->inflight_series() != nullptr) {
    model->inflight_series()->Add(1);
    done = [metrics, model, start, done = std::move(done)](StatusOr<InferResponse> r) {
      model->inflight_series()->Add(-1);
      if (IsNotQuick(r.status())) return done(std::move(r));  // not run: it is tried again on a worker
      (r.ok() ? *model->ok_series()
              : metrics->requests.With({model->name(), model->version_label(), CodeName(r.status())}))
          .Add();
      model->duration_series()->Observe(std::chrono::duration<double>(Clock::now() - start).count());
      done(std::move(r));
    };
  }
  auto wanted = WantedOutputs(*model, request.outputs);
  auto inputs = wanted.ok() ? OrderInputs(*model, std::move(request.inputs)) : wanted.status();
  if (!inputs.ok()) {
    Record(*model, inputs.status(), start, 0);
    return done(inputs.status());
  }
  const uint64_t rows = model->max_batch_size() > 0 && !inputs->empty() && (*inputs)[0].shape().rank() > 0
                            ? static_cast<uint64_t>((*inputs)[0].shape().dim(0))
                            : 1;
  auto finish = [model, wanted = *std::move(wanted), start, rows, id = std::move(request.id),
                 done = std::move(done)](StatusOr<std::vector<Tensor>> outputs) {
    if (!IsNotQuick(outputs.status())) Record(*model, outputs.status(), start, rows);
    if (!outputs.ok()) return done(outputs.status());
    InferResponse response{model->name(), model->version_label(), id, {}};
    for (int i : wanted) response.outputs.push_back({model->outputs()[i].name, std::move((*outputs)[i])});
    done(std::move(response));
  };
  if (model->batching()) return model->Submit(*std::move(inputs), token, std::move(finish));  // queued only: quick
  finish(model->Run(*std::move(inputs), *token));
}

}  // namespace graphd::server::serving
