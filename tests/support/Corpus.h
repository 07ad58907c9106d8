// Where the conformance corpus is and which cases it holds. The corpus lives beside the project
// (shared/conformance/aosp), never inside it: WEFT_CONFORMANCE_DIR names it, otherwise the
// build's default (${WEFT_SOURCE_DIR}/../shared/conformance/aosp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace weft::test {

// The spec directories of the corpus; the suites register one ctest entry each (CMakeLists.txt).
inline constexpr const char* kCorpusVersions[] = {"V1_0", "V1_1", "V1_2", "V1_3", "V1_3_cts_only", "AIDL_V2",
                                                  "AIDL_V3"};

// CI sets CI=true (or 1): a missing corpus is then a failure, not a skip.
bool runningInCi();

struct CorpusLocation {
  std::optional<std::filesystem::path> dir;  // set when found
  std::vector<std::string> tried;            // every path looked at, with why it was rejected
  // "conformance corpus not found; tried: ..." for a skip message.
  std::string describeMissing() const;
};

CorpusLocation findConformanceCorpus();

struct CorpusCase {
  std::string version;  // spec directory, e.g. "V1_2"
  std::string name;     // file stem = the test name
  std::filesystem::path file;
};

// Every <version>/<name>.json under `dir`, sorted by version then name.
std::vector<CorpusCase> listCorpusCases(const std::filesystem::path& dir);

}  // namespace weft::test
