// Host processes and file locks, shared by the on-demand builds: the verilated RTL plugins
// (sim/src/rtl/plugin_builder.cpp) and the yosys synthesis behind the area figures
// (tools/codesign/Synthesis.cpp). Both run a tool with its output in a log, look for tools on
// PATH, and serialize builds of one key across processes with a lock file.
#pragma once

#include <string>
#include <vector>

namespace weft::host {

// Runs argv[0] (looked up on PATH) with argv, stdin from /dev/null and stdout and stderr
// appended to `log`; returns its exit status, or -1 when it could not run or was killed.
int runLogged(const std::vector<std::string>& argv, const std::string& log);

// Whether `program` can be run: an executable path, or a name found on PATH.
bool onPath(const std::string& program);

// The file `program` runs: itself when it holds a '/', else the first executable of that name on
// PATH; empty when there is none.
std::string findOnPath(const std::string& program);

// Holds an exclusive flock(2) on `path` (created when missing) for its lifetime: one build of
// a key at a time across processes and threads.
class FileLock {
 public:
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace weft::host
