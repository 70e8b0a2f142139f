#include "core/status.h"

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

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

namespace {
constexpr char kFieldSep = '\x1f';
constexpr char kRecordSep = '\x1e';
}  // namespace

Status WithLocation(Status status, const SourceRange& range) {
  if (status.ok() || !range.valid()) return status;
  int line = range.line();
  std::string record = absl::StrCat(range.file->name(), std::string(1, kFieldSep), line,
                                    std::string(1, kFieldSep), range.column(),
                                    std::string(1, kFieldSep), range.file->Line(line));
  auto existing = status.GetPayload(kLocationPayload);
  std::string value = existing ? absl::StrCat(std::string(*existing), std::string(1, kRecordSep), record)
                               : record;
  status.SetPayload(kLocationPayload, absl::Cord(value));
  return status;
}

std::vector<UserLocation> LocationsOf(const Status& status) {
  std::vector<UserLocation> out;
  auto payload = status.GetPayload(kLocationPayload);
  if (!payload) return out;
  for (absl::string_view record : absl::StrSplit(std::string(*payload), kRecordSep)) {
    std::vector<std::string> f = absl::StrSplit(record, absl::MaxSplits(kFieldSep, 3));
    if (f.size() != 4) continue;
    UserLocation loc{.file = f[0], .source_line = f[3]};
    if (!absl::SimpleAtoi(f[1], &loc.line) || !absl::SimpleAtoi(f[2], &loc.column)) continue;
    out.push_back(std::move(loc));
  }
  return out;
}

Status WithPythonClass(Status status, absl::string_view cls) {
  if (!status.ok() && !status.GetPayload(kPythonClassPayload).has_value()) {
    status.SetPayload(kPythonClassPayload, absl::Cord(cls));
  }
  return status;
}

std::optional<std::string> PythonClassOf(const Status& status) {
  auto payload = status.GetPayload(kPythonClassPayload);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

}  // namespace graphd::errors
