// Child processes of weft's host code: the on-demand builds (verilated RTL plugins, yosys
// synthesis) and the tool's workers, sweeps, Slurm commands and report script. One way to start a
// program with its environment and its output in a log, one way to wait for it, one PATH lookup.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace weft::common {

// How a child starts: `env` entries replace the parent's variables of the same names (the rest
// of the parent's environment is kept); an empty `logPath` leaves the child our stdout and
// stderr, else its stdout goes there (appended or truncated), and its stderr too when
// `stderrToLog`; stdin is ours unless `stdinFromDevNull`.
struct SpawnOptions {
  std::vector<std::pair<std::string, std::string>> env;
  std::string logPath;
  bool appendLog = false;
  bool stderrToLog = true;
  bool stdinFromDevNull = false;
};

struct ChildResult {
  int exitCode = -1;  // -1: killed by a signal
  int signal = 0;
};

// Starts `program` (a path, or a name looked up on PATH) with `args` (args[0] is its name).
// Returns the child's process id; throws std::runtime_error "cannot start <program>: <reason>".
pid_t startChild(const std::string& program, const std::vector<std::string>& args, const SpawnOptions& options = {});

// Waits for a child of startChild, through interrupted waits; throws std::runtime_error
// "waiting for <what>: <reason>" when it cannot (not our child).
ChildResult waitChild(pid_t pid, const std::string& what);

// startChild then waitChild.
ChildResult runChild(const std::string& program, const std::vector<std::string>& args, const SpawnOptions& options = {});

// Runs argv[0] (looked up on PATH) with argv, stdin from /dev/null and stdout and stderr
// appended to `log`; returns its exit status, or -1 when it could not run or was killed. The
// on-demand builds' form: a failure is a status, never an exception.
int runLogged(const std::vector<std::string>& argv, const std::string& log);

// The file `program` runs: itself when it holds a '/' (and is executable), else the first
// executable of that name on PATH; empty when there is none.
std::string findOnPath(const std::string& program);

// Whether `program` can be run: an executable path, or a name found on PATH.
bool onPath(const std::string& program);

}  // namespace weft::common
