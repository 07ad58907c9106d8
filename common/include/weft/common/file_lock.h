// An exclusive lock on a file across processes and threads: one build of a key at a time.
#pragma once

#include <string>

namespace weft::common {

// Holds an exclusive flock(2) on `path` (created when missing) for its lifetime. A path that
// cannot be opened locks nothing (the work goes on unserialized rather than failing).
class FileLock {
 public:
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

}  // namespace weft::common
