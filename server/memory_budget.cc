#include "server/memory_budget.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace graphd::server {
namespace {

std::string ReadSmallFile(const char* path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str().substr(0, 1 << 16);
}

// A cgroup limit file's number; 0 for "max", garbage or a value so large it means none.
int64_t CgroupLimit(absl::string_view text) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &value) || value <= 0) return 0;
  return value >= (int64_t{1} << 60) ? 0 : value;  // v1 reports "none" as ~2^63
}

Status Bad(absl::string_view spec, absl::string_view why) {
  return errors::InvalidArgument(absl::StrCat(
      "--memory-limit '", spec, "' ", why,
      " (use auto, off, a percentage such as 75%, or bytes such as 8G, 512M or 1073741824)"));
}

}  // namespace

int64_t MemoryCapacityFrom(absl::string_view meminfo, absl::string_view cgroup_v2_max,
                           absl::string_view cgroup_v1_limit, std::string* source) {
  int64_t total = 0;
  for (absl::string_view line : absl::StrSplit(meminfo, '\n')) {
    if (!absl::ConsumePrefix(&line, "MemTotal:")) continue;
    line = absl::StripAsciiWhitespace(line);
    if (absl::ConsumeSuffix(&line, "kB")) line = absl::StripAsciiWhitespace(line);
    if (absl::SimpleAtoi(line, &total)) total *= 1024;
    break;
  }
  int64_t cgroup = CgroupLimit(cgroup_v2_max);
  const char* cgroup_name = "the cgroup's memory.max";
  if (cgroup == 0) {
    cgroup = CgroupLimit(cgroup_v1_limit);
    cgroup_name = "the cgroup's memory.limit_in_bytes";
  }
  if (cgroup > 0 && (total == 0 || cgroup < total)) {
    if (source != nullptr) *source = cgroup_name;
    return cgroup;
  }
  if (source != nullptr) *source = total > 0 ? "the machine's memory (MemTotal)" : "nothing (unknown)";
  return total;
}

int64_t MemoryCapacity(std::string* source) {
  return MemoryCapacityFrom(ReadSmallFile("/proc/meminfo"), ReadSmallFile("/sys/fs/cgroup/memory.max"),
                            ReadSmallFile("/sys/fs/cgroup/memory/memory.limit_in_bytes"), source);
}

StatusOr<int64_t> ParseMemoryLimit(absl::string_view spec, int64_t capacity) {
  absl::string_view s = absl::StripAsciiWhitespace(spec);
  const std::string lower = absl::AsciiStrToLower(s);
  if (lower == "off" || lower == "0" || lower == "none") return int64_t{0};
  int64_t percent = -1;
  if (lower == "auto") {
    percent = 80;
  } else if (absl::ConsumeSuffix(&s, "%")) {
    if (!absl::SimpleAtoi(s, &percent) || percent < 1 || percent > 100) return Bad(spec, "is not a percentage from 1 to 100");
  }
  if (percent > 0) {
    if (capacity <= 0) return Bad(spec, "needs the machine's memory size, which could not be read; give bytes");
    return static_cast<int64_t>(static_cast<__int128>(capacity) * percent / 100);
  }
  // BYTES[K|M|G|T][i][B]
  absl::string_view digits = s;
  int shift = 0;
  std::string unit = absl::AsciiStrToUpper(s.substr(s.find_first_not_of("0123456789") == absl::string_view::npos
                                                        ? s.size()
                                                        : s.find_first_not_of("0123456789")));
  digits = s.substr(0, s.size() - unit.size());
  if (absl::EndsWith(unit, "B")) unit.pop_back();
  if (absl::EndsWith(unit, "I")) unit.pop_back();
  if (unit == "K") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (unit == "T") shift = 40;
  else if (!unit.empty()) return Bad(spec, absl::StrCat("has an unknown unit '", unit, "'"));
  int64_t value = 0;
  if (digits.empty() || !absl::SimpleAtoi(digits, &value) || value < 0) return Bad(spec, "is not a size");
  if (value > (INT64_MAX >> shift)) return Bad(spec, "is too large");
  value <<= shift;
  if (value < (int64_t{1} << 20)) return Bad(spec, "is under 1 MiB");
  return value;
}

}  // namespace graphd::server
