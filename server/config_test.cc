#include "server/config.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::server {
namespace {

using ::testing::HasSubstr;

TEST(ValidateTest, DefaultsAreValid) {
  EXPECT_TRUE(Validate(ServerOptions()).ok());
  ServerOptions edge;
  edge.max_message_bytes = 1024;
  edge.session_idle_timeout_seconds = 0;
  edge.cpu_threads = 0;
  edge.drain_seconds = 0;
  edge.log_level = "off";
  edge.listen = "[::]:0";
  EXPECT_TRUE(Validate(edge).ok());
  edge.max_message_bytes = INT32_MAX;
  EXPECT_TRUE(Validate(edge).ok());
}

void ExpectRejected(void (*mutate)(ServerOptions&), const std::string& flag) {
  ServerOptions o;
  mutate(o);
  Status s = Validate(o);
  ASSERT_FALSE(s.ok()) << flag;
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(flag));
}

TEST(ValidateTest, RejectsEachBadField) {
  ExpectRejected([](ServerOptions& o) { o.listen = ""; }, "--listen");
  ExpectRejected([](ServerOptions& o) { o.listen = "localhost"; }, "--listen");
  ExpectRejected([](ServerOptions& o) { o.listen = "localhost:"; }, "--listen");
  ExpectRejected([](ServerOptions& o) { o.log_level = "loud"; }, "--log-level");
  ExpectRejected([](ServerOptions& o) { o.max_sessions = 0; }, "--max-sessions");
  ExpectRejected([](ServerOptions& o) { o.session_idle_timeout_seconds = -1; },
                 "--session-idle-timeout");
  ExpectRejected([](ServerOptions& o) { o.max_message_bytes = 1023; }, "--max-message-bytes");
  ExpectRejected([](ServerOptions& o) { o.max_message_bytes = int64_t{INT32_MAX} + 1; },
                 "--max-message-bytes");
  ExpectRejected([](ServerOptions& o) { o.cpu_threads = -1; }, "--cpu-threads");
  ExpectRejected([](ServerOptions& o) { o.drain_seconds = -5; }, "--drain-seconds");
  ExpectRejected([](ServerOptions& o) { o.malloc_arenas = -1; }, "--malloc-arenas");
  ExpectRejected([](ServerOptions& o) { o.inline_run_us = -1; }, "--inline-run-us");
  ExpectRejected([](ServerOptions& o) { o.openmp_teams = "one"; }, "--openmp-teams must be single or per-worker");
  ExpectRejected([](ServerOptions& o) { o.gpu = "on"; }, "--gpu must be auto or off");
  ExpectRejected([](ServerOptions& o) { o.function_cache_entries = 0; }, "--function-cache-entries");
  ExpectRejected([](ServerOptions& o) { o.function_cache_mb = -1; }, "--function-cache-mb");
  ExpectRejected([](ServerOptions& o) { o.buffer_cache_mb = -1; }, "--buffer-cache-mb");
  ExpectRejected([](ServerOptions& o) { o.malloc_arenas = 5000; }, "--malloc-arenas");
  // Past ten years the timeout would overflow the clock's nanoseconds.
  ExpectRejected([](ServerOptions& o) { o.session_idle_timeout_seconds = 10000000000; },
                 "--session-idle-timeout");
  ExpectRejected([](ServerOptions& o) { o.max_tensor_bytes = 100; }, "--max-tensor-bytes");
  ExpectRejected([](ServerOptions& o) { o.disabled_passes = {"cse", "fusion"}; }, "--disable-passes");
  ExpectRejected([](ServerOptions& o) { o.memory_limit = "huge"; }, "--memory-limit");
  ExpectRejected([](ServerOptions& o) { o.memory_wait_ms = -1; }, "--memory-wait-ms");
  ExpectRejected([](ServerOptions& o) { o.log_format = "xml"; }, "--log-format");
  ExpectRejected([](ServerOptions& o) { o.audit_log = ""; }, "--audit-log");
}

class ParseCommandLineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* env :
         {"GRAPHD_LISTEN", "GRAPHD_CONFIG", "GRAPHD_LOG_LEVEL", "GRAPHD_MAX_SESSIONS",
          "GRAPHD_SESSION_IDLE_TIMEOUT", "GRAPHD_MAX_MESSAGE_BYTES", "GRAPHD_CPU_THREADS",
          "GRAPHD_DRAIN_SECONDS", "GRAPHD_MAX_TENSOR_BYTES", "GRAPHD_DISABLE_PASSES", "GRAPHD_MEMORY_LIMIT",
          "GRAPHD_MEMORY_WAIT_MS", "GRAPHD_LOG_FORMAT", "GRAPHD_AUDIT_LOG"}) {
      unsetenv(env);
    }
  }
  void TearDown() override {
    unsetenv("GRAPHD_MAX_SESSIONS");
    unsetenv("GRAPHD_DISABLE_PASSES");
  }

  StatusOr<ServerOptions> Parse(std::vector<std::string> args) {
    args.insert(args.begin(), "graphd");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    exit_code_ = -1;
    return ParseCommandLine(static_cast<int>(args.size()), argv.data(), &exit_code_);
  }
  std::string WriteFile(const std::string& name, const std::string& text) {
    std::string path = ::testing::TempDir() + "/graphd_config_test_" + name;
    std::ofstream(path) << text;
    return path;
  }

  int exit_code_ = -1;
};

