#include "Subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace weft::tool {

pid_t startChild(const std::string& program, const std::vector<std::string>& args,
                 const std::vector<std::pair<std::string, std::string>>& env, const std::string& logPath,
                 bool stderrToLog) {
  std::vector<std::string> envStrings;
  for (char** e = environ; *e != nullptr; ++e) {
    bool replaced = false;
    for (const auto& [name, value] : env) replaced = replaced || std::strncmp(*e, (name + "=").c_str(), name.size() + 1) == 0;
    if (!replaced) envStrings.emplace_back(*e);
  }
  for (const auto& [name, value] : env) envStrings.push_back(name + "=" + value);
  std::vector<std::string> argStrings = args;
  std::vector<char*> argv, envp;
  for (auto& a : argStrings) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!logPath.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (stderrToLog) posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  pid_t pid = 0;
  // A bare name is looked up in PATH (sbatch, squeue), a path is used as it is.
  const int rc = program.find('/') == std::string::npos
                     ? posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data())
                     : posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error(fmt::format("cannot start {}: {}", program, std::strerror(rc)));
  return pid;
}

ChildResult waitChild(pid_t pid, const std::string& program) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("waiting for {}: {}", program, std::strerror(errno)));
  }
  ChildResult r;
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

ChildResult runChild(const std::string& program, const std::vector<std::string>& args,
                     const std::vector<std::pair<std::string, std::string>>& env, const std::string& logPath) {
  return waitChild(startChild(program, args, env, logPath), program);
}

std::string failureReason(const std::string& logPath) {
  std::ifstream in(logPath);
  std::string line, last, reason;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.rfind("weft:", 0) == 0) reason += (reason.empty() ? "" : " | ") + line.substr(0, 300);
  }
  return reason.empty() ? last.substr(0, 300) : reason;
}

}  // namespace weft::tool
