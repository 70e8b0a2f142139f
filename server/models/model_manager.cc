#include "server/models/model_manager.h"

#include <algorithm>

#include "absl/algorithm/container.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "core/logging.h"
#include "server/malloc_tuning.h"

namespace graphd::server::models {

StatusOr<ControlMode> ControlModeFromName(absl::string_view name) {
  if (name == "none") return ControlMode::kNone;
  if (name == "poll") return ControlMode::kPoll;
  if (name == "explicit") return ControlMode::kExplicit;
  return errors::InvalidArgument(absl::StrCat("--model-control-mode must be none, poll or explicit, got '", name, "'"));
}

ModelManager::ModelManager(ModelManagerOptions options, SessionFactory sessions)
    : options_(std::move(options)), sessions_(std::move(sessions)) {}

Status ModelManager::Start() {
  if (!enabled()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<std::string> names, ListModels(options_.repository));
  if (options_.mode == ControlMode::kExplicit) return absl::OkStatus();
  absl::MutexLock load(&load_mu_);
  for (const std::string& name : names) {
    Status s = LoadModel(name, /*keep_on_error=*/false);
    if (!s.ok() && options_.mode == ControlMode::kNone) return s;
  }
  return absl::OkStatus();
}

void ModelManager::Poll() {
  if (!enabled() || options_.mode != ControlMode::kPoll) return;
  absl::MutexLock load(&load_mu_);
  auto names = ListModels(options_.repository);
  if (!names.ok()) {
    GRAPHD_LOG_WARN("model repository poll: {}", std::string(names.status().message()));
    return;
  }
  std::vector<std::string> gone;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, model] : models_) {
      if (!absl::c_linear_search(*names, name)) gone.push_back(name);
    }
  }
  for (const std::string& name : gone) {
    GRAPHD_LOG_INFO("model {} left the repository: unloading it", name);
    Model dropped;  // destroyed after the lock: a version's teardown must not stall lookups
    absl::MutexLock lock(&mu_);
    dropped = std::move(models_.at(name));  // requests still running keep their version until they end
    models_.erase(name);
  }
  for (const std::string& name : *names) LoadModel(name, /*keep_on_error=*/true).IgnoreError();
  ReleaseFreeMemory();
}

Status ModelManager::Load(const std::string& name) {
  if (options_.mode != ControlMode::kExplicit) {
    return errors::FailedPrecondition("models are loaded and unloaded explicitly only with --model-control-mode=explicit");
  }
  if (!enabled()) return errors::FailedPrecondition("the server has no model repository (--model-repository)");
  absl::MutexLock load(&load_mu_);
  return LoadModel(name, /*keep_on_error=*/true);
}

Status ModelManager::Unload(const std::string& name) {
  if (options_.mode != ControlMode::kExplicit) {
    return errors::FailedPrecondition("models are loaded and unloaded explicitly only with --model-control-mode=explicit");
  }
  absl::MutexLock load(&load_mu_);
  Model dropped;  // destroyed after the lock, as below
  {
    absl::MutexLock lock(&mu_);
    auto it = models_.find(name);
    if (it == models_.end()) return errors::NotFound(absl::StrCat("model '", name, "' is not loaded"));
    dropped = std::move(it->second);
    models_.erase(it);
  }
  dropped = Model();
  ReleaseFreeMemory();
  return absl::OkStatus();
}

