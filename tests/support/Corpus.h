// Where the conformance corpus is and which cases it holds. The corpus lives beside the project
// (shared/conformance/aosp), never inside it: WEFT_CONFORMANCE_DIR names it, otherwise the
// build's default (${WEFT_SOURCE_DIR}/../shared/conformance/aosp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace weft::test {

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
