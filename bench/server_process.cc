#include "bench/server_process.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "clients/cpp/graphd_client.h"

namespace graphd::bench {
namespace {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace

std::string ExecutableDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, n);
  return path.substr(0, path.rfind('/'));
}

absl::StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::Start(
    const std::string& binary, std::vector<std::string> extra_args) {
  std::string target = absl::StrCat("127.0.0.1:", FreePort());
  // Audit lines are formatted and written as by any server, to /dev/null instead of
  // filling the benchmark's output with one line per call.
  std::vector<std::string> args = {binary, "--listen", target, "--log-level", "warn", "--audit-log", "/dev/null"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  std::unique_ptr<ServerProcess> proc(new ServerProcess(pid, target));
  client::Client probe(target, {.timeout = std::chrono::milliseconds(500)});
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < give_up) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      proc->pid_ = -1;
      return absl::UnavailableError(absl::StrCat(binary, " exited during start-up"));
    }
    auto health = probe.Health();
    if (health.ok() && *health == "SERVING") return proc;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError(absl::StrCat(binary, " did not become SERVING in 20 s"));
}

ServerProcess::~ServerProcess() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status;
  waitpid(pid_, &status, 0);
}

}  // namespace graphd::bench
