#include "SearchKey.h"

#include "CompilationCache.h"

namespace weft::accel {
namespace {

// Bump when the candidates rankTilings() returns, their order, or how one is chosen change:
// cached indices made by an older compiler then name other tilings, so its caches must not match.
constexpr uint64_t kTilingRevision = 9;

}  // namespace

std::string searchFingerprint(const std::vector<LoweredOperation>& layers, const std::vector<LayerPlacement>& where,
                              const std::vector<std::vector<KChunk>>& chunks, const CompileTarget& target) {
  const hw::HwConfig& config = target.config;
  Fnv64 f;
  f.add(kTilingRevision).add(config.toJson()).add(layers.size()).add(static_cast<uint64_t>(target.options.inputChoice))
      .add(static_cast<uint64_t>(target.options.ramp));
  f.add(static_cast<uint64_t>(target.options.preference));  // the same candidates, chosen by another measure
  auto shape = [&](const ImageShape& s) { f.add(s.batches).add(s.height).add(s.width).add(s.channels); };
  auto view = [&](const ImageView& v) { f.add(v.pixelStride).add(v.rowStride).add(v.imageStride); };
  for (size_t l = 0; l < layers.size(); ++l) {
    if (layers[l].isVector()) {  // tiled without a search: only its identity matters
      f.add(layers[l].vector->describe());
      continue;
    }
    const GemmLayer& g = layers[l].layer;
    f.add(static_cast<uint64_t>(g.type));
    shape(g.input);
    shape(g.output);
    for (uint64_t v : {g.filterH, g.filterW, g.strideH, g.strideW, g.dilationH, g.dilationW, g.padTop, g.padLeft,
                       g.padBottom, g.padRight}) {
      f.add(v);
    }
    f.add(uint64_t{g.nchw} | uint64_t{g.inSigned} << 1 | uint64_t{g.wSigned} << 2 | uint64_t{g.rawAccumulators} << 3 |
          uint64_t{g.fp16} << 4);
    view(where[l].input);
    view(where[l].output);
    f.add(chunks[l].size());
    for (const KChunk& c : chunks[l]) f.add(static_cast<uint64_t>(c.offset)).add(c.bytes).add(c.kBegin);
  }
  return f.hex();
}

}  // namespace weft::accel
