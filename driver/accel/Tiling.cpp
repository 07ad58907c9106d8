#include "Tiling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "weft/common/fnv1a.h"

namespace weft::accel {
namespace {

constexpr uint32_t kMaxCount = 0xFFFF;  // 16-bit count and row-address fields

uint32_t ceilDiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// A box cut in two along its outermost dimension: `first` is its first image, row or
// half-segment (its last, `fromBack`), `rest` the remainder; both are boxes (whole images, rows
// of one image, or a segment of one row). With `align` > 1 a segment is cut after a multiple of
// `align` pixels. A box with nothing to cut (one pixel, or a segment no aligned cut divides) is
// not cut.
struct BoxCut {
  MBox first, rest;
  bool cut = false;
};
BoxCut cutBox(const MBox& b, uint32_t align, bool fromBack) {
  BoxCut c{b, b};
  // One dimension of `b`: its start and extent in `first` and `rest` once `n` are taken off
  // for `first`.
  auto split = [&](uint32_t MBox::*start, uint32_t MBox::*extent, uint32_t n) {
    c.first.*extent = n;
    c.rest.*extent = b.*extent - n;
    if (fromBack) {
      c.first.*start = b.*start + b.*extent - n;
    } else {
      c.rest.*start = b.*start + n;
    }
    c.cut = true;
  };
  if (b.nb > 1) {
    split(&MBox::b0, &MBox::nb, 1);
  } else if (b.noh > 1) {
    split(&MBox::oh0, &MBox::noh, 1);
  } else {
    // The leading part holds whole blocks, so that both parts start on one.
    const uint32_t lead = (b.now + 1) / 2 / align * align;
    if (lead > 0 && lead < b.now) split(&MBox::ow0, &MBox::now, fromBack ? b.now - lead : lead);
  }
  return c;
}

// The layer's first and last boxes cut into a ramp of smaller ones. Nothing overlaps the first
// box's input load (the array waits for all of it before its first GEMM) nor the last box's STORE
// (it follows the last GEMM), so both cost their whole transfer; a box a quarter the size loads
// and stores in a quarter of the time, and the boxes after it grow back to full size while the
// array is busy. ResNet-50's 56x56x64 1x1 layer at weft16: 28 boxes of 112 pixels became
// 28, 28, 56, 112 ... 112, 56, 28, 28.
void rampEnds(std::vector<MBox>& boxes, uint32_t align) {
  if (boxes.size() < 3) return;
  const uint32_t target = std::max<uint32_t>(std::max<uint32_t>(align, 16), boxes.front().rows() / 4);
  auto ramp = [&](const MBox& box, bool fromBack) {
    std::vector<MBox> pieces;  // the cut-off rests, then the smallest piece
    MBox b = box;
    while (b.rows() > target) {
      const BoxCut c = cutBox(b, align, fromBack);
      if (!c.cut) break;
      pieces.push_back(c.rest);
      b = c.first;
    }
    pieces.push_back(b);
    // Cut from the back, the rests come first in the layer's order; from the front, last.
    if (!fromBack) std::reverse(pieces.begin(), pieces.end());
    return pieces;
  };
  std::vector<MBox> front = ramp(boxes.front(), false), back = ramp(boxes.back(), true);
  std::vector<MBox> out = std::move(front);
  out.insert(out.end(), boxes.begin() + 1, boxes.end() - 1);
  out.insert(out.end(), back.begin(), back.end());
  boxes = std::move(out);
}

// Boxes of at most `maxRows` output pixels, balanced so that no box is a small remainder. With
// `align` > 1 (the output-stationary array's block of Rows pixels) a box that is part of an
// image holds a multiple of `align` pixels where it can, since a GEMM there costs whole blocks.
std::vector<MBox> makeBoxes(const ImageShape& out, uint32_t maxRows, uint32_t align) {
  std::vector<MBox> boxes;
  const uint64_t perImage = uint64_t{out.height} * out.width;
  if (perImage <= maxRows) {
    const uint32_t per = std::max<uint32_t>(1, static_cast<uint32_t>(maxRows / perImage));
    const uint32_t count = ceilDiv(out.batches, per);
    const uint32_t nb = ceilDiv(out.batches, count);
    for (uint32_t b = 0; b < out.batches; b += nb) {
      boxes.push_back({b, std::min(nb, out.batches - b), 0, out.height, 0, out.width});
    }
  } else if (out.width <= maxRows) {
    const uint32_t per = maxRows / out.width;
    uint32_t noh = ceilDiv(out.height, ceilDiv(out.height, per));
    if (align > 1) {
      for (uint32_t h = per; h >= 1; --h) {
        if (uint64_t{h} * out.width % align == 0) {
          noh = h;
          break;
        }
      }
    }
    for (uint32_t b = 0; b < out.batches; ++b)
      for (uint32_t y = 0; y < out.height; y += noh)
        boxes.push_back({b, 1, y, std::min(noh, out.height - y), 0, out.width});
  } else {
    uint32_t now = ceilDiv(out.width, ceilDiv(out.width, maxRows));
    if (align > 1 && maxRows >= align) now = maxRows / align * align;
    for (uint32_t b = 0; b < out.batches; ++b)
      for (uint32_t y = 0; y < out.height; ++y)
        for (uint32_t x = 0; x < out.width; x += now)
          boxes.push_back({b, 1, y, 1, x, std::min(now, out.width - x)});
  }
  return boxes;
}

// The block of pixels a GEMM's cost is quantized to: Rows on the output-stationary array.
uint32_t boxAlign(const hw::HwConfig& config) {
  return config.dataflow() == hw::Dataflow::kOS ? config.rows() : 1;
}

// Groups full chunks of one run (consecutive offsets Rows apart) into single loads of at most
// `maxChunks` chunks.
std::vector<ChunkGroup> groupChunks(const std::vector<KChunk>& chunks, unsigned rows, uint32_t maxChunks) {
  std::vector<ChunkGroup> groups;
  for (uint32_t i = 0; i < chunks.size(); ++i) {
    if (!groups.empty()) {
      ChunkGroup& g = groups.back();
      const KChunk& last = chunks[g.first + g.count - 1];
      const bool regular = last.bytes == rows && chunks[i].bytes == rows &&
                           chunks[i].offset == last.offset + rows && chunks[i].kBegin == last.kBegin + rows;
      if (regular && g.count < maxChunks) {
        ++g.count;
        continue;
      }
    }
    groups.push_back({i, 1});
  }
  return groups;
}

struct Candidate {
  TilePlan plan;
  bool ok = false;
};

// Per output pixel: the load-unit and channel cycles of its im2col rows (a request per chunk).
struct RowCost {
  double load = 0, channel = 0;
  RowCost(const std::vector<KChunk>& requests, const CostModel& cost) {
    for (const KChunk& c : requests) {
      load += cost.loadRowCycles(c.bytes);
      channel += cost.requestCycles(c.bytes);
    }
  }
};

// The time of the layer's program on the slowest of the load unit, the array, the store
// unit, the DRAM channel and the command fetch, plus the pipeline's fill and drain. `nK` chunks
// whose rows cost `row`: rankTilings' plans share theirs, so it sums them once.
double estimate(const GemmLayer& layer, const TilePlan& p, uint32_t nK, const RowCost& row, const CostModel& cost) {
  const uint32_t groups = ceilDiv(p.nTiles, p.tilesPerGroup);
  const uint32_t epochs = ceilDiv(p.nTiles, p.tilesPerEpoch);
  const uint32_t storeBytes = std::min<uint32_t>(cost.cols, layer.n()) * layer.outputElementBytes();
  const double rowLoad = row.load, rowChannel = row.channel;
  double load = 0, channel = 0, compute = 0, store = 0, commands = 0, stall = 0;
  const uint32_t inputPasses = p.inputMode == InputMode::kStreamed ? groups : epochs;
  for (const MBox& b : p.boxes) {
    const double rows = b.rows();
    if (p.inputMode == InputMode::kWindowed) {
      // The tile once per box, a LOAD or two per tile row, merged requests; a GEMM per image.
      const WindowTile tile = windowTile(layer, b, cost.rows);
      const uint64_t tileRows = tile.rowsPerImage() * b.nb;
      load += inputPasses * (cost.mergedLoadBusyCycles(tileRows, cost.rows) + 4.0 * b.nb * tile.height);
      channel += cost.dram ? inputPasses * cost.streamCycles(tileRows * cost.rows)
                           : inputPasses * double(tileRows * cost.rows) / cost.bytesPerCycle;
      commands += inputPasses * 2.0 * b.nb * tile.height;
      compute += double(nK) * p.nTiles * b.nb * cost.gemmBusyCycles(uint64_t{b.noh} * b.now);
      commands += double(nK) * p.nTiles * b.nb;
    } else {
      const double loads = p.packed ? double(p.pieces.size()) : double(b.nb == 1 ? p.inputLoads.size() : nK);
      load += inputPasses * (rows * rowLoad + 2.0 * loads);
      channel += inputPasses * rows * rowChannel;
      commands += inputPasses * loads;
      compute += double(nK) * p.nTiles * cost.gemmBusyCycles(b.rows());
      commands += double(nK) * p.nTiles;
    }
    store += p.nTiles * (rows * cost.storeRowCycles(storeBytes) + 4);
    if (cost.dram && cost.dram->writeQueueTransactions > 0) {
      // As the timeline prices them: a tile's STORE writes beyond what a drain leaves room for
      // wait for room, and the reads behind them with them (the loads stream).
      const double writes = rows * cost.dramTransactions(storeBytes);
      channel += p.nTiles * std::max(0.0, writes - cost.dram->writeQueueRefill) *
                 (cost.dram->writeTxCycles - cost.dram->writeChannelCycles);
    }
    commands += double(p.nTiles) * b.nb;
    if (p.accBuffers == 1) stall += groups * (cost.latency + 4);
  }
  // Weights: every tile once, or once per box when streamed; tiles are contiguous full rows.
  const uint64_t weightRows = uint64_t{nK} * p.nTiles * cost.rows;
  const double weightPasses = p.weightMode == WeightMode::kStreamed ? double(p.boxes.size()) : 1.0;
  const uint64_t rowsPerLoad = p.weightMode == WeightMode::kStreamed ? uint64_t{p.tilesPerGroup} * cost.rows
                                                                     : weightRows;
  const double weightLoads = double(weightRows) / double(rowsPerLoad);
  const double perLoad = cost.merges(cost.cols, cost.cols, cost.cols)
                             ? cost.mergedLoadBusyCycles(rowsPerLoad, cost.cols)
                             : 2 + double(rowsPerLoad) * cost.loadRowCycles(cost.cols);
  load += weightPasses * weightLoads * perLoad;
  channel += cost.dram ? weightPasses * cost.streamCycles(weightRows * cost.cols)
                       : weightPasses * double(weightRows * cost.cols) / cost.bytesPerCycle;
  commands += p.weightMode == WeightMode::kStreamed ? double(p.boxes.size()) * groups * nK : groups;
  channel += layer.m() * p.nTiles * cost.writeChannelRequestCycles(storeBytes);
  const double fetch = commands * cost.fetchCycles();
  const double fillDrain = epochs * (3 * cost.latency + cost.rows + cost.cols);
  return std::max({load, compute, store, channel, fetch}) + stall + fillDrain;
}

double estimate(const GemmLayer& layer, const TilePlan& p, const CostModel& cost) {
  return estimate(layer, p, static_cast<uint32_t>(p.chunks.size()), RowCost(p.packed ? p.pieces : p.chunks, cost),
                  cost);
}

}  // namespace

WindowTile windowTile(const GemmLayer& l, const MBox& box, unsigned rows) {
  WindowTile t;
  t.height = (box.noh - 1) * l.strideH + (l.filterH - 1) * l.dilationH + 1;
  t.width = (box.now - 1) * l.strideW + (l.filterW - 1) * l.dilationW + 1;
  t.blocks = ceilDiv(l.input.channels, rows);
  return t;
}

bool windowable(const GemmLayer& l, const ImageView& input, unsigned rows) {
  return l.input.channels % rows == 0 && input.pixelStride == l.input.channels;
}

std::vector<KChunk> windowChunks(const GemmLayer& l, unsigned rows) {
  std::vector<KChunk> chunks;
  const uint32_t c = l.input.channels;
  for (uint32_t tap = 0; tap < l.filterH * l.filterW; ++tap) {
    for (uint32_t b = 0; b < c; b += rows) chunks.push_back({0, std::min<uint32_t>(rows, c - b), tap * c + b});
  }
  return chunks;
}

namespace {

// The window's contiguous byte ranges, in K order; runs that touch in memory (a filter as wide
// as an unpadded image) are one run.
std::vector<KChunk> windowRuns(const GemmLayer& l, uint64_t pixelStride, uint64_t rowStride) {
  std::vector<KChunk> runs;
  const uint32_t c = l.input.channels;
  for (uint32_t fh = 0; fh < l.filterH; ++fh) {
    const int64_t rowOffset = int64_t(fh) * l.dilationH * int64_t(rowStride);
    if (l.dilationW == 1 && pixelStride == c) {
      runs.push_back({rowOffset, l.filterW * c, fh * l.filterW * c});
    } else {
      for (uint32_t fw = 0; fw < l.filterW; ++fw) {
        runs.push_back({rowOffset + int64_t(fw) * l.dilationW * int64_t(pixelStride), c, (fh * l.filterW + fw) * c});
      }
    }
  }
  // Runs that touch in memory (a filter as wide as an unpadded image) are one run.
  std::vector<KChunk> merged;
  for (const KChunk& r : runs) {
    if (!merged.empty() && merged.back().offset + merged.back().bytes == r.offset &&
        merged.back().kBegin + merged.back().bytes == r.kBegin) {
      merged.back().bytes += r.bytes;
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

// The runs cut into pieces of at most `maxBytes`.
std::vector<KChunk> cutRuns(const std::vector<KChunk>& runs, uint32_t maxBytes) {
  std::vector<KChunk> pieces;
  for (const KChunk& r : runs) {
    for (uint32_t done = 0; done < r.bytes; done += maxBytes) {
      pieces.push_back({r.offset + done, std::min<uint32_t>(maxBytes, r.bytes - done), r.kBegin + done});
    }
  }
  return pieces;
}

}  // namespace

std::vector<KChunk> chunkK(const GemmLayer& l, uint64_t pixelStride, uint64_t rowStride, uint32_t maxBytes) {
  return cutRuns(windowRuns(l, pixelStride, rowStride), maxBytes);
}

std::vector<KChunk> packedChunks(const GemmLayer& l, unsigned rows) {
  std::vector<KChunk> chunks;
  for (uint32_t k = 0; k < l.k(); k += rows) chunks.push_back({0, std::min<uint32_t>(rows, l.k() - k), k});
  return chunks;
}

namespace {

// Plans that would emit the same commands. Different requested load sizes often group the
// chunks the same way (a chunk group never spans kernel rows), and every duplicate would cost
// the compiler a scheduling of its candidate.
bool sameCommands(const TilePlan& a, const TilePlan& b) {
  auto scalars = [](const TilePlan& p) {
    return std::make_tuple(p.rowsPerTile, p.nTiles, p.tilesPerGroup, p.tilesPerEpoch, p.order, p.inputMode,
                           p.weightMode, p.accBuffers, p.inSlots, p.wSlots, p.inputLoads.size(), p.boxes.size(),
                           p.packed);
  };
  if (scalars(a) != scalars(b)) return false;
  auto loads = [](const ChunkGroup& x, const ChunkGroup& y) { return x.first == y.first && x.count == y.count; };
  auto boxes = [](const MBox& x, const MBox& y) {
    return std::tie(x.b0, x.nb, x.oh0, x.noh, x.ow0, x.now) == std::tie(y.b0, y.nb, y.oh0, y.noh, y.ow0, y.now);
  };
  return std::equal(a.inputLoads.begin(), a.inputLoads.end(), b.inputLoads.begin(), loads) &&
         std::equal(a.boxes.begin(), a.boxes.end(), b.boxes.begin(), boxes);
}

// sameCommands() against every plan kept so far, looked up by a hash of what it compares: a
// layer of many n-tiles walks a thousand plans, and comparing each with every one before it
// grew with their square.
class DistinctPlans {
 public:
  // True, remembering that plans[index] will be p, when no plan kept so far emits its commands.
  bool keep(const TilePlan& p, size_t index, const std::vector<TilePlan>& plans) {
    const uint64_t h = hashOf(p);
    const auto [first, last] = byHash_.equal_range(h);
    for (auto it = first; it != last; ++it) {
      if (sameCommands(p, plans[it->second])) return false;
    }
    byHash_.emplace(h, index);
    return true;
  }

 private:
  static uint64_t hashOf(const TilePlan& p) {
    common::Fnv1a h;  // whole words per step
    auto mix = [&](uint64_t v) { h.word(v); };
    for (uint64_t v : {uint64_t{p.rowsPerTile}, uint64_t{p.nTiles}, uint64_t{p.tilesPerGroup}, uint64_t{p.tilesPerEpoch},
                       uint64_t(p.order), uint64_t(p.inputMode), uint64_t(p.weightMode), uint64_t{p.accBuffers},
                       uint64_t{p.inSlots}, uint64_t{p.wSlots}, uint64_t{p.packed}}) {
      mix(v);
    }
    for (const ChunkGroup& g : p.inputLoads) mix((uint64_t{g.first} << 32) | g.count);
    for (const MBox& b : p.boxes) {
      mix((uint64_t{b.b0} << 32) | b.nb);
      mix((uint64_t{b.oh0} << 32) | b.noh);
      mix((uint64_t{b.ow0} << 32) | b.now);
    }
    return h.value();
  }
  std::unordered_multimap<uint64_t, size_t> byHash_;
};

}  // namespace

namespace {

// The group shapes every family of candidates walks: ng n-tiles a group (groups never straddle
// a parameter epoch of perEpoch tiles), two accumulator buffers or one (one costs a token per
// tile between consecutive groups), and the largest box that leaves: fn(ng, perEpoch,
// accBuffers, rowsPerTile) for each whose box has a row.
template <typename Fn>
void forEachGroupShape(const GemmLayer& layer, const hw::HwConfig& config, Fn&& fn) {
  const uint32_t nTiles = ceilDiv(layer.n(), config.cols());
  for (uint32_t ng = 1; ng <= nTiles; ++ng) {
    const uint32_t perEpoch = std::min(nTiles, (config.paramRows() / ng) * ng);
    if (perEpoch == 0) break;
    for (uint32_t accBuffers : {2u, 1u}) {
      if (accBuffers == 1 && ng > config.get(hw::Param::kTokenDepth) / 2) continue;
      const uint64_t rowsPerTile =
          std::min<uint64_t>({config.accRows() / (uint64_t{accBuffers} * ng), layer.m(), kMaxCount});
      if (rowsPerTile > 0) fn(ng, perEpoch, accBuffers, rowsPerTile);
    }
  }
}

uint32_t largestBox(const std::vector<MBox>& boxes) {
  uint32_t most = 0;
  for (const MBox& b : boxes) most = std::max(most, b.rows());
  return most;
}

// The candidates of a family that loads each box's inputs at once, boxes outer: `base` (its
// chunks, boxes, input mode and slots) with its weights resident for the epoch, or streamed.
void addWeightModes(const GemmLayer& layer, const CostModel& cost, const hw::HwConfig& config, const TilePlan& base,
                    uint32_t ng, uint32_t perEpoch, uint32_t accBuffers, std::vector<TilePlan>& plans) {
  const unsigned R = config.rows();
  const uint32_t nK = static_cast<uint32_t>(base.chunks.size());
  for (WeightMode wm : {WeightMode::kResidentEpoch, WeightMode::kStreamed}) {
    const uint64_t wRowsNeeded = wm == WeightMode::kResidentEpoch ? uint64_t{nK} * perEpoch * R : 2ull * ng * R;
    if (wRowsNeeded > config.wSpadRows()) continue;
    TilePlan p = base;
    p.inputLoads = {{0, nK}};
    p.nTiles = ceilDiv(layer.n(), config.cols());
    p.tilesPerGroup = ng;
    p.tilesPerEpoch = perEpoch;
    p.order = LoopOrder::kBoxesOuter;
    p.weightMode = wm;
    p.accBuffers = accBuffers;
    if (wm == WeightMode::kStreamed) {
      p.wSlots = static_cast<uint32_t>(std::min<uint64_t>(8, config.wSpadRows() / (uint64_t{ng} * R)));
    }
    p.estimatedCycles = estimate(layer, p, cost);
    plans.push_back(std::move(p));
  }
}

// The windowed candidates: boxes shrunk until two tiles (one computing, the next loading) fit
// the input scratchpad, or one when the layer is a single box.
void addWindowedTilings(const GemmLayer& layer, const hw::HwConfig& config, std::vector<TilePlan>& plans) {
  const CostModel cost(config);
  const unsigned R = config.rows();
  const uint64_t spad = config.inSpadRows();
  // The most scratchpad rows a box's tile takes; too many when a tile row exceeds a LOAD's
  // 16-bit count.
  auto tileRows = [&](const std::vector<MBox>& boxes) {
    uint64_t most = 0;
    for (const MBox& b : boxes) {
      const WindowTile t = windowTile(layer, b, R);
      if (uint64_t{t.width} * t.blocks > kMaxCount) return std::numeric_limits<uint64_t>::max() / 4;
      most = std::max(most, t.rowsPerImage() * b.nb);
    }
    return most;
  };
  TilePlan base;
  base.chunks = windowChunks(layer, R);
  base.inputMode = InputMode::kWindowed;
  forEachGroupShape(layer, config, [&](uint32_t ng, uint32_t perEpoch, uint32_t accBuffers, uint64_t rowsPerTile) {
    std::vector<MBox> boxes;
    uint32_t slots = 2;
    while (rowsPerTile > 0) {
      boxes = makeBoxes(layer.output, static_cast<uint32_t>(rowsPerTile), boxAlign(config));
      const uint64_t need = tileRows(boxes);
      if (boxes.size() == 1 && need <= spad) slots = 1;
      if (slots * need <= spad) break;
      rowsPerTile = std::min(rowsPerTile - 1, rowsPerTile * spad / (2 * need));
    }
    if (rowsPerTile == 0) return;
    base.boxes = std::move(boxes);
    base.rowsPerTile = largestBox(base.boxes);
    base.inSlots = slots;
    addWeightModes(layer, cost, config, base, ng, perEpoch, accBuffers, plans);
  });
}

// The packed candidates (Tiling.h): resident inputs, boxes outer, each box's pieces loaded at
// once into a region of chunks x rows; two regions unless the layer is a single box.
void addPackedTilings(const GemmLayer& layer, const ImageView& input, const hw::HwConfig& config,
                      std::vector<TilePlan>& plans) {
  const CostModel cost(config);
  const unsigned R = config.rows();
  // A packed row is written a beat at a time, and a beat must fit in a row (isa.json).
  const uint32_t maxPiece = config.busBytes() <= R ? hw::micro::kLoadMaxReqBytes : R;
  TilePlan base;
  base.chunks = packedChunks(layer, R);
  base.pieces = chunkK(layer, input.pixelStride, input.rowStride, maxPiece);
  base.packed = true;
  base.inputMode = InputMode::kResident;
  const uint64_t nK = base.chunks.size(), mTotal = layer.m(), spad = config.inSpadRows();
  forEachGroupShape(layer, config, [&](uint32_t ng, uint32_t perEpoch, uint32_t accBuffers, uint64_t rowsPerTile) {
    const bool single = rowsPerTile >= mTotal && mTotal * nK <= spad;
    if (!single) rowsPerTile = std::min<uint64_t>(rowsPerTile, spad / (2 * nK));
    if (rowsPerTile == 0) return;
    base.boxes = makeBoxes(layer.output, static_cast<uint32_t>(rowsPerTile), boxAlign(config));
    base.rowsPerTile = largestBox(base.boxes);
    base.inSlots = 2 * nK * base.rowsPerTile <= spad ? 2 : 1;
    if (base.boxes.size() > 1 && base.inSlots < 2) return;
    addWeightModes(layer, cost, config, base, ng, perEpoch, accBuffers, plans);
  });
}

}  // namespace

std::optional<TilePlan> rampedPlan(const TilePlan& plan, const hw::HwConfig& config) {
  if (plan.ramped) return std::nullopt;
  TilePlan p = plan;
  rampEnds(p.boxes, boxAlign(config));
  if (p.boxes.size() == plan.boxes.size()) return std::nullopt;
  p.ramped = true;
  return p;
}

namespace {

// The plain family: every combination of loop order, input and weight modes and input-load size
// that fits, for each group shape, with its analytic estimate.
class PlainTilings {
 public:
  PlainTilings(const GemmLayer& layer, const std::vector<KChunk>& chunks, const hw::HwConfig& config,
               const CostModel& cost, std::vector<TilePlan>& plans)
      : layer_(layer), chunks_(chunks), config_(config), cost_(cost), plans_(plans), rowCost_(chunks, cost) {
    R_ = config.rows();
    nK_ = static_cast<uint32_t>(chunks.size());
    nTiles_ = ceilDiv(layer.n(), config.cols());
    mTotal_ = layer.m();
    maxLoadChunks_ = std::max<uint32_t>(1, std::min<uint32_t>(kMaxCount, nK_));
  }

  void addAll() {
    forEachGroupShape(layer_, config_, [&](uint32_t ng, uint32_t perEpoch, uint32_t accBuffers, uint64_t mt) {
      for (LoopOrder order : {LoopOrder::kBoxesOuter, LoopOrder::kGroupsOuter}) {
        for (InputMode im : {InputMode::kResident, InputMode::kStreamed}) {
          if (im == InputMode::kResident && order != LoopOrder::kBoxesOuter) continue;
          for (WeightMode wm : {WeightMode::kResidentEpoch, WeightMode::kResidentGroup, WeightMode::kStreamed}) {
            if (wm == WeightMode::kResidentGroup && order != LoopOrder::kGroupsOuter) continue;
            if (weightRows(wm, ng, perEpoch) > config_.wSpadRows()) continue;
            TilePlan shape;
            shape.nTiles = nTiles_;
            shape.tilesPerGroup = ng;
            shape.tilesPerEpoch = perEpoch;
            shape.order = order;
            shape.inputMode = im;
            shape.weightMode = wm;
            shape.accBuffers = accBuffers;
            addLoadSizes(shape, mt);
          }
        }
      }
    });
  }

 private:
  static constexpr uint32_t kMaxSlots = 8;

  // Weight scratchpad rows a mode needs (a weight tile occupies Rows rows).
  uint64_t weightRows(WeightMode wm, uint32_t ng, uint32_t perEpoch) const {
    switch (wm) {
      case WeightMode::kResidentEpoch: return uint64_t{nK_} * perEpoch * R_;
      case WeightMode::kResidentGroup: return 2ull * nK_ * ng * R_;
      case WeightMode::kStreamed: return 2ull * ng * R_;
    }
    return 0;
  }

  // Streamed inputs come in loads of a few chunks: small loads interleave with the weight loads
  // of the in-order load unit, large ones need fewer commands. Resident inputs too: the first
  // GEMMs of a box can start after its first load.
  void addLoadSizes(const TilePlan& shape, uint64_t mt) {
    std::vector<uint32_t> loadSizes{maxLoadChunks_};
    for (uint32_t lc : {1u, 2u, 4u, 8u}) {
      if (lc < maxLoadChunks_) loadSizes.push_back(lc);
    }
    for (uint32_t wantChunks : loadSizes) add(shape, mt, wantChunks);
  }

  // The plan of `shape` with loads of `wantChunks` chunks, its tile shrunk until the input
  // memory fits the mode; nothing when it cannot.
  void add(const TilePlan& shape, uint64_t mt, uint32_t wantChunks) {
    const InputMode im = shape.inputMode;
    uint64_t rowsPerTile = mt;
    uint32_t loadChunks = wantChunks;
    if (im == InputMode::kResident) {
      // Two regions (the next box loads while this one computes), or one when the whole layer
      // is a single box.
      const bool single = rowsPerTile >= mTotal_ && mTotal_ * nK_ <= config_.inSpadRows();
      if (!single) rowsPerTile = std::min<uint64_t>(rowsPerTile, config_.inSpadRows() / (2ull * nK_));
    } else {
      loadChunks = static_cast<uint32_t>(std::min<uint64_t>(
          loadChunks, config_.inSpadRows() / (2ull * std::max<uint64_t>(1, rowsPerTile))));
      if (loadChunks == 0) {
        loadChunks = 1;
        rowsPerTile = std::min<uint64_t>(rowsPerTile, config_.inSpadRows() / 2);
      }
      if (loadChunks != wantChunks && wantChunks != maxLoadChunks_) return;
    }
    if (rowsPerTile == 0) return;

    TilePlan p = shape;
    p.boxes = boxesFor(static_cast<uint32_t>(rowsPerTile));
    p.rowsPerTile = largestBox(p.boxes);
    if (im == InputMode::kResident) {
      p.inSlots = 2ull * nK_ * p.rowsPerTile <= config_.inSpadRows() ? 2 : 1;
      if (p.boxes.size() > 1 && p.inSlots < 2) return;
    }
    p.inputLoads = inputLoads(loadChunks);
    if (im == InputMode::kStreamed) {
      p.inSlots = static_cast<uint32_t>(std::min<uint64_t>(
          kMaxSlots, config_.inSpadRows() / (uint64_t{p.largestLoad()} * p.rowsPerTile)));
      if (p.inSlots < 2) return;
    }
    if (p.weightMode == WeightMode::kStreamed) {
      p.wSlots = static_cast<uint32_t>(
          std::min<uint64_t>(kMaxSlots, config_.wSpadRows() / (uint64_t{p.tilesPerGroup} * R_)));
    }
    if (!distinct_.keep(p, plans_.size(), plans_)) return;
    p.estimatedCycles = estimate(layer_, p, nK_, rowCost_, cost_);
    plans_.push_back(std::move(p));
  }

  // What the plans share, computed once: they differ in their boxes and input loads only a few
  // ways, and a deep layer (hundreds of chunks) walks a thousand plans. Their chunks are
  // `chunks`, given to those ranked at the end (the windowed and packed families bring theirs).
  const std::vector<ChunkGroup>& inputLoads(uint32_t loadChunks) {
    auto it = loadsOf_.find(loadChunks);
    if (it == loadsOf_.end()) it = loadsOf_.emplace(loadChunks, groupChunks(chunks_, R_, loadChunks)).first;
    return it->second;
  }
  const std::vector<MBox>& boxesFor(uint32_t rowsPerTile) {
    auto it = boxesOf_.find(rowsPerTile);
    if (it == boxesOf_.end()) {
      it = boxesOf_.emplace(rowsPerTile, makeBoxes(layer_.output, rowsPerTile, boxAlign(config_))).first;
    }
    return it->second;
  }

  const GemmLayer& layer_;
  const std::vector<KChunk>& chunks_;
  const hw::HwConfig& config_;
  const CostModel& cost_;
  std::vector<TilePlan>& plans_;
  const RowCost rowCost_;
  DistinctPlans distinct_;
  std::map<uint32_t, std::vector<ChunkGroup>> loadsOf_;  // by chunks a load
  std::map<uint32_t, std::vector<MBox>> boxesOf_;        // by the most rows a box
  unsigned R_ = 0;
  uint32_t nK_ = 0, nTiles_ = 0, maxLoadChunks_ = 0;
  uint64_t mTotal_ = 0;
};

// WEFT_ACCEL_INPUT_MODE keeps only one way of feeding the array, when that way applies.
void keepInputChoice(std::vector<TilePlan>& plans, InputChoice choice) {
  if (choice == InputChoice::kAny) return;
  std::vector<TilePlan> kept;
  for (auto& p : plans) {
    const InputChoice way = p.inputMode == InputMode::kWindowed ? InputChoice::kWindowed
                            : p.packed                          ? InputChoice::kPacked
                                                                : InputChoice::kIm2col;
    if (way == choice) kept.push_back(std::move(p));
  }
  if (!kept.empty()) plans = std::move(kept);
}

// Keep every input-load size of the best `shapes` distinct shapes: the analytic estimate
// cannot tell them apart, the scheduler's timeline can. The windowed shapes are a family of
// their own with half as many places: the estimate ranks the two ways of feeding the array
// less reliably against each other than within each, so the best of both reach the timeline.
// The packed shapes are a family too, as many as the plain ones: the estimate ranks them
// against the plain shapes no better, and among themselves less well (AlexNet's 11x11/4
// stem at weft16 took 13 % more cycles with half as many).
std::vector<TilePlan> bestShapes(std::vector<TilePlan>& plans, size_t shapes) {
  auto shapeOf = [](const TilePlan& p) {
    return std::make_tuple(p.tilesPerGroup, p.accBuffers, p.order, p.inputMode, p.weightMode, p.rowsPerTile,
                           p.packed);
  };
  std::vector<decltype(shapeOf(plans[0]))> kept;
  size_t keptOf[3] = {0, 0, 0};
  const size_t limitOf[3] = {shapes, std::max<size_t>(1, shapes / 2), shapes};
  std::vector<TilePlan> ranked;
  for (auto& p : plans) {
    const auto key = shapeOf(p);
    const size_t family = p.inputMode == InputMode::kWindowed ? 1 : p.packed ? 2 : 0;
    const bool known = std::find(kept.begin(), kept.end(), key) != kept.end();
    if (!known && keptOf[family] >= limitOf[family]) continue;
    if (!known) {
      kept.push_back(key);
      ++keptOf[family];
    }
    ranked.push_back(std::move(p));
  }
  return ranked;
}

}  // namespace

std::vector<TilePlan> rankTilings(const GemmLayer& layer, const std::vector<KChunk>& chunks, const ImageView& input,
                                  const hw::HwConfig& config, size_t shapes, InputChoice choice) {
  const CostModel cost(config);
  const unsigned R = config.rows();
  std::vector<TilePlan> plans;
  PlainTilings(layer, chunks, config, cost, plans).addAll();
  if (windowable(layer, input, R)) addWindowedTilings(layer, config, plans);
  // Packing pays when the window's runs leave rows partly empty.
  if (packedChunks(layer, R).size() < chunks.size()) addPackedTilings(layer, input, config, plans);
  keepInputChoice(plans, choice);
  std::stable_sort(plans.begin(), plans.end(),
                   [](const TilePlan& a, const TilePlan& b) { return a.estimatedCycles < b.estimatedCycles; });
  std::vector<TilePlan> ranked = bestShapes(plans, shapes);
  for (TilePlan& p : ranked) {
    if (p.chunks.empty()) p.chunks = chunks;  // the plain family's (the others bring their own)
  }
  return ranked;
}

uint32_t TilePlan::largestLoad() const {
  uint32_t most = 0;
  for (const ChunkGroup& g : inputLoads) most = std::max(most, g.count);
  return most;
}

bool steppable(const TilePlan& p) {
  if (p.inputMode == InputMode::kWindowed || p.inputLoads.empty()) return false;
  return p.weightMode != WeightMode::kStreamed || p.wSlots / p.largestLoad() >= 2;
}

std::string TilePlan::describe() const {
  auto orderName = order == LoopOrder::kBoxesOuter ? "boxes-outer" : "groups-outer";
  auto inName = inputMode == InputMode::kResident   ? "resident"
                : inputMode == InputMode::kWindowed ? "windowed"
                                                    : "streamed";
  auto wName = weightMode == WeightMode::kResidentEpoch   ? "resident"
               : weightMode == WeightMode::kResidentGroup ? "resident-per-group"
                                                          : "streamed";
  return fmt::format("{}{} chunks, {} boxes of <= {} rows{}, {} n-tiles in groups of {}, {}, inputs {} "
                     "(loads of <= {} chunks, {} buffers), weights {}, {} accumulator buffers, {}estimate {:.0f} cycles",
                     packed ? fmt::format("packed ({} pieces), ", pieces.size()) : "", chunks.size(), boxes.size(), rowsPerTile,
                     ramped ? " (ramped ends)" : "", nTiles, tilesPerGroup, orderName, inName, largestLoad(), inSlots, wName,
                     accBuffers, steppable(*this) ? "chunks stepped per tile, " : "", estimatedCycles);
}

}  // namespace weft::accel
