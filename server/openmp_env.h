// How oneDNN's OpenMP threads wait between parallel regions (libgomp).
//
// Why: between two parallel regions of a call, the OpenMP team's helper threads wait
// for the next one, spinning GOMP_SPINCOUNT iterations before they sleep; a sleeping
// helper costs the next region a futex wake-up (tens of microseconds on a VM).
// MobileNetV2 batch 1 ran 8-10 ms with them asleep against 5-6 ms with them spinning
// (bench/README.md). The spin count only holds while libgomp's pools have no more
// threads than the process has cores (past that, libgomp spins 1000 iterations at
// most), which is why the server keeps a single team (executor/cpu/team.h). libgomp
// reads its settings once, when it loads (before main), so the server sets them and
// re-executes itself once at start.
//
// Settings: unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is already in the environment
// (the user's choice wins), OMP_WAIT_POLICY=active and GOMP_SPINCOUNT=kSpinCount
// (a spinning thread still sleeps after that many iterations, about 0.1-1 ms, so an
// idle server does not burn CPU). GRAPHD_OPENMP_SPIN=0 keeps libgomp's defaults;
// GRAPHD_OPENMP_SPIN=N spins N iterations instead.
#ifndef GRAPHD_SERVER_OPENMP_ENV_H_
#define GRAPHD_SERVER_OPENMP_ENV_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace graphd::server {

inline constexpr const char* kSpinCount = "30000";

using EnvLookup = std::function<const char*(const char* name)>;

using EnvChanges = std::vector<std::pair<std::string, std::string>>;

// The variables to set (name, value) given the environment `getenv`; empty when
// nothing is to change (already set, or GRAPHD_OPENMP_SPIN=0). InvalidArgument when
// GRAPHD_OPENMP_SPIN is not a non-negative integer. Pure.
StatusOr<EnvChanges> OpenMpEnvToSet(const EnvLookup& getenv);

// Sets them and re-executes this program (/proc/self/exe, same pid, argv and open
// descriptors). Returns only when there was nothing to set (OK), GRAPHD_OPENMP_SPIN
// is invalid (InvalidArgument) or exec failed (Internal; the environment is restored
// and the server may go on with libgomp's defaults). Call first thing in main,
// before any thread starts.
Status ReexecWithOpenMpEnv(char** argv);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_OPENMP_ENV_H_
