// The `weft` binary run as a user runs it: a process with arguments and environment, judged by
// its exit code and its output (stdout and stderr together). weftBinary() comes from CMake.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include "ToolTestPaths.h"

namespace weft::tool::test {

struct ProcessResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr together
};

// `env`: assignments put before the command ("WEFT_BACKEND=approx"), as a shell reads them.
inline ProcessResult runWeft(const std::string& args, const std::string& env = "") {
  const std::string cmd = env + " " + weftBinary() + " " + args + " 2>&1";
  ProcessResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace weft::tool::test
