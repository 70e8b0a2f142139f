// The served models: a model repository (repository.h) loaded into ServedModels, by
// name and version, and kept in step with the repository as the control mode says:
//
//   none      every model is loaded at start; a model that fails fails the start.
//   poll      as none, but a failing model is left UNAVAILABLE (with its reason)
//             while the others serve, and Poll() (every --repository-poll-seconds)
//             loads new and changed versions (warmed before they take traffic) and
//             unloads removed ones.
//   explicit  nothing is loaded at start; Load(name) and Unload(name) (KServe's
//             repository extension, graphctl load/unload) do it.
//
// A request holds its version (a shared_ptr) while it runs, so a version unloaded or
// replaced meanwhile finishes its requests before its memory goes.
//
// Thread safety: every method is safe from many threads; loads run without the
// manager's lock (one load or poll at a time: load_mu_).
#ifndef GRAPHD_SERVER_MODELS_MODEL_MANAGER_H_
#define GRAPHD_SERVER_MODELS_MODEL_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/models/repository.h"
#include "server/models/served_model.h"

namespace graphd::server::models {

enum class ControlMode { kNone, kPoll, kExplicit };
StatusOr<ControlMode> ControlModeFromName(absl::string_view name);  // none, poll, explicit

struct ModelManagerOptions {
  std::string repository;  // "" : no repository (no models)
  ControlMode mode = ControlMode::kNone;
  // Where batched models run their batches (null: no dynamic batching).
  executor::ThreadPool* pool = nullptr;
  // Where models and requests record their metrics (null: none).
  const serving::ServingMetrics* metrics = nullptr;
};

// A model version's state, as RepositoryIndex shows it.
struct ModelIndexEntry {
  std::string name;
  int64_t version = 0;  // 0: the model as a whole (it failed before any version loaded)
  std::string state;    // READY, UNAVAILABLE
  std::string reason;   // why UNAVAILABLE
};

class ModelManager {
 public:
  // Makes the internal session a model version runs in (each version its own), on the
  // device its instance groups ask for; an error (no usable GPU for KIND_GPU) leaves
  // the model unavailable with that reason.
  using SessionFactory = std::function<StatusOr<std::shared_ptr<Session>>(const std::string& model, int64_t version,
                                                                          InstanceKind kind)>;

  ModelManager(ModelManagerOptions options, SessionFactory sessions);

  // Loads the repository as the mode says (see above). In mode none, the first model
  // that fails is the error (naming its file).
  Status Start();
  // Poll mode: brings the loaded models in step with the repository.
  void Poll();
  // Explicit mode (FailedPrecondition otherwise): loads or reloads model `name`
  // (NotFound when the repository has no such model; its error when it fails), or
  // unloads it (NotFound when it is not loaded).
  Status Load(const std::string& name);
  Status Unload(const std::string& name);

  // The version `version` ("" : the highest loaded) of model `name`, ready to run.
  // NotFound naming the model (or the version); Unavailable with the reason for a
  // model that failed to load.
  StatusOr<std::shared_ptr<const ServedModel>> Find(absl::string_view name, absl::string_view version) const;
  // The loaded versions of `name`, ascending (empty: none).
  std::vector<int64_t> Versions(absl::string_view name) const;
  // Every model of the repository and every loaded version, by name then version.
  std::vector<ModelIndexEntry> Index() const;
  bool enabled() const { return !options_.repository.empty(); }
  const serving::ServingMetrics* metrics() const { return options_.metrics; }
  ControlMode mode() const { return options_.mode; }

 private:
  struct Model {
    std::map<int64_t, std::shared_ptr<const ServedModel>> versions;
    std::map<int64_t, VersionFile> files;  // what each loaded version was loaded from
    std::optional<v1::ModelConfig> config;  // the config they were loaded with
    std::string error;  // the latest load's failure ("" : none)
  };
  // Reads and loads `name` (the versions whose files changed or are new; all of them
  // when its config changed), then swaps the result in. With `keep_on_error`, a
  // failure leaves the loaded versions serving.
  Status LoadModel(const std::string& name, bool keep_on_error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(load_mu_);

  const ModelManagerOptions options_;
  const SessionFactory sessions_;
  absl::Mutex load_mu_;  // one load, unload or poll at a time
  mutable absl::Mutex mu_;
  std::map<std::string, Model, std::less<>> models_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphd::server::models

#endif  // GRAPHD_SERVER_MODELS_MODEL_MANAGER_H_
