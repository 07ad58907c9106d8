#include "weft/common/log_tail.h"

#include <deque>
#include <fstream>

namespace weft::common {

std::vector<std::string> tailLines(const std::string& path, size_t count) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(std::move(line));
    if (last.size() > count) last.pop_front();
  }
  return {last.begin(), last.end()};
}

LogScan scanLog(const std::string& path, const std::function<bool(const std::string&)>& match) {
  LogScan scan;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (match(line)) scan.matching.push_back(line);
    scan.lastNonEmpty = std::move(line);
  }
  return scan;
}

}  // namespace weft::common
