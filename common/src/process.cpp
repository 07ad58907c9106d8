#include "weft/common/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace weft::common {

namespace {

// The parent's environment with `env`'s names replaced by its values.
std::vector<std::string> childEnvironment(const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    bool replaced = false;
    for (const auto& [name, value] : env) replaced = replaced || std::strncmp(*e, (name + "=").c_str(), name.size() + 1) == 0;
    if (!replaced) out.emplace_back(*e);
  }
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

// posix_spawnp's result (0 or an errno value) and the child's id.
int spawn(const std::string& program, const std::vector<std::string>& args, const SpawnOptions& options, pid_t* pid) {
  std::vector<std::string> argStrings = args, envStrings = childEnvironment(options.env);
  std::vector<char*> argv, envp;
  for (auto& a : argStrings) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!options.logPath.empty()) {
    const int mode = O_WRONLY | O_CREAT | (options.appendLog ? O_APPEND : O_TRUNC);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.logPath.c_str(), mode, 0644);
    if (options.stderrToLog) posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  if (options.stdinFromDevNull) posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // A bare name is looked up on PATH (sbatch, yosys, cmake), a path is used as it is.
  const int rc = posix_spawnp(pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

// waitpid through EINTR: the status, or the errno value that stopped it.
int waitFor(pid_t pid, int* status) {
  while (waitpid(pid, status, 0) < 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

}  // namespace

pid_t startChild(const std::string& program, const std::vector<std::string>& args, const SpawnOptions& options) {
  pid_t pid = 0;
  if (const int rc = spawn(program, args, options, &pid); rc != 0) {
    throw std::runtime_error(fmt::format("cannot start {}: {}", program, std::strerror(rc)));
  }
  return pid;
}

ChildResult waitChild(pid_t pid, const std::string& what) {
  int status = 0;
  if (const int error = waitFor(pid, &status); error != 0) {
    throw std::runtime_error(fmt::format("waiting for {}: {}", what, std::strerror(error)));
  }
  ChildResult r;
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

ChildResult runChild(const std::string& program, const std::vector<std::string>& args, const SpawnOptions& options) {
  return waitChild(startChild(program, args, options), program);
}

int runLogged(const std::vector<std::string>& argv, const std::string& log) {
  if (argv.empty()) return -1;
  SpawnOptions options;
  options.logPath = log;
  options.appendLog = true;
  options.stdinFromDevNull = true;
  pid_t pid = 0;
  int status = 0;
  if (spawn(argv[0], argv, options, &pid) != 0 || waitFor(pid, &status) != 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string findOnPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0 ? program : std::string();
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    if (!d.empty() && ::access((d + "/" + program).c_str(), X_OK) == 0) return d + "/" + program;
  }
  return {};
}

bool onPath(const std::string& program) { return !findOnPath(program).empty(); }

}  // namespace weft::common
