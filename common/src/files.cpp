#include "weft/common/files.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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
  // A regular file is read into a string of its size (a model of 100 MB takes 100 MB, not the
  // doubling buffer of a stream and a copy); what reports no size (a pipe, /proc) as a stream.
  in.seekg(0, std::ios::end);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  in.clear();
  std::string text;
  if (size > 0) {
    text.resize(static_cast<size_t>(size));
    in.seekg(0);
    in.read(text.data(), size);
    text.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    in.clear();
  } else {
    in.seekg(0);
  }
  std::ostringstream rest;  // whatever the size did not cover
  rest << in.rdbuf();
  text += std::move(rest).str();
  return text;
}

std::string readFileOrThrow(const std::string& path) {
  auto text = readFile(path);
  if (!text) throw std::runtime_error(fmt::format("cannot read '{}'", path));
  return std::move(*text);
}

bool writesInPlace(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return false;  // a new file
  if (S_ISLNK(st.st_mode)) return true;
  return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string tryWriteFileAtomically(const std::string& path, std::string_view text) {
  if (writesInPlace(path)) {  // `--json /dev/stdout`, a FIFO
    errno = 0;
    std::ofstream out(path, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (out.fail()) return fmt::format("cannot write '{}'{}", path, errno != 0 ? fmt::format(": {}", std::strerror(errno)) : "");
    return {};
  }
  static std::atomic<unsigned> counter{0};
  const std::string temporary = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  {
    errno = 0;
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (out.fail()) {
      const int error = errno;
      std::remove(temporary.c_str());
      return fmt::format("cannot write '{}' (through '{}'){}", path, temporary,
                         error != 0 ? fmt::format(": {}", std::strerror(error)) : "");
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
