// Whole-file reads, atomic writes and FNV-1a (weft/common/files.h, fnv1a.h), with their error
// paths: missing files, unwritable places, concurrent writers.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "TempDir.h"
#include "weft/common/files.h"
#include "weft/common/fnv1a.h"

namespace weft::common {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

TEST(Files, ReadsWhatWasWrittenByteForByte) {
  TempDir dir;
  const std::string path = dir / "data.bin";
  const std::string bytes("a\0b\r\n\xff", 6);
  writeFileAtomically(path, bytes);
  EXPECT_EQ(readFile(path), bytes);
  EXPECT_EQ(readFileOrThrow(path), bytes);
  writeFileAtomically(path, "");
  EXPECT_EQ(readFile(path), "");
}

// Files that report no size (procfs; pipes) are read whole as a stream; a large one whole too.
TEST(Files, ReadsFilesWithoutASizeAndLargeOnesWhole) {
  const auto status = readFile("/proc/self/status");
  ASSERT_TRUE(status.has_value());
  EXPECT_NE(status->find("Name:"), std::string::npos);
  TempDir dir;
  const std::string path = dir / "large.bin";
  std::string bytes(3 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 % 251);
  writeFileAtomically(path, bytes);
  EXPECT_EQ(readFile(path), bytes);
}

TEST(Files, AFileThatCannotBeReadIsNulloptOrAnErrorNamingIt) {
  TempDir dir;
  EXPECT_EQ(readFile(dir / "missing"), std::nullopt);
  try {
    readFileOrThrow(dir / "missing");
    FAIL() << "read a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read '" + (dir / "missing") + "'");
  }
}

TEST(Files, AnAtomicWriteReplacesTheFileAndLeavesNoTemporary) {
  TempDir dir;
  const std::string path = dir / "out.json";
  writeFileAtomically(path, "old");
  EXPECT_EQ(tryWriteFileAtomically(path, "new"), "");
  EXPECT_EQ(readFile(path), "new");
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"out.json"});
}

TEST(Files, AWriteThatCannotHappenSaysSoAndLeavesTheFileAsItWas) {
  TempDir dir;
  const std::string missingDir = dir / "missing/out.json";
  const std::string error = tryWriteFileAtomically(missingDir, "text");
  EXPECT_EQ(error.rfind("cannot write '" + missingDir + "' (through '" + missingDir + ".tmp.", 0), 0u) << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
  EXPECT_THROW(writeFileAtomically(missingDir, "text"), std::runtime_error);

  // A directory in the way: the temporary is written, the rename fails, and nothing is left.
  const std::string blocked = dir / "blocked";
  fs::create_directories(blocked + "/inside");
  const std::string renameError = tryWriteFileAtomically(blocked, "text");
  EXPECT_EQ(renameError.rfind("cannot rename '" + blocked + ".tmp.", 0), 0u) << renameError;
  EXPECT_NE(renameError.find("' to '" + blocked + "': "), std::string::npos) << renameError;
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"blocked"});

}

// `--json /dev/stdout` or a FIFO: the text goes through it, and it stays what it was.
TEST(Files, AnAtomicWriteToAPipeGoesThroughItAndLeavesIt) {
  TempDir dir;
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader's end open first (without waiting for a writer), so that the write neither blocks
  // nor, were it to put a file there instead, leaves the test waiting.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  EXPECT_EQ(tryWriteFileAtomically(fifo, "through the pipe"), "");
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"fifo"});

  // A symbolic link (/dev/stdout when standard output is a file: `weft ... --json /dev/stdout >
  // out.json`) is written through, and stays a link: a rename would put a file in its place.
  const std::string target = dir / "target.json", link = dir / "link.json";
  writeFileAtomically(target, "old");
  fs::create_symlink(target, link);
  EXPECT_EQ(tryWriteFileAtomically(link, "through the link"), "");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(readFile(target), "through the link");
}

TEST(Files, ConcurrentWritersNeverShareATemporary) {
  TempDir dir;
  const std::string path = dir / "results.csv";
  std::vector<std::thread> writers;
  std::vector<std::string> texts;
  for (int t = 0; t < 4; ++t) texts.push_back(std::string(100000, static_cast<char>('a' + t)));
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) EXPECT_EQ(tryWriteFileAtomically(path, texts[t]), "");
    });
  }
  for (auto& w : writers) w.join();
  const auto text = readFile(path);
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(std::find(texts.begin(), texts.end(), *text), texts.end()) << "a mix of writers' texts";
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"results.csv"});
}

TEST(Fnv1a, MatchesTheReferenceVectors) {
  // From the FNV reference (draft-eastlake-fnv): FNV-1a 64 of "", "a", "foobar".
  EXPECT_EQ(fnv1a(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a("foobar"), 0x85944171f73967e8ull);
  static_assert(fnv1a("a") == 0xaf63dc4c8601ec8cull, "usable at compile time");
}

TEST(Fnv1a, BytesAndWordsAreStepsOfOneRunningHash) {
  EXPECT_EQ(Fnv1a().bytes("foo").bytes("bar").value(), fnv1a("foobar"));
  Fnv1a byBytes, byWords;
  for (const char c : std::string("ab")) byBytes.byte(static_cast<uint8_t>(c));
  byWords.word('a').word('b');
  EXPECT_EQ(byBytes.value(), byWords.value());
  EXPECT_EQ(Fnv1a().littleEndianBytes(0x0102).value(),
            Fnv1a().bytes(std::string_view("\x02\x01\0\0\0\0\0\0", 8)).value());
  // A word is one step, not its eight bytes.
  EXPECT_NE(Fnv1a().word(0x0102).value(), Fnv1a().byte(0x02).byte(0x01).value());
  // Another basis gives another hash of the same bytes.
  EXPECT_NE(fnv1a("foobar", 1), fnv1a("foobar"));
  EXPECT_EQ(fnv1a("", 1), 1u);
}

}  // namespace
}  // namespace weft::common
