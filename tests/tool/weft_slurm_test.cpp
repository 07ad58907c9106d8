// `weft sweep --slurm` on a real Slurm cluster: the test starts a single-node cluster on
// localhost (munged, slurmctld and slurmd from Debian's slurm-wlm and munge, configured in a
// temporary directory by slurm_cluster.sh), runs sweeps through it and stops it. The results
// must be the bytes a local sweep gives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "RunWeft.h"
#include "ToolTestPaths.h"
#include "weft/common/files.h"

using weft::tool::test::testDir;

namespace {

namespace fs = std::filesystem;
using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "weft_slurm_test_" + name; }

std::string readFile(const std::string& path) { return weft::common::readFile(path).value_or(""); }

bool onPath(const char* program) {
  return std::system((std::string("command -v ") + program + " > /dev/null 2>&1").c_str()) == 0;
}

// One cluster for all the tests of the suite (it takes a few seconds to come up).
class SlurmCluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const bool ci = std::getenv("CI") != nullptr && std::string(std::getenv("CI")) == "true";
    for (const char* program : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"}) {
      if (!onPath(program)) {
        (ci ? failure_ : skip_) = std::string(program) + " is not installed (Debian slurm-wlm and munge; "
                                                          "scripts/setup.sh installs them)";
        return;
      }
    }
    if (geteuid() != 0) {
      skip_ = "starting slurmctld and slurmd for a test cluster needs root";
      return;
    }
    dir_ = tempPath("cluster");
    fs::remove_all(dir_);
    const std::string start = testDir() + "/slurm_cluster.sh start " + dir_;
    if (std::system(start.c_str()) != 0) {
      failure_ = "the test cluster did not start; logs in " + dir_;
      return;
    }
    started_ = true;
    conf_ = "SLURM_CONF=" + dir_ + "/slurm.conf";
  }
  static void TearDownTestSuite() {
    if (started_) std::system((testDir() + "/slurm_cluster.sh stop " + dir_).c_str());
    started_ = false;
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(failure_.empty()) << failure_;
  }

  // A spec beside a tiny SCALE-Sim table.
  static std::string writeSpec(const std::string& name) {
    const std::string dir = tempPath(name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir + "/tiny.csv") << "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
                                        "Channels, Num Filter, Strides,\nC1, 12, 10, 3, 3, 3, 8, 2,\n"
                                        "C2, 8, 8, 3, 3, 16, 20, 1,\n";
    std::ofstream(dir + "/spec.json") << R"({"base": "weft16", "grid": {"Rows": [8, 16], "Cols": [8, 16]},
                                              "workloads": ["tiny.csv"], "backend": "approx"})";
    return dir + "/spec.json";
  }

  static inline std::string dir_, conf_, skip_, failure_;
  static inline bool started_ = false;
};

TEST_F(SlurmCluster, JobArraySweepGivesTheLocalResults) {
  const std::string spec = writeSpec("spec"), local = tempPath("local"), out = tempPath("out");
  fs::remove_all(local);
  fs::remove_all(out);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + local).exitCode, 0);

  const ProcessResult r = runWeft("sweep " + spec + " --out " + out + " --slurm --slurm-tasks 3", conf_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("(3 array tasks"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("finished"), std::string::npos) << r.output;
  EXPECT_EQ(readFile(out + "/results.csv"), readFile(local + "/results.csv"));
  EXPECT_EQ(readFile(out + "/results.jsonl"), readFile(local + "/results.jsonl"));
  EXPECT_NE(readFile(out + "/slurm/sweep.sbatch").find("#SBATCH --array=0-2"), std::string::npos);
  for (int task = 0; task < 3; ++task) EXPECT_TRUE(fs::exists(out + "/slurm/task-" + std::to_string(task) + ".log"));
}

// Submitted without waiting, then merged by --collect once the array has left the queue.
TEST_F(SlurmCluster, SubmitWithoutWaitingThenCollect) {
  const std::string spec = writeSpec("nowait_spec"), local = tempPath("nowait_local"), out = tempPath("nowait_out");
  fs::remove_all(local);
  fs::remove_all(out);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + local).exitCode, 0);
  const ProcessResult r = runWeft("sweep --quiet " + spec + " --out " + out + " --slurm --no-wait", conf_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("weft sweep --collect --out"), std::string::npos) << r.output;
  const std::string job = r.output.substr(r.output.find("Slurm job ") + 10);
  const std::string id = job.substr(0, job.find(';'));
  for (int i = 0; i < 120; ++i) {
    const std::string cmd = conf_ + " squeue -h -o %i 2>/dev/null | grep -q .";
    if (std::system(cmd.c_str()) != 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  const ProcessResult collect = runWeft("sweep --collect --out " + out);
  ASSERT_EQ(collect.exitCode, 0) << collect.output;
  EXPECT_EQ(readFile(out + "/results.csv"), readFile(local + "/results.csv"));
}

// sbatch's refusal (an unknown partition) is the error, and nothing is merged.
TEST_F(SlurmCluster, RefusedSubmissionIsAClearError) {
  const std::string spec = writeSpec("refused_spec"), out = tempPath("refused_out");
  fs::remove_all(out);
  const ProcessResult r =
      runWeft("sweep --quiet " + spec + " --out " + out + " --slurm --slurm-args --partition=nosuch", conf_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("sbatch refused the job array"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("partition"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out + "/results.csv"));
}

}  // namespace
