#include "server/models/repository.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::server::models {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class RepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("graphd-repo-test-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const fs::path& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  std::string Error(const std::string& config) {
    Write("m/1/model.onnx", "x");
    Write("m/config.pbtxt", config);
    auto read = ReadModel(root_.string(), "m");
    return read.ok() ? "" : std::string(read.status().message());
  }
  fs::path root_;
};

TEST_F(RepositoryTest, ListsModelDirectoriesWithValidNames) {
  Write("b/1/model.onnx", "x");
  Write("a/1/model.py", "x");
  Write(".hidden/1/model.onnx", "x");
  Write("not-a-dir", "x");
  auto names = ListModels(root_.string());
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ::testing::ElementsAre("a", "b"));
  EXPECT_FALSE(ListModels((root_ / "missing").string()).ok());
}

TEST_F(RepositoryTest, DefaultPolicyServesTheHighestVersion) {
  Write("m/1/model.onnx", "x");
  Write("m/3/model.graphdef", "x");
  Write("m/not-a-version/model.onnx", "x");
  auto m = ReadModel(root_.string(), "m");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->versions.size(), 1u);
  EXPECT_EQ(m->versions.begin()->first, 3);
  EXPECT_EQ(m->versions.begin()->second.kind, ModelKind::kGraphDef);
}

TEST_F(RepositoryTest, VersionPolicies) {
  Write("m/1/model.onnx", "x");
  Write("m/2/model.onnx", "x");
  Write("m/5/model.onnx", "x");
  Write("m/config.pbtxt", "version_policy { all {} }");
  EXPECT_EQ(ReadModel(root_.string(), "m")->versions.size(), 3u);
  Write("m/config.pbtxt", "version_policy { latest { num_versions: 2 } }");
  auto latest = ReadModel(root_.string(), "m");
  ASSERT_TRUE(latest.ok());
  EXPECT_TRUE(latest->versions.contains(2) && latest->versions.contains(5));
  Write("m/config.pbtxt", "version_policy { specific { versions: [1, 4] } }");
  auto specific = ReadModel(root_.string(), "m");
  ASSERT_FALSE(specific.ok());
  EXPECT_THAT(specific.status().message(), HasSubstr("version 4"));
}

TEST_F(RepositoryTest, ConfigErrorsNameTheFileAndTheProblem) {
  EXPECT_THAT(Error("bogus: 1"), HasSubstr("config.pbtxt:1:"));
  EXPECT_THAT(Error("name: \"other\""), HasSubstr("differs from the model's directory"));
  EXPECT_THAT(Error("max_batch_size: -1"), HasSubstr("max_batch_size"));
  EXPECT_THAT(Error("input [ { name: \"x\" } ]"), HasSubstr("data_type must be set"));
  EXPECT_THAT(Error("input [ { name: \"x\" data_type: TYPE_FP32 dims: [ -2 ] } ]"), HasSubstr("dims must be -1"));
  EXPECT_THAT(Error("input [ { name: \"x\" data_type: TYPE_FP32 }, { name: \"x\" data_type: TYPE_FP32 } ]"),
              HasSubstr("appears twice"));
  EXPECT_THAT(Error("dynamic_batching { }"), HasSubstr("needs max_batch_size"));
  EXPECT_THAT(Error("max_batch_size: 4 dynamic_batching { preferred_batch_size: 8 }"), HasSubstr("preferred_batch_size 8"));
  EXPECT_THAT(Error("version_policy { latest { } }"), HasSubstr("num_versions"));
  EXPECT_THAT(Error("instance_group [ { kind: KIND_MODEL } ]"), HasSubstr("KIND_MODEL is not supported"));
  EXPECT_THAT(Error("instance_group [ { kind: KIND_GPU gpus: [ 1 ] } ]"), HasSubstr("gpus [1]"));
  EXPECT_THAT(Error("instance_group [ { kind: KIND_CPU gpus: [ 0 ] } ]"), HasSubstr("gpus is for kind KIND_GPU"));
  EXPECT_THAT(Error("instance_group [ { kind: KIND_GPU }, { kind: KIND_CPU } ]"), HasSubstr("same kind"));
  EXPECT_THAT(Error("instance_group [ { count: 65 } ]"), HasSubstr("count"));
  EXPECT_THAT(Error("platform: \"graphd_function\""), HasSubstr("does not match"));
  EXPECT_EQ(Error("platform: \"onnxruntime_onnx\" max_batch_size: 8"), "");
}

TEST_F(RepositoryTest, InstanceGroupsNameWhereTheModelRuns) {
  Write("m/1/model.onnx", "x");
  auto kind_of = [&](const std::string& config) {
    Write("m/config.pbtxt", config);
    auto read = ReadModel(root_.string(), "m");
    EXPECT_TRUE(read.ok()) << read.status();
    return read.ok() ? InstanceKindOf(read->config) : InstanceKind::kAuto;
  };
  EXPECT_EQ(kind_of(""), InstanceKind::kAuto);
  EXPECT_EQ(kind_of("instance_group [ { count: 2 } ]"), InstanceKind::kAuto);
  EXPECT_EQ(kind_of("instance_group [ { kind: KIND_CPU count: 2 } ]"), InstanceKind::kCpu);
  EXPECT_EQ(kind_of("instance_group [ { kind: KIND_GPU gpus: [ 0 ] }, { kind: KIND_GPU count: 2 } ]"),
            InstanceKind::kGpu);
  EXPECT_EQ(InstanceKindName(InstanceKind::kGpu), "gpu");
}

TEST_F(RepositoryTest, VersionsNeedExactlyOneModelFile) {
  Write("m/1/notes.txt", "x");
  EXPECT_THAT(std::string(ReadModel(root_.string(), "m").status().message()), HasSubstr("no model file"));
  Write("m/1/model.onnx", "x");
  Write("m/1/model.py", "x");
  EXPECT_THAT(std::string(ReadModel(root_.string(), "m").status().message()), HasSubstr("more than one model file"));
}

TEST_F(RepositoryTest, NamesNeverLeaveTheRepository) {
  EXPECT_FALSE(ValidModelName("../etc"));
  EXPECT_FALSE(ValidModelName("a/b"));
  EXPECT_FALSE(ValidModelName(".."));
  EXPECT_FALSE(ValidModelName(""));
  EXPECT_TRUE(ValidModelName("resnet-18_v2.onnx"));
  EXPECT_EQ(ReadModel(root_.string(), "../x").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadModel(root_.string(), "absent").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(RepositoryTest, ModelFilesAreBounded) {
  Write("big", std::string(100, 'x'));
  auto read = ReadModelFile((root_ / "big").string(), 10);
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("over the limit"));
  EXPECT_EQ(ReadModelFile((root_ / "big").string(), 100)->size(), 100u);
}

}  // namespace
}  // namespace graphd::server::models
