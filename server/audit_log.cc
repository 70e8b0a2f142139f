#include "server/audit_log.h"

#include <atomic>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace graphd::server {
namespace {

// Set once by ConfigureAuditLog before serving; read lock-free on every call. The
// mutex only keeps lines from interleaving.
struct Sink {
  absl::Mutex mu;
  std::atomic<std::FILE*> file{nullptr};  // null: off
  std::atomic<bool> json{false};
};

Sink& TheSink() {
  static Sink* const sink = new Sink;
  return *sink;
}

// A JSON string literal for `s`.
void AppendJsonString(std::string& out, absl::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      absl::StrAppend(&out, "\\u00", absl::Hex(c, absl::kZeroPad2));
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

// A text value: as is when it is one plain word, else quoted like JSON.
void AppendTextValue(std::string& out, absl::string_view s) {
  bool plain = !s.empty();
  for (unsigned char c : s) plain = plain && c > 0x20 && c != '"' && c != '\\' && c != '=' && c < 0x7f;
  if (plain) {
    out.append(s.data(), s.size());
  } else {
    AppendJsonString(out, s);
  }
}

}  // namespace

std::string FormatAudit(const AuditRecord& r, int64_t unix_micros, bool json) {
  const std::string time =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::FromUnixMicros(unix_micros), absl::UTCTimeZone());
  const std::string code = r.http_status != 0 ? absl::StrCat(r.http_status) : absl::StatusCodeToString(r.code);
  const std::pair<absl::string_view, absl::string_view> strings[] = {
      {"protocol", r.protocol}, {"method", r.method}, {"tenant", r.tenant},
      {"session", r.session},   {"peer", r.peer},     {"status", code}};
  const std::pair<absl::string_view, int64_t> numbers[] = {
      {"duration_us", r.duration_us}, {"request_bytes", r.request_bytes}, {"response_bytes", r.response_bytes}};
  std::string out;
  out.reserve(256);
  if (json) {
    absl::StrAppend(&out, "{\"time\":\"", time, "\",\"log\":\"audit\"");
    for (const auto& [key, value] : strings) {
      absl::StrAppend(&out, ",\"", key, "\":");
      AppendJsonString(out, value);
    }
    for (const auto& [key, value] : numbers) absl::StrAppend(&out, ",\"", key, "\":", value);
    out += '}';
    return out;
  }
  absl::StrAppend(&out, time, " audit");
  for (const auto& [key, value] : strings) {
    absl::StrAppend(&out, " ", key, "=");
    AppendTextValue(out, value.empty() ? "-" : value);
  }
  for (const auto& [key, value] : numbers) absl::StrAppend(&out, " ", key, "=", value);
  return out;
}

Status ConfigureAuditLog(const std::string& destination, bool json) {
  Sink& sink = TheSink();
  std::FILE* file = nullptr;
  if (destination == "-") {
    file = stderr;
  } else if (destination != "off") {
    file = std::fopen(destination.c_str(), "ae");
    if (file == nullptr) {
      return errors::InvalidArgument(absl::StrCat("--audit-log: cannot open '", destination, "' for appending"));
    }
  }
  sink.json.store(json);
  sink.file.store(file);
  return absl::OkStatus();
}

bool AuditLogEnabled() { return TheSink().file.load(std::memory_order_relaxed) != nullptr; }

void WriteAudit(const AuditRecord& record) {
  Sink& sink = TheSink();
  std::FILE* file = sink.file.load(std::memory_order_acquire);
  if (file == nullptr) return;
  std::string line = FormatAudit(record, absl::ToUnixMicros(absl::Now()), sink.json.load(std::memory_order_relaxed));
  line += '\n';
  absl::MutexLock lock(&sink.mu);
  std::fwrite(line.data(), 1, line.size(), file);
  std::fflush(file);
}

}  // namespace graphd::server
