#include "WorkerProcess.h"

#include <fmt/format.h>

#include <stdexcept>

#include "Subprocess.h"

namespace weft::tool {

pid_t startWorker(const WorkerSpec& spec) {
  std::vector<std::string> args = {"weft"};
  args.insert(args.end(), spec.args.begin(), spec.args.end());
  // Its table to the log, its progress and errors to our stderr.
  return startChild("/proc/self/exe", args, {{"WEFT_BACKEND", spec.backend}, {"WEFT_HW", spec.hw}}, spec.stdoutPath,
                    /*stderrToLog=*/false);
}

void finishWorker(pid_t pid, const WorkerSpec& spec) {
  const ChildResult r = waitChild(pid, "the worker for " + spec.what);
  if (r.exitCode != 0) {
    throw std::runtime_error(fmt::format("the {} worker for {} failed (exit status {}); its output is in {} and above",
                                         spec.backend, spec.what, r.exitCode, spec.stdoutPath));
  }
}

void runWorker(const WorkerSpec& spec) { finishWorker(startWorker(spec), spec); }

}  // namespace weft::tool
