// The tiling search's results, remembered for the life of the process.
//
// The search (TilingSearch.h) schedules a layer's best candidates to pick one:
// most of compiling a convolution. Networks repeat layer shapes (ResNet-50's 54 layers have 22
// shapes) and sweeps compile the same layers again, so the choice is kept, keyed by everything the
// search reads (SearchKey.h, the same key a compilation cache's fingerprint hashes). Constant
// values are not in the key because the search never reads them. A hit gives the same candidate and estimate the search
// would have: the memo changes compilation time, never a program.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "TilingSearch.h"
#include "weft/hw/config.h"

namespace weft::accel {

class TilingMemo {
 public:
  // The process's memo, shared by every device and thread.
  static TilingMemo& instance();

  static std::string key(const TilingProblem& problem, const TilingPolicy& policy, const CompileOptions& options);
  std::optional<TilingChoice> find(const std::string& key) const;
  void remember(const std::string& key, TilingChoice choice);

 private:
  TilingMemo() = default;

  mutable std::mutex mutex_;
  std::map<std::string, TilingChoice> entries_;
};

}  // namespace weft::accel
