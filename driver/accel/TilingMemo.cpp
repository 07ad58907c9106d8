#include "TilingMemo.h"

#include <utility>

#include "SearchKey.h"

namespace weft::accel {
namespace {

// Bounds the memo's memory: a key is a few hundred bytes and a plan (its chunks and boxes) at most
// a few KB, so this is a few MB at most. When it is full the memo starts over (a sweep moves from configuration to configuration; old keys rarely
// come back).
constexpr size_t kMaxEntries = 4096;

}  // namespace

TilingMemo& TilingMemo::instance() {
  static TilingMemo memo;
  return memo;
}

std::string TilingMemo::key(const TilingProblem& problem, const TilingPolicy& policy, const CompileOptions& options) {
  return layerKey(problem) + contextKey(problem.config, policy, options);
}

std::optional<TilingChoice> TilingMemo::find(const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void TilingMemo::remember(const std::string& key, TilingChoice choice) {
  std::lock_guard lock(mutex_);
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_[key] = std::move(choice);
}

}  // namespace weft::accel