Status ModelManager::LoadModel(const std::string& name, bool keep_on_error) {
  auto record_error = [&](const Status& s) {
    GRAPHD_LOG_ERROR("model {}: {}", name, std::string(s.message()));
    Model dropped;  // destroyed after the lock
    absl::MutexLock lock(&mu_);
    Model& m = models_[name];
    m.error = std::string(s.message());
    if (!keep_on_error) {
      dropped.versions.swap(m.versions);
      m.files.clear();
      m.config.reset();
    }
    return s;
  };
  auto read = ReadModel(options_.repository, name);
  if (!read.ok()) {
    // A name the repository does not have (or that is not a name) is the caller's
    // mistake, not a model's state: nothing is recorded for it.
    const bool known = [&] {
      absl::MutexLock lock(&mu_);
      return models_.contains(name);
    }();
    if (!known && (absl::IsNotFound(read.status()) || !ValidModelName(name))) return read.status();
    return record_error(read.status());
  }
  std::map<int64_t, std::shared_ptr<const ServedModel>> versions;
  std::map<int64_t, VersionFile> files;
  // Every version depends on the config (the function served, batching, inputs and
  // outputs, the device): a changed config reloads them all.
  {
    absl::MutexLock lock(&mu_);
    if (auto it = models_.find(name);
        it != models_.end() && it->second.config.has_value() &&
        google::protobuf::util::MessageDifferencer::Equals(*it->second.config, read->config)) {
      for (const auto& [v, file] : read->versions) {
        auto old = it->second.files.find(v);
        if (old != it->second.files.end() && old->second.path == file.path && old->second.size == file.size &&
            old->second.mtime_ns == file.mtime_ns && it->second.versions.contains(v)) {
          versions[v] = it->second.versions.at(v);  // unchanged: keep serving it
          files[v] = file;
        }
      }
    }
  }
  for (const auto& [v, file] : read->versions) {
    if (versions.contains(v)) continue;
    CancellationToken token;
    StatusOr<std::shared_ptr<Session>> session = sessions_(name, v, InstanceKindOf(read->config));
    if (!session.ok()) {
      // Only KIND_GPU fails here (KIND_AUTO falls back to the CPU), and it has a config.
      return record_error(errors::FailedPrecondition(
          absl::StrCat(read->config_path, ": instance_group kind KIND_GPU: ", session.status().message())));
    }
    const std::string device = (*session)->device().info().name;
    auto served = ServedModel::Load(*read, v, *std::move(session), token, options_.pool, options_.metrics);
    if (!served.ok()) return record_error(served.status());
    GRAPHD_LOG_INFO("model {} version {} loaded ({}, {} bytes, on {})", name, v, std::string((*served)->platform()),
                    (*served)->file_bytes(), device);
    versions[v] = std::shared_ptr<const ServedModel>(*std::move(served));
    files[v] = file;
  }
  absl::ReleasableMutexLock lock(&mu_);
  Model& m = models_[name];
  m.versions.swap(versions);  // the versions dropped (now in `versions`) end when their requests do,
  m.files = std::move(files);
  m.config = read->config;
  m.error.clear();
  lock.Release();  // and are destroyed here, after the lock
  return absl::OkStatus();
}

StatusOr<std::shared_ptr<const ServedModel>> ModelManager::Find(absl::string_view name,
                                                                absl::string_view version) const {
  absl::MutexLock lock(&mu_);
  auto it = models_.find(name);
  if (it == models_.end()) return errors::NotFound(absl::StrCat("model '", name, "' is not loaded"));
  const Model& m = it->second;
  if (m.versions.empty()) {
    return errors::Unavailable(absl::StrCat("model '", name, "' is not available: ", m.error));
  }
  if (version.empty()) return m.versions.rbegin()->second;
  int64_t v = 0;
  if (!absl::SimpleAtoi(version, &v)) {
    return errors::InvalidArgument(absl::StrCat("model version '", version, "' is not a number"));
  }
  auto vit = m.versions.find(v);
  if (vit == m.versions.end()) {
    return errors::NotFound(absl::StrCat("model '", name, "' has no version ", version, " loaded"));
  }
  return vit->second;
}

std::vector<int64_t> ModelManager::Versions(absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  std::vector<int64_t> out;
  auto it = models_.find(name);
  if (it == models_.end()) return out;
  for (const auto& [v, served] : it->second.versions) out.push_back(v);
  return out;
}

std::vector<ModelIndexEntry> ModelManager::Index() const {
  std::vector<std::string> in_repository;
  if (enabled()) {
    if (auto names = ListModels(options_.repository); names.ok()) in_repository = *std::move(names);
  }
  std::vector<ModelIndexEntry> out;
  absl::MutexLock lock(&mu_);
  for (const std::string& name : in_repository) {
    if (!models_.contains(name)) out.push_back({name, 0, "UNAVAILABLE", "unloaded"});
  }
  for (const auto& [name, m] : models_) {
    if (m.versions.empty()) out.push_back({name, 0, "UNAVAILABLE", m.error});
    for (const auto& [v, served] : m.versions) out.push_back({name, v, "READY", ""});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace graphd::server::models
