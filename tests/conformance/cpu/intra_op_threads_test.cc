// SetIntraOpThreads: the OpenMP team size oneDNN primitives get on the threads that
// run them (the server sets it from --cpu-threads), and back to the default with 0;
// single-team mode, where only a leading thread forks a team (team.h).
#include <dirent.h>
#include <omp.h>

#include <cstdlib>
#include <set>
#include <thread>

#include "executor/cpu/dnnl_util.h"
#include "gtest/gtest.h"

namespace graphd::executor::cpu {
namespace {

// Runs a ReLU over `n` floats through RunPrimitive; the calling thread's OpenMP
// team size afterwards.
int TeamSizeAfterRun(int64_t n = 64) {
  auto t = Tensor::Allocate(DType::kFloat32, Shape({n}));
  EXPECT_TRUE(t.ok());
  dnnl::memory::desc md = PlainDesc({n});
  dnnl::eltwise_forward prim(dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_relu, md),
      PrimitiveAttr(), Engine()));
  RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(md, *t)}, {DNNL_ARG_DST, Wrap(md, *t)}}, n);
  return omp_get_max_threads();
}

// The ids of this process's threads.
std::set<int> ProcessThreads() {
  std::set<int> ids;
  DIR* dir = opendir("/proc/self/task");
  EXPECT_NE(dir, nullptr);
  if (dir == nullptr) return ids;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ids.insert(std::atoi(e->d_name));
  }
  closedir(dir);
  return ids;
}

// Threads in `after` that `before` did not have.
int NewThreads(const std::set<int>& before, const std::set<int>& after) {
  int fresh = 0;
  for (int id : after) fresh += before.count(id) == 0 ? 1 : 0;
  return fresh;
}

TEST(IntraOpThreadsTest, RunsUseTheConfiguredTeamOnEveryThread) {
  int original = 0;
  std::thread([&] { original = omp_get_max_threads(); }).join();
  const int want = original + 2;  // differs from the default, whatever the machine
  SetIntraOpThreads(want);
  EXPECT_EQ(IntraOpThreads(), want);
  int seen = 0;
  std::thread([&] { seen = TeamSizeAfterRun(); }).join();
  EXPECT_EQ(seen, want);
  // A thread that ran with the setting goes back to the default once it is cleared.
  std::thread([&] {
    EXPECT_EQ(TeamSizeAfterRun(), want);
    SetIntraOpThreads(0);
    EXPECT_EQ(TeamSizeAfterRun(), original);
  }).join();
  EXPECT_EQ(IntraOpThreads(), 0);
}

// A large ReLU forks a team of 2 only on the leading thread: elsewhere it runs on the
// calling thread, and no OpenMP thread starts (libgomp keeps one pool per forking
// thread, and more pool threads than cores cut its spin-wait short).
TEST(IntraOpThreadsTest, InSingleTeamModeOnlyTheLeadingThreadForksATeam) {
  SetIntraOpThreads(2);  // a team of 2 even on a machine of one core
  SetSingleTeam(true);
  constexpr int64_t kLarge = int64_t{1} << 22;
  std::thread([&] {
    EXPECT_EQ(TeamThreads(), 1);
    std::set<int> before = ProcessThreads();
    EXPECT_EQ(TeamSizeAfterRun(kLarge), 1);
    EXPECT_EQ(NewThreads(before, ProcessThreads()), 0);
    {
      TeamScope team(/*lead=*/true);
      EXPECT_EQ(TeamThreads(), 2);
      EXPECT_EQ(omp_get_max_threads(), 2);
      before = ProcessThreads();
      EXPECT_EQ(TeamSizeAfterRun(kLarge), 2);
      EXPECT_EQ(NewThreads(before, ProcessThreads()), 1);  // the team's second thread
      TeamScope not_now(/*lead=*/false);
      EXPECT_EQ(TeamThreads(), 1);
      EXPECT_EQ(omp_get_max_threads(), 1);
    }
    {
      // A leader forks only while its may_fork says so, as of its last decision: a
      // kernel's primitives are made and run with one team size.
      bool others_busy = true;
      TeamScope team(/*lead=*/true, [&] { return !others_busy; });
      EXPECT_EQ(TeamThreads(), 1);
      EXPECT_EQ(omp_get_max_threads(), 1);
      others_busy = false;
      EXPECT_EQ(TeamSizeAfterRun(kLarge), 1);  // applies, does not decide
      EXPECT_EQ(TeamThreads(), 1);
      DecideTeam();
      EXPECT_EQ(TeamThreads(), 2);
      EXPECT_EQ(omp_get_max_threads(), 2);
      others_busy = true;
      EXPECT_EQ(TeamSizeAfterRun(kLarge), 2);
      DecideTeam();
      EXPECT_EQ(TeamThreads(), 1);
    }
    EXPECT_EQ(TeamThreads(), 1);
    EXPECT_EQ(omp_get_max_threads(), 1);
  }).join();
  SetSingleTeam(false);
  SetIntraOpThreads(0);
  std::thread([&] { EXPECT_EQ(TeamThreads(), omp_get_max_threads()); }).join();
}

}  // namespace
}  // namespace graphd::executor::cpu
