#include "SearchKey.h"

#include <cstring>
#include <type_traits>
#include <utility>

#include "CompilationCache.h"

namespace weft::accel {
namespace {

// Bump when the candidates rankTilings() returns, their order, or how one is chosen change:
// cached indices made by an older compiler then name other tilings, so its caches must not match.
constexpr uint64_t kTilingRevision = 17;  // 10: a cycle-level DRAM priced from its device (DramCost)
                                          // 11: filters read in place searched with their own loads
                                          // 12: DramCost measured on the device; transactions by offset
                                          // 13: a request's transactions overlap across channels
                                          // 14: the closed form prices writes as the timeline does
                                          // 15, 16: (see git log)
                                          // 17: writes waiting for write-queue room cost the reads (Timeline)

// Values as their bytes, one after the other.
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
  // ResNet's identical blocks) finds its tiling in the memo instead of searching again.
  KeyWriter& operator<<(const ImageView& v) { return *this << v.pixelStride << v.rowStride << v.imageStride; }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

}  // namespace

std::string layerKey(const TilingProblem& problem) {
  const GemmLayer& l = problem.layer;
  const LayerPlacement& where = problem.where;
  KeyWriter k;
  k << l.type << l.input << l.output << l.filterH << l.filterW << l.strideH << l.strideW << l.dilationH << l.dilationW
    << l.padTop << l.padLeft << l.padBottom << l.padRight << l.nchw << l.inZp << l.wZp << l.outZp
    << isSignedInteger(l.inputType) << isSignedInteger(l.weightType) << l.runtimeWeights.has_value()
    << l.runtimeBias.has_value() << (l.outputType == ElementType::kInt32Raw) << (l.inputType == ElementType::kFloat16);
  k << problem.chunks.size();
  for (const KChunk& c : problem.chunks) k << c.offset << c.bytes << c.kBegin;
  k << where.input << where.output << where.weights << where.params << where.padding
    << static_cast<uint32_t>(where.weightSource) << problem.overlapsNext;
  return k.take();
}

std::string contextKey(const hw::HwConfig& config, const TilingPolicy& policy, const CompileOptions& options) {
  KeyWriter k;
  for (size_t i = 0; i < hw::kParamSpecs.size(); ++i) k << config.get(static_cast<hw::Param>(i));
  k << policy.shapes << policy.prefixGemms << policy.wholeGemms << policy.contenders << policy.reach
    << policy.slackReach << policy.tie << policy.packedMargin << policy.rampBusyShare << policy.rampGain << policy.slack;
  // The preference only through the policy's slack; the search's threads (gemmsWorthAThread)
  // change its speed, never its choice.
  k << options.inputChoice << options.ramp;
  return k.take();
}

std::string searchFingerprint(const std::vector<LoweredLayer>& layers, const std::vector<LayerPlacement>& views,
                              const std::vector<std::vector<KChunk>>& chunks, const CompileTarget& target) {
  Fnv64 f;
  f.add(kTilingRevision).add(contextKey(target.config, target.policy, target.options)).add(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    // A vector layer is tiled without a search: only its identity matters.
    f.add(layers[l].visit(Overloaded{
        [&](const GemmLayer& g) { return layerKey(TilingProblem{g, chunks[l], views[l], target.config}); },
        [](const VectorLayer& v) { return v.describe(); }}));
  }
  return f.hex();
}

}  // namespace weft::accel
