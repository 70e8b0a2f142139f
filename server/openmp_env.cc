#include "server/openmp_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace graphd::server {

StatusOr<EnvChanges> OpenMpEnvToSet(const EnvLookup& getenv) {
  if (getenv("OMP_WAIT_POLICY") != nullptr || getenv("GOMP_SPINCOUNT") != nullptr) return EnvChanges{};
  std::string spin = kSpinCount;
  if (const char* v = getenv("GRAPHD_OPENMP_SPIN"); v != nullptr) {
    absl::string_view value(v);
    if (value.empty() || value.size() > 12 ||
        !std::all_of(value.begin(), value.end(), [](char ch) { return absl::ascii_isdigit(ch); })) {
      return errors::InvalidArgument(absl::StrCat("GRAPHD_OPENMP_SPIN must be a whole number of spin iterations "
                                                  "(0: libgomp's defaults), got '", value, "'"));
    }
    if (value.find_first_not_of('0') == absl::string_view::npos) return EnvChanges{};
    spin = std::string(value);
  }
  return EnvChanges{{"OMP_WAIT_POLICY", "active"}, {"GOMP_SPINCOUNT", spin}};
}

Status ReexecWithOpenMpEnv(char** argv) {
  ASSIGN_OR_RETURN(EnvChanges changes, OpenMpEnvToSet([](const char* name) { return ::getenv(name); }));
  if (changes.empty()) return absl::OkStatus();
  for (const auto& [name, value] : changes) setenv(name.c_str(), value.c_str(), 1);
  execv("/proc/self/exe", argv);
  const int err = errno;
  // Exec failed: undo, so that the environment matches what libgomp uses.
  for (const auto& [name, value] : changes) unsetenv(name.c_str());
  return errors::Internal(absl::StrCat("re-executing with the OpenMP settings failed: ", strerror(err)));
}

}  // namespace graphd::server
