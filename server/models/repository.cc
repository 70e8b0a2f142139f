#include "server/models/repository.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/models/datatypes.h"
#include "server/text_proto.h"

namespace graphd::server::models {
namespace fs = std::filesystem;
namespace {

constexpr int64_t kMaxConfigBytes = 1 << 20;
constexpr int kMaxDims = 32;
constexpr int kMaxBatchSize = 1 << 16;
constexpr int kMaxTensors = 1024;

struct FileKind {
  const char* file;
  ModelKind kind;
};
constexpr FileKind kModelFiles[] = {
    {"model.onnx", ModelKind::kOnnx}, {"model.graphdef", ModelKind::kGraphDef}, {"model.py", ModelKind::kSource}};

Status Bad(const std::string& path, absl::string_view problem) {
  return errors::InvalidArgument(absl::StrCat(path, ": ", problem));
}

Status CheckTensors(const std::string& path, const google::protobuf::RepeatedPtrField<v1::ModelTensorConfig>& tensors,
                    absl::string_view field) {
  if (tensors.size() > kMaxTensors) return Bad(path, absl::StrCat("more than ", kMaxTensors, " ", field, "s"));
  std::set<std::string> names;
  for (const v1::ModelTensorConfig& t : tensors) {
    if (t.name().empty()) return Bad(path, absl::StrCat("an ", field, " has no name"));
    if (!names.insert(t.name()).second) return Bad(path, absl::StrCat(field, " '", t.name(), "' appears twice"));
    RETURN_IF_ERROR(DTypeFromConfig(t.data_type(), absl::StrCat(path, ": ", field, " '", t.name(), "'")).status());
    if (t.dims_size() > kMaxDims) return Bad(path, absl::StrCat(field, " '", t.name(), "' has more than ", kMaxDims, " dims"));
    for (int64_t d : t.dims()) {
      if (d < -1) return Bad(path, absl::StrCat(field, " '", t.name(), "': dims must be -1 (any) or at least 0, got ", d));
    }
  }
  return absl::OkStatus();
}

Status CheckConfig(const std::string& path, const std::string& name, const v1::ModelConfig& c) {
  if (!c.name().empty() && c.name() != name) {
    return Bad(path, absl::StrCat("name '", c.name(), "' differs from the model's directory '", name, "'"));
  }
  if (c.max_batch_size() < 0 || c.max_batch_size() > kMaxBatchSize) {
    return Bad(path, absl::StrCat("max_batch_size must be between 0 and ", kMaxBatchSize, ", got ", c.max_batch_size()));
  }
  RETURN_IF_ERROR(CheckTensors(path, c.input(), "input"));
  RETURN_IF_ERROR(CheckTensors(path, c.output(), "output"));
  if (c.has_dynamic_batching()) {
    if (c.max_batch_size() == 0) return Bad(path, "dynamic_batching needs max_batch_size > 0");
    for (int32_t size : c.dynamic_batching().preferred_batch_size()) {
      if (size < 1 || size > c.max_batch_size()) {
        return Bad(path, absl::StrCat("preferred_batch_size ", size, " is not between 1 and max_batch_size ",
                                      c.max_batch_size()));
      }
    }
    if (c.dynamic_batching().max_queue_delay_microseconds() > 10'000'000) {
      return Bad(path, "max_queue_delay_microseconds is over 10 seconds");
    }
  }
  if (c.instance_group_size() > 16) return Bad(path, "instance_group: more than 16 groups");
  for (const v1::ModelInstanceGroup& g : c.instance_group()) {
    if (g.kind() == v1::ModelInstanceGroup::KIND_MODEL) {
      return Bad(path, "instance_group: kind KIND_MODEL is not supported (use KIND_AUTO, KIND_CPU or KIND_GPU)");
    }
    if (g.count() < 0 || g.count() > 64) return Bad(path, "instance_group: count must be between 0 and 64");
    if (g.gpus_size() > 0 && g.kind() != v1::ModelInstanceGroup::KIND_GPU) {
      return Bad(path, "instance_group: gpus is for kind KIND_GPU");
    }
    for (int32_t gpu : g.gpus()) {
      if (gpu != 0) return Bad(path, absl::StrCat("instance_group: gpus [", gpu, "]: graphd serves models on GPU 0"));
    }
    if (g.kind() != c.instance_group(0).kind()) {
      return Bad(path, "instance_group: every group must name the same kind (a model runs on one device)");
    }
  }
  if (c.version_policy().has_latest() && c.version_policy().latest().num_versions() == 0) {
    return Bad(path, "version_policy latest: num_versions must be at least 1");
  }
  for (int64_t v : c.version_policy().specific().versions()) {
    if (v <= 0) return Bad(path, absl::StrCat("version_policy specific: versions are positive, got ", v));
  }
  for (const v1::ModelWarmup& w : c.model_warmup()) {
    if (c.max_batch_size() > 0 && w.batch_size() > static_cast<uint32_t>(c.max_batch_size())) {
      return Bad(path, absl::StrCat("model_warmup '", w.name(), "': batch_size ", w.batch_size(),
                                    " is over max_batch_size"));
    }
    for (const auto& [input, spec] : w.inputs()) {
      RETURN_IF_ERROR(DTypeFromConfig(spec.data_type(), absl::StrCat(path, ": model_warmup '", w.name(),
                                                                      "' input '", input, "'")).status());
      for (int64_t d : spec.dims()) {
        if (d < 0) return Bad(path, absl::StrCat("model_warmup '", w.name(), "' input '", input, "': dims must be known"));
      }
    }
  }
  if (!c.backend().empty() && c.backend() != "onnxruntime" && c.backend() != "graphd") {
    return Bad(path, absl::StrCat("backend '", c.backend(), "' is not served here (onnxruntime or graphd)"));
  }
  return absl::OkStatus();
}

// The model file of version directory `dir`.
StatusOr<VersionFile> FindModelFile(const fs::path& dir) {
  std::vector<VersionFile> found;
  for (const FileKind& f : kModelFiles) {
    std::error_code ec;
    fs::path p = dir / f.file;
    if (!fs::is_regular_file(p, ec)) continue;
    VersionFile v{.kind = f.kind, .path = p.string()};
    v.size = static_cast<int64_t>(fs::file_size(p, ec));
    v.mtime_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(fs::last_write_time(p, ec).time_since_epoch()).count();
    found.push_back(std::move(v));
  }
  if (found.empty()) return Bad(dir.string(), "no model file (model.onnx, model.graphdef or model.py)");
  if (found.size() > 1) return Bad(dir.string(), "more than one model file (model.onnx, model.graphdef, model.py)");
  return found[0];
}

bool IsVersion(const std::string& s, int64_t* v) {
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) { return absl::ascii_isdigit(c); })) {
    return false;
  }
  *v = std::stoll(s);
  return *v > 0;
}

}  // namespace

