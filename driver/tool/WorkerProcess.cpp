#include "WorkerProcess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

extern char** environ;

namespace weft::tool {

pid_t startWorker(const WorkerSpec& spec) {
  std::vector<std::string> args = {"weft"};
  args.insert(args.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "WEFT_BACKEND=", 13) != 0 && std::strncmp(*e, "WEFT_HW=", 8) != 0) env.emplace_back(*e);
  }
  env.push_back("WEFT_BACKEND=" + spec.backend);
  env.push_back("WEFT_HW=" + spec.hw);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, spec.stdoutPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error(fmt::format("cannot start a worker for {}: {}", spec.what, std::strerror(rc)));
  return pid;
}

void finishWorker(pid_t pid, const WorkerSpec& spec) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("lost the worker for {}", spec.what));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(fmt::format("the {} worker for {} failed (exit status {}); its output is in {} and above",
                                         spec.backend, spec.what, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                                         spec.stdoutPath));
  }
}

void runWorker(const WorkerSpec& spec) { finishWorker(startWorker(spec), spec); }

}  // namespace weft::tool
