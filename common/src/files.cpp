#include "weft/common/files.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace weft::common {

std::optional<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

std::string readFileOrThrow(const std::string& path) {
  auto text = readFile(path);
  if (!text) throw std::runtime_error(fmt::format("cannot read '{}'", path));
  return std::move(*text);
}

std::string tryWriteFileAtomically(const std::string& path, std::string_view text) {
  static std::atomic<unsigned> counter{0};
  const std::string temporary = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (out.fail()) {
      std::remove(temporary.c_str());
      return fmt::format("cannot write '{}'", temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    return fmt::format("cannot rename '{}' to '{}': {}", temporary, path, std::strerror(error));
  }
  return {};
}

void writeFileAtomically(const std::string& path, std::string_view text) {
  if (std::string error = tryWriteFileAtomically(path, text); !error.empty()) throw std::runtime_error(error);
}

}  // namespace weft::common
