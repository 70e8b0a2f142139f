#include "core/logging.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace graphd {
namespace {
bool Parse(absl::string_view level, spdlog::level::level_enum* out) {
  static constexpr std::pair<absl::string_view, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
      {"error", spdlog::level::err},   {"off", spdlog::level::off}};
  for (const auto& [name, value] : kLevels) {
    if (name == level) {
      *out = value;
      return true;
    }
  }
  return false;
}
}  // namespace

bool ValidLogLevel(absl::string_view level) {
  spdlog::level::level_enum unused;
  return Parse(level, &unused);
}

absl::Status SetLogLevel(absl::string_view level) {
  spdlog::level::level_enum value;
  if (!Parse(level, &value)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown log level '", level, "' (use trace, debug, info, warn, error or off)"));
  }
  spdlog::set_level(value);
  return absl::OkStatus();
}

}  // namespace graphd
