// The logging facade every library uses. Backed by spdlog; `main` chooses sinks and
// level with SetLogLevel. Libraries log at debug level unless something is wrong.
#ifndef GRAPHD_CORE_LOGGING_H_
#define GRAPHD_CORE_LOGGING_H_

#include <string_view>

#include "absl/status/status.h"
#include "spdlog/spdlog.h"

namespace graphd {

// Accepts trace|debug|info|warn|error|off. Returns InvalidArgument naming `level` otherwise.
absl::Status SetLogLevel(absl::string_view level);
bool ValidLogLevel(absl::string_view level);
// "text": `TIME LEVEL message` lines; "json": one object per line,
// {"time":"...Z","level":"info","msg":"..."}. InvalidArgument for anything else.
absl::Status SetLogFormat(absl::string_view format);

}  // namespace graphd

#define GRAPHD_LOG_TRACE(...) SPDLOG_TRACE(__VA_ARGS__)
#define GRAPHD_LOG_DEBUG(...) ::spdlog::debug(__VA_ARGS__)
#define GRAPHD_LOG_INFO(...) ::spdlog::info(__VA_ARGS__)
#define GRAPHD_LOG_WARN(...) ::spdlog::warn(__VA_ARGS__)
#define GRAPHD_LOG_ERROR(...) ::spdlog::error(__VA_ARGS__)

#endif  // GRAPHD_CORE_LOGGING_H_
