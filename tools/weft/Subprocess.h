// Runs a program as a child process with its own environment additions, its output (stdout and
// stderr) into a log file, and waits for it: how sweeps run one configuration per process.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace weft::tool {

struct ChildResult {
  int exitCode = -1;  // -1: killed by a signal
  int signal = 0;
};

// Starts `program` (a path, or a name looked up in PATH) with `args` (args[0] is its name); `env`
// entries replace the parent's variables of the same names; an empty `logPath` leaves the
// child our stdout and stderr, else its stdout goes there, and its stderr too when
// `stderrToLog`. Returns the child's process id; throws std::runtime_error when it cannot start.
pid_t startChild(const std::string& program, const std::vector<std::string>& args,
                 const std::vector<std::pair<std::string, std::string>>& env, const std::string& logPath,
                 bool stderrToLog = true);

// Waits for a child of startChild (`program` names it in errors).
ChildResult waitChild(pid_t pid, const std::string& program);

// startChild then waitChild.
ChildResult runChild(const std::string& program, const std::vector<std::string>& args,
                     const std::vector<std::pair<std::string, std::string>>& env, const std::string& logPath);

// What a failed `weft` child said: its "weft: ..." lines joined (each cut at 300 characters),
// else the log's last line.
std::string failureReason(const std::string& logPath);

}  // namespace weft::tool
