// Child processes, PATH lookup and file locks (weft/common/process.h, file_lock.h), with their
// error paths: programs that do not exist, fail, are killed, or are not our children.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "TempDir.h"
#include "weft/common/file_lock.h"
#include "weft/common/files.h"
#include "weft/common/log_tail.h"
#include "weft/common/process.h"

namespace weft::common {
namespace {

using test::TempDir;

TEST(Process, RunsAProgramAndReportsItsExitCode) {
  EXPECT_EQ(runChild("true", {"true"}).exitCode, 0);
  const ChildResult r = runChild("/bin/sh", {"sh", "-c", "exit 7"});
  EXPECT_EQ(r.exitCode, 7);
  EXPECT_EQ(r.signal, 0);
}

TEST(Process, AKilledChildHasItsSignalAndNoExitCode) {
  const ChildResult r = runChild("/bin/sh", {"sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.exitCode, -1);
  EXPECT_EQ(r.signal, SIGTERM);
}

TEST(Process, AProgramThatDoesNotExistIsAnErrorNamingIt) {
  try {
    startChild("weft-no-such-program", {"weft-no-such-program"});
    FAIL() << "started a program that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot start weft-no-such-program: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(startChild("/nonexistent/weft", {"weft"}), std::runtime_error);
}

TEST(Process, WaitingForAProcessThatIsNotOurChildIsAnError) {
  try {
    waitChild(1, "init");
    FAIL() << "waited for a process that is not our child";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("waiting for init: ", 0), 0u) << e.what();
  }
}

TEST(Process, TheLogTakesStdoutAndStderrAndIsTruncatedOrAppended) {
  TempDir dir;
  const std::string log = dir / "child.log";
  SpawnOptions options;
  options.logPath = log;
  ASSERT_EQ(runChild("/bin/sh", {"sh", "-c", "echo out; echo err >&2"}, options).exitCode, 0);
  EXPECT_EQ(readFile(log), "out\nerr\n");
  ASSERT_EQ(runChild("/bin/sh", {"sh", "-c", "echo again"}, options).exitCode, 0);
  EXPECT_EQ(readFile(log), "again\n");  // truncated
  options.appendLog = true;
  options.stderrToLog = false;
  ASSERT_EQ(runChild("/bin/sh", {"sh", "-c", "echo more; echo hidden >&2"}, options).exitCode, 0);
  EXPECT_EQ(readFile(log), "again\nmore\n");
}

TEST(Process, EnvironmentEntriesReplaceTheParentsAndTheRestIsKept) {
  TempDir dir;
  ::setenv("WEFT_COMMON_TEST_KEPT", "kept", 1);
  ::setenv("WEFT_COMMON_TEST_REPLACED", "parent", 1);
  SpawnOptions options;
  options.logPath = dir / "env.log";
  options.env = {{"WEFT_COMMON_TEST_REPLACED", "child"}, {"WEFT_COMMON_TEST_NEW", "new"}};
  ASSERT_EQ(runChild("/bin/sh",
                     {"sh", "-c", "echo $WEFT_COMMON_TEST_KEPT $WEFT_COMMON_TEST_REPLACED $WEFT_COMMON_TEST_NEW; "
                                  "env | grep -c '^WEFT_COMMON_TEST_REPLACED='"},
                     options)
                .exitCode,
            0);
  EXPECT_EQ(readFile(options.logPath), "kept child new\n1\n");
}

TEST(Process, RunLoggedAppendsReadsNoInputAndReturnsMinusOneWhenItCannotRun) {
  TempDir dir;
  const std::string log = dir / "build.log";
  EXPECT_EQ(runLogged({"/bin/sh", "-c", "echo one"}, log), 0);
  // stdin is /dev/null: cat ends at once instead of waiting for the terminal.
  EXPECT_EQ(runLogged({"/bin/sh", "-c", "cat; echo two >&2; exit 3"}, log), 3);
  EXPECT_EQ(readFile(log), "one\ntwo\n");
  EXPECT_EQ(runLogged({"weft-no-such-program"}, log), -1);
  EXPECT_EQ(runLogged({}, log), -1);
  EXPECT_EQ(runLogged({"/bin/sh", "-c", "kill -KILL $$"}, log), -1);
}

TEST(Process, FindOnPathLooksUpNamesAndChecksPaths) {
  TempDir dir;
  const std::string tool = dir / "weft-fake-tool";
  writeFileAtomically(tool, "#!/bin/sh\n");
  ::chmod(tool.c_str(), 0755);
  const std::string notExecutable = dir / "weft-not-executable";
  writeFileAtomically(notExecutable, "data");
  const std::string oldPath = ::getenv("PATH");
  ::setenv("PATH", ("/nonexistent::" + dir.path() + ":/bin").c_str(), 1);
  EXPECT_EQ(findOnPath("weft-fake-tool"), tool);
  EXPECT_TRUE(onPath("weft-fake-tool"));
  EXPECT_EQ(findOnPath("weft-not-executable"), "");
  EXPECT_EQ(findOnPath("weft-no-such-program"), "");
  EXPECT_FALSE(onPath("weft-no-such-program"));
  ::unsetenv("PATH");
  EXPECT_EQ(findOnPath("weft-fake-tool"), "");
  ::setenv("PATH", oldPath.c_str(), 1);
  // A path is used as it is, never looked up.
  EXPECT_EQ(findOnPath(tool), tool);
  EXPECT_EQ(findOnPath(notExecutable), "");
  EXPECT_EQ(findOnPath("./weft-fake-tool"), "");
}

TEST(FileLock, SerializesHoldersAcrossThreads) {
  TempDir dir;
  const std::string path = dir / "key.lock";
  std::atomic<int> inside{0}, most{0};
  auto work = [&] {
    for (int i = 0; i < 20; ++i) {
      FileLock lock(path);
      ASSERT_TRUE(lock.held());
      most = std::max(most.load(), ++inside);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      --inside;
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(most.load(), 1);
}

TEST(FileLock, APathThatCannotBeOpenedLocksNothing) {
  FileLock lock("/nonexistent/dir/key.lock");
  EXPECT_FALSE(lock.held());
}

TEST(LogTail, TailLinesKeepsTheLastOnesInOrder) {
  TempDir dir;
  const std::string log = dir / "tool.log";
  writeFileAtomically(log, "a\nb\n\nc\nd\n");
  EXPECT_EQ(tailLines(log, 3), (std::vector<std::string>{"", "c", "d"}));
  EXPECT_EQ(tailLines(log, 10), (std::vector<std::string>{"a", "b", "", "c", "d"}));
  EXPECT_TRUE(tailLines(log, 0).empty());
  EXPECT_TRUE(tailLines(dir / "missing.log", 3).empty());
}

TEST(LogTail, ScanLogPicksMatchingLinesAndTheLastNonEmptyOne) {
  TempDir dir;
  const std::string log = dir / "tool.log";
  writeFileAtomically(log, "weft: first\nnoise\nweft: second\nlast\n\n");
  const LogScan scan = scanLog(log, [](const std::string& l) { return l.rfind("weft:", 0) == 0; });
  EXPECT_EQ(scan.matching, (std::vector<std::string>{"weft: first", "weft: second"}));
  EXPECT_EQ(scan.lastNonEmpty, "last");
  const LogScan none = scanLog(dir / "missing.log", [](const std::string&) { return true; });
  EXPECT_TRUE(none.matching.empty());
  EXPECT_EQ(none.lastNonEmpty, "");
}

}  // namespace
}  // namespace weft::common
