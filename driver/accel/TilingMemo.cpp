#include "TilingMemo.h"

#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

namespace weft::accel {
namespace {

// Bounds the memo's memory: a key is a few hundred bytes and a plan (its chunks and boxes) at most
// a few KB, so this is a few MB at most. When it is full the memo starts over (a sweep moves from configuration to configuration; old keys rarely
// come back).
constexpr size_t kMaxEntries = 4096;

class KeyWriter {
 public:
  template <typename T>
  KeyWriter& operator<<(const T& value) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    text_.append(bytes, sizeof(T));
    return *this;
  }
  KeyWriter& operator<<(const ImageShape& s) { return *this << s.batches << s.height << s.width << s.channels; }
  // A view's layout, not where it lies: the search's estimates (CostModel) price requests by
  // their sizes and strides at a random alignment, so a layer repeated at other addresses (a
  // ResNet's identical blocks) finds its tiling here instead of searching again.
  KeyWriter& operator<<(const ImageView& v) { return *this << v.pixelStride << v.rowStride << v.imageStride; }
  KeyWriter& operator<<(const std::string& s) {
    *this << s.size();
    text_ += s;
    return *this;
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

}  // namespace

TilingMemo& TilingMemo::instance() {
  static TilingMemo memo;
  return memo;
}

std::string TilingMemo::key(const TilingProblem& problem, const TilingPolicy& policy, const CompileOptions& options) {
  const GemmLayer& l = problem.layer;
  const std::vector<KChunk>& chunks = problem.chunks;
  const LayerPlacement& where = problem.where;
  const hw::HwConfig& config = problem.config;
  const double slack = policy.slack;
  KeyWriter k;
  k << l.type << l.input << l.output << l.filterH << l.filterW << l.strideH << l.strideW << l.dilationH << l.dilationW
    << l.padTop << l.padLeft << l.padBottom << l.padRight << l.nchw << l.inZp << l.wZp << l.outZp << l.inSigned
    << l.wSigned << l.runtimeWeights.has_value() << l.runtimeBias.has_value() << l.rawAccumulators << l.fp16;
  k << chunks.size();
  for (const KChunk& c : chunks) k << c.offset << c.bytes << c.kBegin;
  k << where.input << where.output << where.weights << where.params << where.padding;
  k << slack;
  for (size_t i = 0; i < hw::kParamSpecs.size(); ++i) k << config.get(static_cast<hw::Param>(i));
  k << static_cast<int>(options.inputChoice) << static_cast<int>(options.ramp);
  return k.take();
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
