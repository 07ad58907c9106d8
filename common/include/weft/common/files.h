// Whole files: read at once, written so that a reader never sees a partial one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace weft::common {

// The bytes of the file at `path`, or nullopt when it cannot be opened (callers name the file
// in their own error).
std::optional<std::string> readFile(const std::string& path);

// readFile, or std::runtime_error "cannot read '<path>'".
std::string readFileOrThrow(const std::string& path);

// Writes `text` to `path` through a temporary file beside it, unique to this process and call
// (<path>.tmp.<pid>.<n>), checked once flushed and closed, then renamed over `path`: concurrent
// writers never share a temporary, and a reader sees the old file or the whole new one. On
// failure the temporary is removed, `path` is left as it was, and the result says what went
// wrong ("cannot write '<path>' (through '<temporary>'): <reason>", "cannot rename '<temporary>' to
// '<path>': <reason>"). A path for which writesInPlace() holds (/dev/stdout, a FIFO, any
// symbolic link) is written in place: a rename would replace it with a file.
// empty on success.
std::string tryWriteFileAtomically(const std::string& path, std::string_view text);

// Whether `path` is a symbolic link (/dev/stdout, whatever standard output is) or a pipe, a
// terminal or a device (a FIFO): a writer goes through it in place, since a temporary renamed
// over it would put a file where the link or the pipe was.
bool writesInPlace(const std::string& path);

// tryWriteFileAtomically, throwing std::runtime_error with its message on failure.
void writeFileAtomically(const std::string& path, std::string_view text);

}  // namespace weft::common
