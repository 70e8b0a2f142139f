// A model repository on disk, in Triton's layout:
//
//   DIR/NAME/config.pbtxt        optional: a graphd.v1.ModelConfig text proto
//   DIR/NAME/VERSION/model.onnx  an ONNX model, or
//   DIR/NAME/VERSION/model.graphdef  a binary graphd.v1.GraphDef (inputs and outputs
//                                named by the config), or
//   DIR/NAME/VERSION/model.py    function source (a tf.function with an input_signature)
//
// VERSION is a positive integer; other entries of DIR/NAME are ignored, as are
// directories of DIR whose names are not model names (see ValidModelName). Reading
// checks everything that does not need the model itself; errors name the file.
// Stateless functions over the file system; thread-safe.
#ifndef GRAPHD_SERVER_MODELS_REPOSITORY_H_
#define GRAPHD_SERVER_MODELS_REPOSITORY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "graphd/v1/model_config.pb.h"

namespace graphd::server::models {

enum class ModelKind { kOnnx, kGraphDef, kSource };
absl::string_view PlatformOf(ModelKind kind);  // "graphd_onnx", "graphd_graphdef", "graphd_function"

struct VersionFile {
  ModelKind kind = ModelKind::kOnnx;
  std::string path;
  // Size and modification time: poll mode reloads a version whose file changed.
  int64_t size = 0;
  int64_t mtime_ns = 0;
};

struct RepositoryModel {
  std::string name;
  std::string config_path;  // "" without config.pbtxt
  v1::ModelConfig config;   // defaults without one
  // The versions the config's version_policy selects (default: the highest one).
  std::map<int64_t, VersionFile> versions;
};

// Where a model's instance groups (config.pbtxt) ask it to run; ReadModel has checked
// that they agree. kAuto: the GPU when the server has a usable one, else the CPU.
enum class InstanceKind { kAuto, kCpu, kGpu };
InstanceKind InstanceKindOf(const v1::ModelConfig& config);
absl::string_view InstanceKindName(InstanceKind kind);  // "auto", "cpu", "gpu"

// Letters, digits, '_', '-' and '.', not starting with '.', at most 128 characters:
// a model name never reaches outside the repository.
bool ValidModelName(absl::string_view name);

// The model names in `dir`, sorted. NotFound/InvalidArgument when `dir` is not a
// readable directory.
StatusOr<std::vector<std::string>> ListModels(const std::string& dir);

// Model `name` of repository `dir`: its config (parsed and checked) and the versions
// it serves. NotFound when there is no such model directory; InvalidArgument naming
// the file for a bad config, a version without a model file (or with two), a version
// the policy names that does not exist, or no version at all.
StatusOr<RepositoryModel> ReadModel(const std::string& dir, const std::string& name);

// The contents of a model file; InvalidArgument past `max_bytes`.
StatusOr<std::string> ReadModelFile(const std::string& path, int64_t max_bytes);

}  // namespace graphd::server::models

#endif  // GRAPHD_SERVER_MODELS_REPOSITORY_H_
