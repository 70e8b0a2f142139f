#include "core/logging.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "spdlog/pattern_formatter.h"

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
// %* in a pattern: the message as the inside of a JSON string.
class JsonEscapedMessage : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    static constexpr char kHex[] = "0123456789abcdef";
    for (char ch : msg.payload) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"' || c == '\\') {
        dest.push_back('\\');
        dest.push_back(ch);
      } else if (c == '\n') {
        dest.append(std::string_view("\\n"));
      } else if (c < 0x20) {
        const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        dest.append(esc, esc + sizeof(esc));
      } else {
        dest.push_back(ch);
      }
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<JsonEscapedMessage>(); }
};
}  // namespace

absl::Status SetLogFormat(absl::string_view format) {
  if (format == "text") {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
    return absl::OkStatus();
  }
  if (format != "json") {
    return absl::InvalidArgumentError(absl::StrCat("unknown log format '", format, "' (use text or json)"));
  }
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<JsonEscapedMessage>('*').set_pattern(
      R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","msg":"%*"})");
  spdlog::set_formatter(std::move(formatter));
  return absl::OkStatus();
}

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
