// What a log says at its end: the lines a failure message quotes from a tool's output.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace weft::common {

// The last `count` lines of the file at `path` (all of them when it has fewer; none when it
// cannot be read).
std::vector<std::string> tailLines(const std::string& path, size_t count);

// One pass over a log: the lines `match` picks, in order, and the last non-empty line.
struct LogScan {
  std::vector<std::string> matching;
  std::string lastNonEmpty;
};
LogScan scanLog(const std::string& path, const std::function<bool(const std::string&)>& match);

}  // namespace weft::common
