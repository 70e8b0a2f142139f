#include "server/openmp_env.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::server {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(OpenMpEnvTest, SpinsBrieflyByDefault) {
  auto changes = OpenMpEnvToSet(Env({}));
  ASSERT_TRUE(changes.ok()) << changes.status();
  EXPECT_THAT(*changes, ElementsAre(Pair("OMP_WAIT_POLICY", "active"), Pair("GOMP_SPINCOUNT", kSpinCount)));
}

TEST(OpenMpEnvTest, TheUsersSettingsWin) {
  EXPECT_THAT(OpenMpEnvToSet(Env({{"OMP_WAIT_POLICY", "passive"}})).value(), IsEmpty());
  EXPECT_THAT(OpenMpEnvToSet(Env({{"GOMP_SPINCOUNT", "100"}, {"GRAPHD_OPENMP_SPIN", "7"}})).value(), IsEmpty());
}

TEST(OpenMpEnvTest, GraphdOpenMpSpinChoosesOrTurnsOff) {
  EXPECT_THAT(OpenMpEnvToSet(Env({{"GRAPHD_OPENMP_SPIN", "0"}})).value(), IsEmpty());
  EXPECT_THAT(OpenMpEnvToSet(Env({{"GRAPHD_OPENMP_SPIN", "5000"}})).value(),
              ElementsAre(Pair("OMP_WAIT_POLICY", "active"), Pair("GOMP_SPINCOUNT", "5000")));
}

TEST(OpenMpEnvTest, BadSpinValuesAreErrors) {
  for (const char* bad : {"", "-1", "1e5", "fast", "99999999999999"}) {
    auto changes = OpenMpEnvToSet(Env({{"GRAPHD_OPENMP_SPIN", bad}}));
    ASSERT_FALSE(changes.ok()) << bad;
    EXPECT_EQ(changes.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(changes.status().message()), ::testing::HasSubstr("GRAPHD_OPENMP_SPIN must be"));
  }
}

}  // namespace
}  // namespace graphd::server
