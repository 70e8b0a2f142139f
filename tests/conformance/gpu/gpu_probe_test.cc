// The GPU probe (executor/gpu/gpu_probe.h): on a machine without a GPU (the build
// machines) it finds none and says why; on a GPU machine (the device tool's H100) it
// lists each GPU with its name and memory.
#include "executor/gpu/gpu_probe.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::executor::gpu {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(GpuProbeTest, FindsGpusOrSaysWhyNot) {
  GpuProbe probe = ProbeGpus();
  if (probe.devices.empty()) {
    EXPECT_FALSE(probe.reason.empty());
    if (!BuiltWithCuda()) EXPECT_THAT(probe.reason, HasSubstr("built without CUDA"));
    else EXPECT_THAT(probe.reason, StartsWith("CUDA"));
    GTEST_SKIP() << "no GPU here: " << probe.reason;
  }
  EXPECT_TRUE(probe.reason.empty()) << probe.reason;
  for (size_t i = 0; i < probe.devices.size(); ++i) {
    const DeviceInfo& d = probe.devices[i];
    EXPECT_EQ(d.name, "/device:GPU:" + std::to_string(i));
    EXPECT_EQ(d.device_type, "GPU");
    EXPECT_GT(d.memory_limit, int64_t{1} << 30);
    EXPECT_THAT(d.description, HasSubstr("compute capability"));
  }
}

}  // namespace
}  // namespace graphd::executor::gpu
