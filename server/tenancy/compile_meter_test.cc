#include "server/tenancy/compile_meter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace graphd::server::tenancy {
namespace {

using ::testing::HasSubstr;
using Clock = CompileMeter::Clock;
using std::chrono::seconds;

TEST(CompileMeter, RefusesOnceTheMinutesCompileTimeReachesTheQuota) {
  CompileMeter meter("a");
  meter.set_quota_seconds(2);
  const Clock::time_point t0 = Clock::now();
  EXPECT_TRUE(meter.Admit(t0).ok());
  meter.Record(1'500'000, t0);
  EXPECT_TRUE(meter.Admit(t0 + seconds(1)).ok());  // 1.5 s < 2 s
  meter.Record(1'000'000, t0 + seconds(10));
  Status refused = meter.Admit(t0 + seconds(20));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(), HasSubstr("tenant 'a' spent 2.5 s compiling in the last minute"));
  EXPECT_THAT(refused.message(), HasSubstr("max_compile_seconds_per_minute quota is 2"));
  EXPECT_THAT(refused.message(), HasSubstr("again in 40 s"));  // when the first compile leaves the window
  EXPECT_TRUE(meter.Admit(t0 + seconds(61)).ok());
  EXPECT_EQ(meter.used_us(t0 + seconds(61)), 1'000'000);
  EXPECT_EQ(meter.used_us(t0 + seconds(71)), 0);
}

TEST(CompileMeter, NoQuotaAdmitsEverything) {
  CompileMeter meter("free");
  meter.Record(3'600'000'000);
  EXPECT_TRUE(meter.Admit().ok());
}

TEST(CompileMeter, TheThreadsMeterSeesOnlyOutermostCompiles) {
  CompileMeter meter("a");
  meter.set_quota_seconds(1);
  EXPECT_TRUE(AdmitCompile().ok());  // no meter: nothing metered
  CompileEnded(5'000'000);
  {
    ScopedCompileMeter scope(&meter);
    ASSERT_TRUE(AdmitCompile().ok());
    ASSERT_TRUE(AdmitCompile().ok());  // nested: not checked
    CompileEnded(700'000);             // nested: in the outer one's time
    CompileEnded(800'000);
    EXPECT_EQ(meter.used_us(), 800'000);
    ASSERT_TRUE(AdmitCompile().ok());
    CompileEnded(400'000);
    EXPECT_EQ(AdmitCompile().code(), absl::StatusCode::kResourceExhausted);
  }
  EXPECT_EQ(CurrentCompileMeter(), nullptr);
}

}  // namespace
}  // namespace graphd::server::tenancy