absl::string_view PlatformOf(ModelKind kind) {
  switch (kind) {
    case ModelKind::kOnnx:
      return "graphd_onnx";
    case ModelKind::kGraphDef:
      return "graphd_graphdef";
    case ModelKind::kSource:
      return "graphd_function";
  }
  return "";
}

bool ValidModelName(absl::string_view name) {
  if (name.empty() || name.size() > 128 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return absl::ascii_isalnum(c) || c == '_' || c == '-' || c == '.'; });
}

StatusOr<std::vector<std::string>> ListModels(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return errors::NotFound(absl::StrCat("model repository ", dir, " is not a directory"));
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (ValidModelName(name) && it->is_directory(ec)) names.push_back(std::move(name));
  }
  if (ec) return errors::InvalidArgument(absl::StrCat("cannot read model repository ", dir, ": ", ec.message()));
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<RepositoryModel> ReadModel(const std::string& dir, const std::string& name) {
  if (!ValidModelName(name)) return errors::InvalidArgument(absl::StrCat("'", name, "' is not a model name"));
  const fs::path model_dir = fs::path(dir) / name;
  std::error_code ec;
  if (!fs::is_directory(model_dir, ec)) {
    return errors::NotFound(absl::StrCat("no model '", name, "' in the repository ", dir));
  }
  RepositoryModel model;
  model.name = name;
  const fs::path config = model_dir / "config.pbtxt";
  if (fs::exists(config, ec)) {
    model.config_path = config.string();
    ASSIGN_OR_RETURN(std::string text, ReadModelFile(model.config_path, kMaxConfigBytes));
    RETURN_IF_ERROR(ParseTextProto(text, model.config_path, &model.config));
    RETURN_IF_ERROR(CheckConfig(model.config_path, name, model.config));
  }
  std::map<int64_t, fs::path> all;
  for (fs::directory_iterator it(model_dir, ec), end; !ec && it != end; it.increment(ec)) {
    int64_t v;
    if (it->is_directory(ec) && IsVersion(it->path().filename().string(), &v)) all[v] = it->path();
  }
  if (ec) return Bad(model_dir.string(), ec.message());
  if (all.empty()) return Bad(model_dir.string(), "no version directory (1/, 2/, ...)");
  std::vector<int64_t> chosen;
  const v1::ModelVersionPolicy& policy = model.config.version_policy();
  if (policy.has_all()) {
    for (const auto& [v, path] : all) chosen.push_back(v);
  } else if (policy.has_specific()) {
    for (int64_t v : policy.specific().versions()) {
      if (!all.contains(v)) {
        return Bad(model.config_path, absl::StrCat("version_policy names version ", v, ", which ",
                                                   model_dir.string(), " does not have"));
      }
      chosen.push_back(v);
    }
  } else {
    uint32_t n = policy.has_latest() ? policy.latest().num_versions() : 1;
    for (auto it = all.rbegin(); it != all.rend() && chosen.size() < n; ++it) chosen.push_back(it->first);
  }
  for (int64_t v : chosen) {
    ASSIGN_OR_RETURN(VersionFile file, FindModelFile(all[v]));
    const std::string& platform = model.config.platform();
    if (!platform.empty() && platform != PlatformOf(file.kind) &&
        !(file.kind == ModelKind::kOnnx && platform == "onnxruntime_onnx")) {
      return Bad(model.config_path, absl::StrCat("platform '", platform, "' does not match ", file.path));
    }
    model.versions[v] = std::move(file);
  }
  return model;
}

StatusOr<std::string> ReadModelFile(const std::string& path, int64_t max_bytes) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return Bad(path, ec.message());
  if (static_cast<int64_t>(size) > max_bytes) {
    return Bad(path, absl::StrCat(size, " bytes, over the limit of ", max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  std::string data(size, '\0');
  if (!in.read(data.data(), static_cast<std::streamsize>(size))) return Bad(path, "cannot be read");
  return data;
}

InstanceKind InstanceKindOf(const v1::ModelConfig& config) {
  if (config.instance_group_size() == 0) return InstanceKind::kAuto;
  switch (config.instance_group(0).kind()) {
    case v1::ModelInstanceGroup::KIND_GPU: return InstanceKind::kGpu;
    case v1::ModelInstanceGroup::KIND_CPU: return InstanceKind::kCpu;
    default: return InstanceKind::kAuto;
  }
}

absl::string_view InstanceKindName(InstanceKind kind) {
  switch (kind) {
    case InstanceKind::kGpu: return "gpu";
    case InstanceKind::kCpu: return "cpu";
    case InstanceKind::kAuto: break;
  }
  return "auto";
}

}  // namespace graphd::server::models
