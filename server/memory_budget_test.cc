#include "server/memory_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace graphd::server {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kGiB = int64_t{1} << 30;

TEST(MemoryBudget, CapacityIsTheSmallerOfTheMachineAndItsCgroup) {
  const std::string meminfo = "MemTotal:       24576000 kB\nMemFree:  100 kB\n";
  std::string source;
  EXPECT_EQ(MemoryCapacityFrom(meminfo, "max\n", "", &source), int64_t{24576000} * 1024);
  EXPECT_THAT(source, HasSubstr("MemTotal"));
  EXPECT_EQ(MemoryCapacityFrom(meminfo, "4294967296\n", "", &source), 4 * kGiB);
  EXPECT_THAT(source, HasSubstr("memory.max"));
  EXPECT_EQ(MemoryCapacityFrom(meminfo, "", "2147483648\n", &source), 2 * kGiB);
  EXPECT_THAT(source, HasSubstr("memory.limit_in_bytes"));
  // cgroup v1 without a limit reports about 2^63; a cgroup larger than the machine counts for nothing.
  EXPECT_EQ(MemoryCapacityFrom(meminfo, "", "9223372036854771712\n"), int64_t{24576000} * 1024);
  EXPECT_EQ(MemoryCapacityFrom("MemTotal: 1024 kB\n", "4294967296", ""), 1024 * 1024);
  EXPECT_EQ(MemoryCapacityFrom("", "", "", &source), 0);
}

TEST(MemoryBudget, ParsesEveryForm) {
  EXPECT_EQ(*ParseMemoryLimit("off", 8 * kGiB), 0);
  EXPECT_EQ(*ParseMemoryLimit("0", 8 * kGiB), 0);
  EXPECT_EQ(*ParseMemoryLimit("auto", 10 * kGiB), 10 * kGiB * 80 / 100);
  EXPECT_EQ(*ParseMemoryLimit("50%", 8 * kGiB), 4 * kGiB);
  EXPECT_EQ(*ParseMemoryLimit("8G", 0), 8 * kGiB);
  EXPECT_EQ(*ParseMemoryLimit("512M", 0), int64_t{512} << 20);
  EXPECT_EQ(*ParseMemoryLimit("512MiB", 0), int64_t{512} << 20);
  EXPECT_EQ(*ParseMemoryLimit("2Gi", 0), 2 * kGiB);
  EXPECT_EQ(*ParseMemoryLimit("1t", 0), int64_t{1} << 40);
  EXPECT_EQ(*ParseMemoryLimit("1073741824", 0), kGiB);
}

TEST(MemoryBudget, RejectsNonsenseNamingTheFlag) {
  for (const char* bad : {"lots", "12X", "-5G", "150%", "0%", "G", "100", "99999999999999999T"}) {
    auto parsed = ParseMemoryLimit(bad, 8 * kGiB);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr("--memory-limit"));
  }
  EXPECT_THAT(ParseMemoryLimit("auto", 0).status().message(), HasSubstr("could not be read"));
}

}  // namespace
}  // namespace graphd::server
