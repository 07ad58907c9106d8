#include "WorkerProcess.h"

#include <fmt/format.h>

#include <stdexcept>

#include "weft/common/log_tail.h"
#include "weft/common/process.h"

namespace weft::tool {

pid_t startWorker(const WorkerSpec& spec) {
  std::vector<std::string> args = {"weft"};
  args.insert(args.end(), spec.args.begin(), spec.args.end());
  // Its table to the log, its progress and errors to our stderr.
  common::SpawnOptions options;
  options.env = {{"WEFT_BACKEND", spec.backend}, {"WEFT_HW", spec.hw}};
  options.logPath = spec.stdoutPath;
  options.stderrToLog = false;
  return common::startChild("/proc/self/exe", args, options);
}

void finishWorker(pid_t pid, const WorkerSpec& spec) {
  const common::ChildResult r = common::waitChild(pid, "the worker for " + spec.what);
  if (r.exitCode != 0) {
    throw std::runtime_error(fmt::format("the {} worker for {} failed (exit status {}); its output is in {} and above",
                                         spec.backend, spec.what, r.exitCode, spec.stdoutPath));
  }
}

void runWorker(const WorkerSpec& spec) { finishWorker(startWorker(spec), spec); }

std::string failureReason(const std::string& logPath) {
  const auto scan = common::scanLog(logPath, [](const std::string& line) { return line.rfind("weft:", 0) == 0; });
  std::string reason;
  for (const auto& line : scan.matching) reason += (reason.empty() ? "" : " | ") + line.substr(0, 300);
  return reason.empty() ? scan.lastNonEmpty.substr(0, 300) : reason;
}

}  // namespace weft::tool
