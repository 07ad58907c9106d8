// A whole file as a string, or an error that names it: what the tool's commands read (layer
// sets, reports of worker processes, baselines).
#pragma once

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace weft::tool {

inline std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read '{}'", path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace weft::tool