TEST_F(ParseCommandLineTest, Defaults) {
  auto o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(exit_code_, 0);
  ServerOptions d;
  EXPECT_EQ(o->listen, d.listen);
  EXPECT_EQ(o->log_level, "info");
  EXPECT_EQ(o->max_sessions, 1024);
  EXPECT_EQ(o->session_idle_timeout_seconds, 3600);
  EXPECT_EQ(o->max_message_bytes, 64 << 20);
  EXPECT_EQ(o->cpu_threads, 0);
  EXPECT_EQ(o->drain_seconds, 10);
  EXPECT_EQ(o->malloc_arenas, 1);
  EXPECT_EQ(o->inline_run_us, 200);
  EXPECT_EQ(o->gpu, "auto");
  EXPECT_EQ(o->function_cache_entries, 4096);
  EXPECT_EQ(o->function_cache_mb, 4096);
  EXPECT_EQ(o->buffer_cache_mb, 1024);
}

TEST_F(ParseCommandLineTest, Flags) {
  auto o = Parse({"--listen", "0.0.0.0:9000", "--log-level=debug", "--max-sessions", "5",
                  "--session-idle-timeout", "0", "--max-message-bytes", "2048", "--cpu-threads=3",
                  "--drain-seconds", "1", "--malloc-arenas=0", "--inline-run-us", "0", "--gpu", "off",
                  "--function-cache-entries", "16", "--function-cache-mb=64",
                  "--buffer-cache-mb", "0", "--openmp-teams", "per-worker"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->openmp_teams, "per-worker");
  EXPECT_EQ(exit_code_, 0);
  EXPECT_EQ(o->listen, "0.0.0.0:9000");
  EXPECT_EQ(o->log_level, "debug");
  EXPECT_EQ(o->max_sessions, 5);
  EXPECT_EQ(o->session_idle_timeout_seconds, 0);
  EXPECT_EQ(o->max_message_bytes, 2048);
  EXPECT_EQ(o->cpu_threads, 3);
  EXPECT_EQ(o->drain_seconds, 1);
  EXPECT_EQ(o->malloc_arenas, 0);
  EXPECT_EQ(o->inline_run_us, 0);
  EXPECT_EQ(o->gpu, "off");
  EXPECT_EQ(o->function_cache_entries, 16);
  EXPECT_EQ(o->function_cache_mb, 64);
  EXPECT_EQ(o->buffer_cache_mb, 0);
}

TEST_F(ParseCommandLineTest, ConfigFileWithFlagsOverriding) {
  std::string path = WriteFile("good.txtpb",
                               "# a comment\n"
                               "listen: \"10.1.2.3:7000\"\n"
                               "log_level: \"warn\"\n"
                               "max_sessions: 9\n"
                               "session_idle_timeout_seconds: 60\n"
                               "cpu_threads: 2\n"
                               "drain_seconds: 4\n"
                               "malloc_arenas: 3\n"
                               "inline_run_us: 50\n"
                               "function_cache_entries: 100\n"
                               "buffer_cache_mb: 32\n");
  auto file_only = Parse({"--config", path});
  ASSERT_TRUE(file_only.ok()) << file_only.status();
  EXPECT_EQ(file_only->listen, "10.1.2.3:7000");
  EXPECT_EQ(file_only->log_level, "warn");
  EXPECT_EQ(file_only->max_sessions, 9);
  EXPECT_EQ(file_only->session_idle_timeout_seconds, 60);
  EXPECT_EQ(file_only->cpu_threads, 2);
  EXPECT_EQ(file_only->drain_seconds, 4);
  EXPECT_EQ(file_only->malloc_arenas, 3);
  EXPECT_EQ(file_only->function_cache_entries, 100);
  EXPECT_EQ(file_only->inline_run_us, 50);
  EXPECT_EQ(file_only->buffer_cache_mb, 32);
  EXPECT_EQ(file_only->max_message_bytes, 64 << 20);  // not in the file: default

  auto o = Parse({"--max-sessions", "4", "--config", path, "--log-level", "error"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(exit_code_, 0);
  EXPECT_EQ(o->max_sessions, 4);
  EXPECT_EQ(o->log_level, "error");
  EXPECT_EQ(o->listen, "10.1.2.3:7000");
  EXPECT_EQ(o->cpu_threads, 2);

  // The environment also overrides the file.
  setenv("GRAPHD_MAX_SESSIONS", "11", 1);
  auto env = Parse({"--config", path});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(env->max_sessions, 11);
  EXPECT_EQ(env->cpu_threads, 2);
}

TEST_F(ParseCommandLineTest, ConfigFileZeroValuesAreKept) {
  // A field present in the file with value 0 means 0, not "use the default".
  std::string path = WriteFile("zeros.txtpb",
                               "session_idle_timeout_seconds: 0\n"
                               "cpu_threads: 0\n"
                               "drain_seconds: 0\n"
                               "max_tensor_bytes: 4096\n");
  auto o = Parse({"--config", path});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->session_idle_timeout_seconds, 0);
  EXPECT_EQ(o->cpu_threads, 0);
  EXPECT_EQ(o->drain_seconds, 0);
  EXPECT_EQ(o->max_tensor_bytes, 4096);
}

TEST_F(ParseCommandLineTest, DisablePasses) {
  auto none = Parse({});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->disabled_passes.empty());
  auto flag = Parse({"--disable-passes=cse,dce"});
  ASSERT_TRUE(flag.ok()) << flag.status();
  EXPECT_THAT(flag->disabled_passes, ::testing::ElementsAre("cse", "dce"));
  std::string path = WriteFile("passes.txtpb", "disable_passes: \"constant_folding\"\n");
  auto file = Parse({"--config", path});
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_THAT(file->disabled_passes, ::testing::ElementsAre("constant_folding"));
  setenv("GRAPHD_DISABLE_PASSES", "dce", 1);
  auto env = Parse({"--config", path});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_THAT(env->disabled_passes, ::testing::ElementsAre("dce"));
  auto bad = Parse({"--disable-passes", "constant_folding,fusion"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(exit_code_, 2);
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown pass 'fusion' (passes: constant_folding, algebraic_simplification, cse, dce, "
                                                        "layernorm_fusion, gelu_fusion, "
                                                        "batchnorm_folding, conv_add_fusion, conv_activation_fusion, matmul_fusion, conv_layout, "
                                                        "conv_input_scale, elementwise_fusion)"));
}

TEST_F(ParseCommandLineTest, UnknownFlag) {
  auto o = Parse({"--bogus", "1"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(exit_code_, 2);
  EXPECT_THAT(o.status().message(), HasSubstr("bogus"));
}

TEST_F(ParseCommandLineTest, BadFlagValues) {
  auto o = Parse({"--max-sessions", "many"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(exit_code_, 2);
  auto zero = Parse({"--max-sessions", "0"});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(exit_code_, 2);
  EXPECT_THAT(zero.status().message(), HasSubstr("--max-sessions"));
  auto listen = Parse({"--listen", "nowhere"});
  ASSERT_FALSE(listen.ok());
  EXPECT_EQ(exit_code_, 2);
  EXPECT_THAT(listen.status().message(), HasSubstr("--listen"));
}

TEST_F(ParseCommandLineTest, MalformedConfigFile) {
  std::string path = WriteFile("bad.txtpb", "listen: \"a:1\"\nmax_sessions: lots\n");
  auto o = Parse({"--config", path});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(exit_code_, 2);
  EXPECT_THAT(o.status().message(), HasSubstr("--config"));
  EXPECT_THAT(o.status().message(), HasSubstr("line 2"));

  std::string unknown = WriteFile("unknown.txtpb", "no_such_field: 1\n");
  auto u = Parse({"--config", unknown});
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(exit_code_, 2);

  std::string invalid = WriteFile("invalid.txtpb", "log_level: \"loud\"\n");
  auto v = Parse({"--config", invalid});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(exit_code_, 2);
  EXPECT_THAT(v.status().message(), HasSubstr("--log-level"));

  auto missing = Parse({"--config", ::testing::TempDir() + "/graphd_no_such_config.txtpb"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(exit_code_, 2);
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot read"));
}

TEST_F(ParseCommandLineTest, HelpAndVersionExitZero) {
  auto help = Parse({"--help"});
  EXPECT_FALSE(help.ok());
  EXPECT_EQ(exit_code_, 0);
  auto version = Parse({"--version"});
  EXPECT_FALSE(version.ok());
  EXPECT_EQ(exit_code_, 0);
}

TEST_F(ParseCommandLineTest, MemoryAndLogSettingsFromFileAndFlags) {
  std::string path = WriteFile("memory.txtpb",
                               "memory_limit: \"2G\"\n"
                               "memory_wait_ms: 250\n"
                               "log_format: \"json\"\n"
                               "audit_log: \"off\"\n");
  auto file_only = Parse({"--config", path});
  ASSERT_TRUE(file_only.ok()) << file_only.status();
  EXPECT_EQ(file_only->memory_limit, "2G");
  EXPECT_EQ(file_only->memory_wait_ms, 250);
  EXPECT_EQ(file_only->log_format, "json");
  EXPECT_EQ(file_only->audit_log, "off");
  auto flags = Parse({"--config", path, "--memory-limit", "50%", "--audit-log", "-", "--log-format", "text"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->memory_limit, "50%");
  EXPECT_EQ(flags->audit_log, "-");
  EXPECT_EQ(flags->log_format, "text");
  auto defaults = Parse({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->memory_limit, "auto");
  EXPECT_EQ(defaults->memory_wait_ms, 1000);
  EXPECT_EQ(defaults->audit_log, "-");
  auto bad = Parse({"--memory-limit", "12Q"});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(exit_code_, 2);
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown unit 'Q'"));
}

}  // namespace
}  // namespace graphd::server
