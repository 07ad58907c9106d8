#include "Corpus.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace weft::test {

namespace fs = std::filesystem;

namespace {

// A corpus directory holds SCHEMA.md and the per-version directories.
bool looksLikeCorpus(const fs::path& dir, std::string* why) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    *why = "not a directory";
    return false;
  }
  if (!fs::exists(dir / "SCHEMA.md", ec)) {
    *why = "no SCHEMA.md in it";
    return false;
  }
  return true;
}

}  // namespace

bool runningInCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && (std::string(ci) == "true" || std::string(ci) == "1");
}

std::string CorpusLocation::describeMissing() const {
  std::string s = "conformance corpus not found (set WEFT_CONFORMANCE_DIR); tried:";
  for (const std::string& t : tried) s += "\n  " + t;
  return s;
}

CorpusLocation findConformanceCorpus() {
  CorpusLocation location;
  std::string why;
  if (const char* env = std::getenv("WEFT_CONFORMANCE_DIR"); env != nullptr && *env != '\0') {
    // An explicit choice is honoured or reported, never silently replaced by the default.
    if (looksLikeCorpus(env, &why)) {
      location.dir = fs::path(env);
    } else {
      location.tried.push_back(std::string(env) + " (WEFT_CONFORMANCE_DIR): " + why);
    }
    return location;
  }
#ifdef WEFT_CONFORMANCE_DEFAULT_DIR
  const fs::path fallback = WEFT_CONFORMANCE_DEFAULT_DIR;
  if (looksLikeCorpus(fallback, &why)) {
    location.dir = fallback;
  } else {
    location.tried.push_back(fallback.string() + " (build default): " + why);
  }
#else
  location.tried.push_back("(no build default: WEFT_CONFORMANCE_DEFAULT_DIR was not defined)");
#endif
  return location;
}

std::vector<CorpusCase> listCorpusCases(const fs::path& dir) {
  std::vector<CorpusCase> cases;
  std::error_code ec;
  for (const fs::directory_entry& versionDir : fs::directory_iterator(dir, ec)) {
    if (!versionDir.is_directory()) continue;
    for (const fs::directory_entry& file : fs::directory_iterator(versionDir.path(), ec)) {
      if (file.path().extension() != ".json") continue;
      cases.push_back({versionDir.path().filename().string(), file.path().stem().string(), file.path()});
    }
  }
  std::sort(cases.begin(), cases.end(), [](const CorpusCase& a, const CorpusCase& b) {
    return a.version != b.version ? a.version < b.version : a.name < b.name;
  });
  return cases;
}

}  // namespace weft::test
