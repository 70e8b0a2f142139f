#include "core/status.h"

#include "absl/strings/cord.h"

namespace graphd::errors {

Status Make(absl::StatusCode code, absl::string_view message, std::source_location loc) {
  Status status(code, message);
  absl::string_view file = loc.file_name();
  if (auto slash = file.rfind('/'); slash != absl::string_view::npos) {
    // Keep "module/file.cc" rather than a machine path.
    auto prev = file.rfind('/', slash - 1);
    file = file.substr(prev == absl::string_view::npos ? 0 : prev + 1);
  }
  status.SetPayload(kOriginPayload, absl::Cord(absl::StrCat(file, ":", loc.line())));
  return status;
}

Status WithNode(Status status, absl::string_view node) {
  if (!status.ok() && !status.GetPayload(kNodePayload).has_value()) {
    status.SetPayload(kNodePayload, absl::Cord(node));
  }
  return status;
}

std::optional<std::string> NodeOf(const Status& status) {
  auto payload = status.GetPayload(kNodePayload);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

std::optional<std::string> OriginOf(const Status& status) {
  auto payload = status.GetPayload(kOriginPayload);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

}  // namespace graphd::errors
