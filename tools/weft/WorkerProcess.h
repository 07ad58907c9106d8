// `weft` running itself as a worker process. WEFT_BACKEND and WEFT_HW are read when
// libneuralnetworks.so loads, so one process serves one backend and configuration; commands that
// span several (validate, baselines) start a worker per point and read its JSON report.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace weft::tool {

struct WorkerSpec {
  std::vector<std::string> args;  // after the program name: the sub-command and its options
  std::string backend;            // WEFT_BACKEND for the worker
  std::string hw;                 // WEFT_HW: a configuration name or file
  std::string stdoutPath;         // the worker's standard output (its table); stderr is ours
  std::string what;               // for errors: what the worker computes
};

// Starts the worker and returns its process id.
pid_t startWorker(const WorkerSpec& spec);

// Waits for a worker started by startWorker; throws, naming spec.what and the log, when it
// did not exit with status 0.
void finishWorker(pid_t pid, const WorkerSpec& spec);

// startWorker then finishWorker.
void runWorker(const WorkerSpec& spec);

// What a failed `weft` child (a worker, a sweep point) said in its log: its "weft: ..." lines
// joined (each cut at 300 characters), else the log's last line.
std::string failureReason(const std::string& logPath);

}  // namespace weft::tool
