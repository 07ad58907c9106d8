#include "CommandGenerator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <tuple>

#include "CostModel.h"

namespace weft::accel {
namespace {

constexpr uint32_t kMaxCount = 0xFFFF;  // 16-bit count fields
constexpr uint32_t kPaddingRows = 64;     // rows of paddingImage(): a merged request's worth

uint32_t ceilDiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// Tiles of group g: [g * tilesPerGroup, ...) clipped to nTiles.
uint32_t groupSize(const TilePlan& p, uint32_t g) {
  return std::min(p.tilesPerGroup, p.nTiles - g * p.tilesPerGroup);
}

// Weight buffers are numbered: plain ones from 0, ranges (BufferKind::kWeightRange) from
// kRangeBuffers on.
constexpr uint32_t kRangeBuffers = 1u << 16;
uint32_t weightBufferId(uint32_t buffer) {
  return buffer >= kRangeBuffers ? bufferId(BufferKind::kWeightRange, buffer - kRangeBuffers)
                                 : bufferId(BufferKind::kWeight, buffer);
}

uint32_t groupsOf(const TilePlan& p) { return (p.nTiles + p.tilesPerGroup - 1) / p.tilesPerGroup; }

// The weight rows of an epoch of resident weights: its groups' tiles (a full group's for each)
// for every chunk.
uint32_t bankRows(const TilePlan& p, unsigned R) {
  return groupsOf(p) * p.tilesPerGroup * static_cast<uint32_t>(p.chunks.size()) * R;
}

// The weight buffer of chunk `chunk` of an epoch's first group in a ramped plan
// (loadFirstWeightRanges): one per range (at most 32), bank 1's 32 further.
uint32_t weightRangeBuffer(uint32_t chunk) {
  const uint32_t range = chunk == 0 ? 0 : 32 - static_cast<uint32_t>(__builtin_clz(chunk));  // 1, 2-3, 4-7, ...
  return kRangeBuffers + range;
}

// Byte offset of the first weight tile of group g in weightImage().
uint64_t groupWeightOffset(const TilePlan& p, uint32_t g, unsigned R, unsigned C) {
  return uint64_t{g} * p.tilesPerGroup * p.chunks.size() * R * C;
}

// Folds GEMMs emitted back to back that walk K at fixed strides into one GEMM of k_steps steps
// (hw/spec/isa.json): the same rows, accumulator rows, zero points and buffers (a step may add
// the parameter rows), each step accumulating, its inputs and its weights the same rows further
// on. Any other command ends a run. A large layer is millions of GEMMs a chunk each: as steps
// they are a fraction of the commands to schedule, store, fetch and simulate.
class StepMerger final : public CommandSink {
 public:
  explicit StepMerger(CommandSink& out) : out_(out) {}
  void add(PlannedCommand&& command) override {
    if (pending_ && extends(command)) {
      fold(command);
      return;
    }
    flush();
    const auto* g = std::get_if<hw::GemmCmd>(&command.cmd);
    if (g != nullptr && !g->keepWeights) {
      pending_ = std::move(command);
      return;
    }
    out_.add(std::move(command));
  }
  void expect(size_t commands) override { out_.expect(commands); }
  void flush() {
    if (!pending_) return;
    out_.add(std::move(*pending_));
    pending_.reset();
  }

 private:
  static constexpr uint32_t kMaxField = 0xFFFF;  // k_steps, in_kstride, w_kstride

  // The buffers of `b` are those of `a`, the parameter rows aside.
  static bool sameBuffers(const BufferUses& a, const BufferUses& b) {
    const uint32_t params = bufferId(BufferKind::kParams, 0);
    auto next = [&](const BufferUse*& it, const BufferUses& u) {
      while (it != u.end() && it->buffer == params) ++it;
    };
    const BufferUse *x = a.begin(), *y = b.begin();
    for (next(x, a), next(y, b); x != a.end() && y != b.end(); ++x, ++y, next(x, a), next(y, b)) {
      if (x->buffer != y->buffer || x->write != y->write) return false;
    }
    return x == a.end() && y == b.end();
  }

  bool extends(const PlannedCommand& command) const {
    const auto* g = std::get_if<hw::GemmCmd>(&command.cmd);
    if (g == nullptr || g->keepWeights || !g->accumulate) return false;
    const auto& p = std::get<hw::GemmCmd>(pending_->cmd);
    if (p.kSteps >= kMaxField || g->kRows != p.kRows || g->mRows != p.mRows || g->mGroups != p.mGroups ||
        g->inStride0 != p.inStride0 || g->inStride1 != p.inStride1 || g->accAddr != p.accAddr || g->inZp != p.inZp ||
        g->wZp != p.wZp || g->inSigned != p.inSigned || g->wSigned != p.wSigned || g->fp16 != p.fp16 ||
        !sameBuffers(pending_->uses, command.uses)) {
      return false;
    }
    if (p.kSteps == 1) {  // the second step sets the strides
      return g->inAddr >= p.inAddr && g->inAddr - p.inAddr <= kMaxField && g->wAddr >= p.wAddr &&
             g->wAddr - p.wAddr <= kMaxField;
    }
    return g->inAddr == p.inAddr + p.kSteps * p.inKstride && g->wAddr == p.wAddr + p.kSteps * p.wKstride;
  }

  void fold(const PlannedCommand& command) {
    const auto& g = std::get<hw::GemmCmd>(command.cmd);
    auto& p = std::get<hw::GemmCmd>(pending_->cmd);
    if (p.kSteps == 1) {
      p.inKstride = g.inAddr - p.inAddr;
      p.wKstride = g.wAddr - p.wAddr;
    }
    ++p.kSteps;
    const uint32_t params = bufferId(BufferKind::kParams, 0);
    const auto declares = [&](const BufferUses& u) {
      return std::any_of(u.begin(), u.end(), [&](const BufferUse& x) { return x.buffer == params; });
    };
    if (declares(command.uses) && !declares(pending_->uses)) pending_->uses.push_back({params, false});
  }

  CommandSink& out_;
  std::optional<PlannedCommand> pending_;
};

class Emitter {
 public:
  Emitter(const GemmLayer& layer, const TilePlan& plan, const LayerPlacement& where, const hw::HwConfig& config,
          CommandSink& out)
      : l_(layer), p_(plan), at_(where), R_(config.rows()), C_(config.cols()), busBytes_(config.busBytes()), out_(out) {}

  nn::Status run();

 private:
  // Where the loop nest is: one parameter epoch, one (box, group) pair of it, one input load of
  // that pair.
  struct Epoch {
    uint32_t firstTile = 0, tiles = 0, gFirst = 0;
    // The first GEMM of the epoch declares the parameter rows, ordering their load before every
    // STORE (no token queue joins load and store). A ramped plan needs them by the first STORE
    // only: they load after the first pair's inputs and weights (what the first GEMM waits
    // for), just before the first GEMM of its last chunk, which declares them.
    bool paramsPending = true;
    bool rangesPending = false;  // the first group's weights past chunk 0, after the first inputs
    int64_t residentBox = -1, residentGroup = -1;
    uint32_t inBuffer = 0, groupWBuffer = 0;
    std::vector<bool> weightsLoaded;  // per group of the epoch (resident weights)
  };
  struct Pair {
    uint32_t b = 0, g = 0;
    const MBox& box;
    bool newBox = false;
    uint32_t accBuffer = 0, gTiles = 0;
  };
  struct Load {
    const ChunkGroup& cg;
    uint32_t firstInBuf = 0, inId = 0, inRow0 = 0, inStride = 1;
  };

  void reserve();
  nn::Status epoch(uint32_t e);
  nn::Status pair(Epoch& ep, uint32_t b, uint32_t g);
  nn::Status inputLoad(Epoch& ep, const Pair& pr, size_t gi);
  nn::Status steppedGemms(Epoch& ep, const Pair& pr, const Load& ld);
  nn::Status chunkGemms(Epoch& ep, const Pair& pr, const Load& ld);
  nn::Status storeAfter(const Epoch& ep, const Pair& pr, uint32_t j);
  uint32_t inRowOf(const Load& ld, uint32_t c) const;
  std::pair<uint32_t, uint32_t> residentWeights(const Epoch& ep, const Pair& pr, uint32_t c) const;
  // Accumulator dependencies: per region when double-buffered (a GEMM waits for the whole
  // previous use of its region, one token), per tile when single-buffered (each tile's first
  // GEMM waits only for that tile's store).
  uint32_t accId(uint32_t buffer, uint32_t j) const {
    return p_.accBuffers > 1 ? buffer : buffer * p_.tilesPerGroup + j;
  }

  // Scratchpad layout.
  uint32_t inRegionBase(uint32_t slot) const { return slot * inRegionRows_; }
  // Resident weights in bank 1 (LayerPlacement::weightBank) lie a bank's rows further, and their
  // buffers are numbered apart from bank 0's.
  uint32_t bankRow() const { return at_.weightBank * bankRows(p_, R_); }
  uint32_t groupBuffer(uint32_t groupInEpoch) const { return at_.weightBank * groupsOf(p_) + groupInEpoch; }
  uint32_t rangeBuffer(uint32_t chunk) const { return weightRangeBuffer(chunk) + at_.weightBank * 32; }
  uint32_t accBase(uint32_t buffer) const { return buffer * p_.tilesPerGroup * p_.rowsPerTile; }

  void loadParams(uint32_t firstTile, uint32_t tiles);
  void loadWeightTiles(uint64_t dram, uint32_t tiles, uint32_t spadRow, uint32_t buffer);
  void loadTilesInPlace(uint32_t firstTile, uint32_t tiles, uint32_t chunk, uint32_t spadRow, uint32_t buffer);
  uint32_t transposedChunkRun(uint32_t g, uint32_t first, uint32_t most) const;
  void loadTransposedChunks(uint32_t g, uint32_t first, uint32_t chunks, uint32_t spadRow, uint32_t buffer);
  void loadRows(hw::Mem dst, uint32_t use, uint32_t rowBytes, uint64_t dram, uint32_t spadRow, uint32_t rows,
                uint64_t rowStride, uint32_t runs, uint64_t runStride);
  void loadGroupWeights(uint32_t g, uint32_t spadRow, uint32_t buffer);
  void loadFirstWeightRanges(uint32_t g, bool first);
  void loadChunkWeights(uint32_t g, uint32_t chunk, uint32_t spadRow, uint32_t buffer);
  nn::Status loadInputs(const MBox& box, const ChunkGroup& group, uint32_t spadRow, uint32_t buffer,
                        uint32_t firstChunkInBuffer);
  nn::Status loadWindow(const MBox& box, uint32_t spadRow, uint32_t buffer);
  void loadFullRows(hw::Mem dst, uint32_t use, uint32_t rowBytes, uint64_t dram, uint32_t spadRow, uint32_t rows,
                    uint32_t runs = 1, uint64_t runStride = 0);
  void loadPadding(uint32_t spadRow, uint32_t rows, uint32_t buffer);
  // Whether a load of inputs holds its chunks pixel by pixel (loadInputs): a streamed load of
  // several chunks. Resident inputs keep a region a chunk: a pixel-major resident plan ran up
  // to 14 % slower than the timeline that chose it said on a few small layers, where the
  // streamed ones won 14 % on the baselines' layers they changed.
  bool pixelMajor(const ChunkGroup& group) const {
    return !p_.packed && p_.inputMode == InputMode::kStreamed && group.count > 1;
  }
  void gemm(const MBox& box, uint32_t chunk, uint32_t inRow, uint32_t inStride, uint32_t inBuffer, uint32_t wRow,
            uint32_t wBuffer, uint32_t acc, uint32_t accBuffer, bool declareParams);
  void windowGemms(const MBox& box, uint32_t chunk, uint32_t tileRow, uint32_t inBuffer, uint32_t wRow,
                   uint32_t wBuffer, uint32_t acc, uint32_t accBuffer, bool declareParams);
  void addGemm(PlannedCommand&& pc, uint32_t inBuffer, uint32_t wBuffer, uint32_t accBuffer, bool declareParams);
  nn::Status store(const MBox& box, uint32_t tile, uint32_t tiles, uint32_t epochFirstTile, uint32_t acc,
                   const std::vector<uint32_t>& accBuffers);

  const GemmLayer& l_;
  const TilePlan& p_;
  const LayerPlacement& at_;
  unsigned R_, C_, busBytes_;
  uint32_t inRegionRows_ = 0;
  CommandSink& out_;
  // The loop nest's constants (run()) and the buffers' rotation.
  uint32_t nK_ = 0, Mt_ = 0, largestLoad_ = 0, groupTiles_ = 0, weightRanges_ = 0;
  bool stepped_ = false, mergeStores_ = false;
  uint32_t inUse_ = 0, wUse_ = 0, accUse_ = 0;
};

// `runs` runs of `rows` contiguous full rows of memory `dst`, `runStride` bytes apart in DRAM,
// into consecutive rows from `spadRow`, writing buffer `use`: the load unit merges each run's
// rows into large requests when they are whole beats.
void Emitter::loadFullRows(hw::Mem dst, uint32_t use, uint32_t rowBytes, uint64_t dram, uint32_t spadRow,
                           uint32_t rows, uint32_t runs, uint64_t runStride) {
  loadRows(dst, use, rowBytes, dram, spadRow, rows, rowBytes, runs, runStride);
}

void Emitter::loadParams(uint32_t firstTile, uint32_t tiles) {
  loadFullRows(hw::Mem::kParam, bufferId(BufferKind::kParams, 0), 9 * C_, at_.params + uint64_t{firstTile} * 9 * C_, 0,
               tiles);
}

// `runs` runs of `rows` rows of memory `dst` of `rowBytes` each, `rowStride` apart in DRAM, the
// runs `runStride` apart, into consecutive rows from `spadRow`, writing buffer `use`.
void Emitter::loadRows(hw::Mem dst, uint32_t use, uint32_t rowBytes, uint64_t dram, uint32_t spadRow, uint32_t rows,
                       uint64_t rowStride, uint32_t runs, uint64_t runStride) {
  hw::LoadCmd c;
  c.dst = dst;
  c.rowBytes = rowBytes;
  c.spadAddr = spadRow;
  c.dramAddr = dram;
  c.count0 = rows;
  c.stride0 = static_cast<uint32_t>(rowStride);
  c.count1 = runs;
  c.stride1 = static_cast<uint32_t>(runStride);
  c.count2 = 1;
  out_.add(PlannedCommand{c, {{use, true}}});
}

// Tiles firstTile .. firstTile + tiles - 1 of chunk `chunk` read where the filter is (a weight
// source in place), Rows scratchpad rows a tile from `spadRow`: [K, N] a tile row per row of K,
// Cols bytes of it; [N, K] a tile row per output channel, the chunk's bytes of it (loaded
// transposed). The tiles whose every row is there go in one LOAD; the last tile of a filter
// whose N is not a multiple of Cols, and tiles of a chunk shorter than Rows, one a LOAD (rows past
// N or K stay as they were: their columns are never stored, their K lanes never fed).
void Emitter::loadTilesInPlace(uint32_t firstTile, uint32_t tiles, uint32_t chunk, uint32_t spadRow, uint32_t buffer) {
  const uint32_t use = weightBufferId(buffer), N = l_.n(), K = l_.k();
  const KChunk& k = p_.chunks[chunk];
  const bool transposed = at_.weightSource == WeightSource::kInPlaceTransposed;
  auto tile = [&](uint32_t t) {  // the first byte of tile t's first row, and its rows and row bytes
    const uint32_t n0 = t * C_, channels = std::min(C_, N - n0);
    return transposed ? std::tuple{at_.filter + uint64_t{n0} * K + k.kBegin, channels, k.bytes}
                      : std::tuple{at_.filter + uint64_t{k.kBegin} * N + n0, k.bytes, channels};
  };
  const uint64_t rowStride = transposed ? K : N;
  uint32_t whole = 0;  // leading tiles loadable as one run of Rows-row tiles
  while (whole < tiles && std::get<1>(tile(firstTile + whole)) == R_ && std::get<2>(tile(firstTile + whole)) == std::get<2>(tile(firstTile))) ++whole;
  if (whole > 1 && !transposed && std::get<2>(tile(firstTile)) == C_) {
    // Full rows of side-by-side tiles: each row of K is one run of the tiles, contiguous in DRAM
    // (one merged request instead of a request a tile), spread R_ rows apart into the tiles.
    hw::LoadCmd c;
    c.dst = hw::Mem::kW;
    c.rowBytes = C_;
    c.spadAddr = spadRow;
    c.dramAddr = std::get<0>(tile(firstTile));
    c.count0 = whole;
    c.stride0 = C_;
    c.count1 = R_;
    c.stride1 = static_cast<uint32_t>(rowStride);
    c.count2 = 1;
    c.spread = true;
    c.packStride = R_;
    out_.add(PlannedCommand{c, {{use, true}}});
  } else if (whole > 0) {
    const auto [dram, rows, bytes] = tile(firstTile);
    loadRows(hw::Mem::kW, use, bytes, dram, spadRow, rows, rowStride, whole, transposed ? uint64_t{C_} * K : C_);
  }
  for (uint32_t i = whole; i < tiles; ++i) {
    const auto [dram, rows, bytes] = tile(firstTile + i);
    loadRows(hw::Mem::kW, use, bytes, dram, spadRow + i * R_, rows, rowStride, 1, 0);
  }
}

// How many of group g's chunks from `first` on (at most `most`) an [N, K] filter read in place
// can load in one spread LOAD: whole chunks (Rows bytes of K each) of whole tiles (Cols channels
// each), side by side in each channel's row of K.
uint32_t Emitter::transposedChunkRun(uint32_t g, uint32_t first, uint32_t most) const {
  if (at_.weightSource != WeightSource::kInPlaceTransposed) return 0;
  const uint32_t size = groupSize(p_, g);
  if (uint64_t{g * p_.tilesPerGroup + size} * C_ > l_.n()) return 0;  // a tile of the group is short
  uint32_t chunks = 0;
  while (chunks < most && first + chunks < p_.chunks.size() && p_.chunks[first + chunks].bytes == R_ &&
         (chunks == 0 || p_.chunks[first + chunks].kBegin == p_.chunks[first + chunks - 1].kBegin + R_)) {
    ++chunks;
  }
  return chunks;
}

// Chunks first .. first + chunks - 1 of group g's tiles from an [N, K] filter in one LOAD: per
// channel (i1) of each tile (i2), its run of the chunks' bytes (i0: one merged request), chunk c
// of tile j landing at rows ((c - first) x size + j) x Rows + channel, as weightTileOffset lays
// them out.
void Emitter::loadTransposedChunks(uint32_t g, uint32_t first, uint32_t chunks, uint32_t spadRow, uint32_t buffer) {
  const uint32_t size = groupSize(p_, g), K = l_.k();
  hw::LoadCmd c;
  c.dst = hw::Mem::kW;
  c.rowBytes = R_;
  c.spadAddr = spadRow;
  c.dramAddr = at_.filter + uint64_t{g} * p_.tilesPerGroup * C_ * K + p_.chunks[first].kBegin;
  c.count0 = chunks;
  c.stride0 = R_;
  c.count1 = C_;
  c.stride1 = K;
  c.count2 = size;
  c.stride2 = C_ * K;
  c.spread = true;
  c.packStride = size * R_;
  out_.add(PlannedCommand{c, {{weightBufferId(buffer), true}}});
}

// `tiles` weight tiles stored contiguously at `dram`, into rows from `spadRow`: one i0 run of
// contiguous full rows, which the load unit fetches with merged requests; split only when the
// rows exceed the 16-bit count. With weights in place, `dram` still names the tiles by their
// place in the weight image; they are read from the filter instead.
void Emitter::loadWeightTiles(uint64_t dram, uint32_t tiles, uint32_t spadRow, uint32_t buffer) {
  if (at_.weightSource != WeightSource::kImage) {
    // Image tile i is group g's chunk c, tile j: weightTileOffset() read backwards.
    const uint64_t perGroup = uint64_t{p_.tilesPerGroup} * p_.chunks.size();
    uint64_t i = (dram - at_.weights) / (uint64_t{R_} * C_);
    for (uint32_t done = 0; done < tiles;) {
      const uint32_t g = static_cast<uint32_t>(i / perGroup), size = groupSize(p_, g);
      const uint32_t c = static_cast<uint32_t>((i % perGroup) / size), j = static_cast<uint32_t>((i % perGroup) % size);
      if (const uint32_t chunks = j == 0 ? transposedChunkRun(g, c, (tiles - done) / size) : 0; chunks > 1) {
        loadTransposedChunks(g, c, chunks, spadRow + done * R_, buffer);
        done += chunks * size;
        i += chunks * size;
        continue;
      }
      const uint32_t run = std::min(size - j, tiles - done);
      loadTilesInPlace(g * p_.tilesPerGroup + j, run, c, spadRow + done * R_, buffer);
      done += run;
      i += run;
    }
    return;
  }
  uint64_t rows = uint64_t{tiles} * R_;
  while (rows > 0) {
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(rows, kMaxCount / R_ * R_));
    loadFullRows(hw::Mem::kW, weightBufferId(buffer), C_, dram, spadRow, n);
    rows -= n;
    dram += uint64_t{n} * C_;
    spadRow += n;
  }
}

// All weight tiles of group g (every chunk).
void Emitter::loadGroupWeights(uint32_t g, uint32_t spadRow, uint32_t buffer) {
  const uint32_t tiles = groupSize(p_, g) * static_cast<uint32_t>(p_.chunks.size());
  loadWeightTiles(at_.weights + groupWeightOffset(p_, g, R_, C_), tiles, spadRow, buffer);
}

// The weight tiles of an epoch's first group g (from weight row 0) for chunk 0 (`first`) or
// the rest, in loads of chunks [1, 2), [2, 4), [4, 8), ..., each range its own buffer: the
// first GEMM waits for one chunk's weights (and its inputs, loaded in between) instead of all
// of them, and each later range arrives while the array works through the ones before it.
void Emitter::loadFirstWeightRanges(uint32_t g, bool first) {
  const uint32_t nK = static_cast<uint32_t>(p_.chunks.size()), tiles = groupSize(p_, g);
  const uint64_t tileBytes = uint64_t{R_} * C_;
  for (uint32_t c = first ? 0 : 1; c < (first ? 1 : nK); c = c == 0 ? 1 : 2 * c) {
    const uint32_t end = std::min(nK, c == 0 ? 1 : 2 * c);
    loadWeightTiles(at_.weights + groupWeightOffset(p_, g, R_, C_) + c * tiles * tileBytes, (end - c) * tiles,
                    bankRow() + c * tiles * R_, rangeBuffer(c));
  }
}

// The weight buffer of a range of streamed weight slots (Emitter::run's `stepped` plans), apart
// from the ramped ranges (a plan has one kind or the other, but the numbers say which).
uint32_t weightRangeSlotsBuffer(uint32_t range) { return kRangeBuffers + 64 + range; }

// The tiles of group g for one chunk.
void Emitter::loadChunkWeights(uint32_t g, uint32_t chunk, uint32_t spadRow, uint32_t buffer) {
  const uint32_t tiles = groupSize(p_, g);
  loadWeightTiles(at_.weights + groupWeightOffset(p_, g, R_, C_) + uint64_t{chunk} * tiles * R_ * C_, tiles,
                  spadRow, buffer);
}

nn::Status Emitter::loadInputs(const MBox& box, const ChunkGroup& group, uint32_t spadRow,
                               uint32_t buffer, uint32_t firstChunkInBuffer) {
  const ImageView& v = at_.input;
  const int64_t y = int64_t{box.oh0} * l_.strideH - l_.padTop;
  const int64_t x = int64_t{box.ow0} * l_.strideW - l_.padLeft;
  const int64_t origin = int64_t(v.origin) + int64_t(box.b0) * int64_t(v.imageStride) +
                         y * int64_t(v.rowStride) + x * int64_t(v.pixelStride);
  const uint64_t stride0 = uint64_t{l_.strideW} * v.pixelStride;
  const uint64_t stride1 = uint64_t{l_.strideH} * v.rowStride;
  if (stride0 >= (1u << 24) || stride1 > 0xFFFFFFFFull || v.imageStride > 0xFFFFFFFFull) {
    return NN_ERROR(BAD_DATA) << "layer " << l_.operationIndex << ": input strides exceed the LOAD fields";
  }
  // A piece of K for every pixel of the box: count0 walks output columns, count1 output rows,
  // count2 the box's images or the next chunks of a run.
  auto boxLoad = [&](const KChunk& k, uint32_t count2, uint64_t stride2) {
    hw::LoadCmd c;
    c.dst = hw::Mem::kIn;
    c.rowBytes = k.bytes;
    c.dramAddr = static_cast<uint64_t>(origin + k.offset);
    c.count0 = box.now;
    c.stride0 = static_cast<uint32_t>(stride0);
    c.count1 = box.noh;
    c.stride1 = static_cast<uint32_t>(stride1);
    c.count2 = count2;
    c.stride2 = static_cast<uint32_t>(stride2);
    return c;
  };
  auto add = [&](const hw::LoadCmd& c) {
    out_.add(PlannedCommand{c, {{bufferId(BufferKind::kInput, buffer), true}}, LoadPricing::kPerRow});
  };
  if (p_.packed) {
    // One packed LOAD per piece for the whole box (count2 walks its images): pixel n's piece
    // lands at byte kBegin of its K string, which starts at row n * chunks (Tiling.h).
    for (const KChunk& piece : p_.pieces) {
      hw::LoadCmd c = boxLoad(piece, box.nb, box.nb > 1 ? v.imageStride : 0);
      c.pack = true;
      c.spadAddr = spadRow + piece.kBegin / R_;
      c.packByte = piece.kBegin % R_;
      c.packStride = static_cast<uint32_t>(p_.chunks.size());
      add(c);
    }
    return {};
  }
  if (pixelMajor(group)) {
    // Several chunks of one run (groupChunks): K bytes [first.offset, + count x Rows) of each
    // pixel, contiguous in DRAM. The box is held pixel by pixel, pixel p's chunks at rows
    // p x count on (the GEMM of chunk j walks it with in_stride0 = count), so that each pixel's
    // chunks are one run the load unit fetches with one merged request instead of one request
    // a chunk. count0 walks the chunks, count1 output columns, count2 output rows; a LOAD per
    // image.
    const uint32_t perImage = box.noh * box.now;
    for (uint32_t i = 0; i < box.nb; ++i) {
      hw::LoadCmd c;
      c.dst = hw::Mem::kIn;
      c.rowBytes = R_;
      c.dramAddr = static_cast<uint64_t>(origin + p_.chunks[group.first].offset) + uint64_t{i} * v.imageStride;
      c.count0 = group.count;
      c.stride0 = R_;
      c.count1 = box.now;
      c.stride1 = static_cast<uint32_t>(stride0);
      c.count2 = box.noh;
      c.stride2 = static_cast<uint32_t>(stride1);
      c.spadAddr = spadRow + (group.first - firstChunkInBuffer) * p_.rowsPerTile + i * perImage * group.count;
      out_.add(PlannedCommand{c, {{bufferId(BufferKind::kInput, buffer), true}}, LoadPricing::kMergedRuns});
    }
    return {};
  }
  auto emit = [&](uint32_t chunk, uint32_t count2, uint64_t stride2) {
    hw::LoadCmd c = boxLoad(p_.chunks[chunk], count2, stride2);
    // Chunk regions are rowsPerTile apart whatever the box's size, so that a chunk's rows are
    // the same in every box of a slot: its load then waits only for that chunk's readers.
    c.spadAddr = spadRow + (chunk - firstChunkInBuffer) * p_.rowsPerTile;
    add(c);
  };
  // Chunk by chunk, each in its region, a request a pixel.
  if (box.nb == 1 && (group.count == 1 || box.rows() == p_.rowsPerTile)) {
    emit(group.first, group.count, group.count > 1 ? R_ : 0);
  } else if (box.nb == 1) {
    // A box smaller than the largest (an image's or the layer's last rows): one LOAD lays its
    // chunks boxRows apart, the region rowsPerTile apart, so each chunk goes on its own.
    for (uint32_t i = 0; i < group.count; ++i) emit(group.first + i, 1, 0);
  } else {
    for (uint32_t i = 0; i < group.count; ++i) emit(group.first + i, box.nb, v.imageStride);
  }
  return {};
}

// A box's input tile for the windowed mode (Tiling.h): per image, tile row ty, column tx and
// channel block b at spad row spadRow + i * tile.rowsPerImage() + (ty * tile.width + tx) * blocks + b.
// Pixels inside the image come from DRAM a tile row at a time (whole rows: merged requests),
// pixels in the padding from paddingImage().
nn::Status Emitter::loadWindow(const MBox& box, uint32_t spadRow, uint32_t buffer) {
  const ImageView& v = at_.input;
  const WindowTile tile = windowTile(l_, box, R_);
  const uint32_t pixelRows = tile.blocks;
  if (v.rowStride > 0xFFFFFFFFull) {
    return NN_ERROR(BAD_DATA) << "layer " << l_.operationIndex << ": input strides exceed the LOAD fields";
  }
  const int64_t y0 = int64_t{box.oh0} * l_.strideH - l_.padTop;
  const int64_t x0 = int64_t{box.ow0} * l_.strideW - l_.padLeft;
  const int64_t left = std::clamp<int64_t>(-x0, 0, tile.width);
  const int64_t right = std::clamp<int64_t>(x0 + tile.width - int64_t{l_.input.width}, 0, tile.width - left);
  const uint32_t inside = static_cast<uint32_t>(tile.width - left - right);
  const uint32_t rowRows = tile.width * pixelRows;
  auto inImage = [&](int64_t iy) { return iy >= 0 && iy < int64_t{l_.input.height}; };
  for (uint32_t i = 0; i < box.nb; ++i) {
    const uint32_t base = spadRow + static_cast<uint32_t>(i * tile.rowsPerImage());
    const uint64_t image = v.origin + uint64_t{box.b0 + i} * v.imageStride;
    uint32_t ty = 0;
    while (ty < tile.height) {
      const int64_t iy = y0 + ty;
      // A run of tile rows of the same kind: all padding, or image rows.
      uint32_t run = 1;
      while (ty + run < tile.height && inImage(iy + run) == inImage(iy)) ++run;
      const uint32_t first = base + ty * rowRows;
      if (!inImage(iy) || inside == 0) {
        loadPadding(first, run * rowRows, buffer);
      } else if (left == 0 && right == 0) {
        loadFullRows(hw::Mem::kIn, bufferId(BufferKind::kInput, buffer), R_,
                     image + uint64_t(iy) * v.rowStride + uint64_t(x0) * v.pixelStride, first, rowRows, run, v.rowStride);
      } else {
        // Each row: its left padding, its pixels, its right padding (one run with the next
        // row's left padding).
        for (uint32_t r = 0; r < run; ++r) {
          const uint32_t rowStart = first + r * rowRows;
          if (left > 0 && r == 0) loadPadding(rowStart, static_cast<uint32_t>(left) * pixelRows, buffer);
          loadFullRows(hw::Mem::kIn, bufferId(BufferKind::kInput, buffer), R_,
                       image + uint64_t(iy + r) * v.rowStride + uint64_t(x0 + left) * v.pixelStride,
                       rowStart + static_cast<uint32_t>(left) * pixelRows, inside * pixelRows);
          const uint32_t pad = static_cast<uint32_t>(right + (r + 1 < run ? left : 0)) * pixelRows;
          if (pad > 0) loadPadding(rowStart + static_cast<uint32_t>(left + inside) * pixelRows, pad, buffer);
        }
      }
      ty += run;
    }
  }
  return {};
}

// `rows` scratchpad rows of the input zero point: whole copies of paddingImage(), then the rest.
void Emitter::loadPadding(uint32_t spadRow, uint32_t rows, uint32_t buffer) {
  const uint32_t copies = rows / kPaddingRows, rest = rows % kPaddingRows;
  const uint32_t use = bufferId(BufferKind::kInput, buffer);
  if (copies > 0) loadFullRows(hw::Mem::kIn, use, R_, at_.padding, spadRow, kPaddingRows, copies, 0);
  if (rest > 0) loadFullRows(hw::Mem::kIn, use, R_, at_.padding, spadRow + copies * kPaddingRows, rest);
}

void Emitter::gemm(const MBox& box, uint32_t chunk, uint32_t inRow, uint32_t inStride, uint32_t inBuffer,
                   uint32_t wRow, uint32_t wBuffer, uint32_t acc, uint32_t accBuffer, bool declareParams) {
  PlannedCommand pc{hw::GemmCmd{}, {}};
  auto& g = std::get<hw::GemmCmd>(pc.cmd);
  g.accumulate = chunk > 0;
  g.kRows = p_.chunks[chunk].bytes;
  g.wAddr = wRow;
  g.inAddr = inRow;
  g.mRows = box.rows();
  // Inputs held pixel by pixel (packed, or a load of several chunks): a chunk's rows are
  // `inStride` apart. A stride that never applies (one row) is left 1: it may not fit.
  if (box.rows() > 1) g.inStride0 = inStride;
  g.accAddr = acc;
  addGemm(std::move(pc), inBuffer, wBuffer, accBuffer, declareParams);
}

// The GEMMs of one chunk (a filter tap and channel block) over a windowed box: one per image,
// its rows walking the tap's window across the tile, output row by output row.
void Emitter::windowGemms(const MBox& box, uint32_t chunk, uint32_t tileRow, uint32_t inBuffer, uint32_t wRow,
                          uint32_t wBuffer, uint32_t acc, uint32_t accBuffer, bool declareParams) {
  const WindowTile tile = windowTile(l_, box, R_);
  const KChunk& k = p_.chunks[chunk];
  const uint32_t c = l_.input.channels;
  const uint32_t tap = k.kBegin / c, block = (k.kBegin % c) / R_;
  const uint32_t fh = tap / l_.filterW, fw = tap % l_.filterW;
  const uint32_t tapRow = ((fh * l_.dilationH) * tile.width + fw * l_.dilationW) * tile.blocks + block;
  for (uint32_t i = 0; i < box.nb; ++i) {
    PlannedCommand pc{hw::GemmCmd{}, {}};
    auto& g = std::get<hw::GemmCmd>(pc.cmd);
    g.accumulate = chunk > 0;
    g.kRows = k.bytes;
    g.wAddr = wRow;
    g.inAddr = tileRow + static_cast<uint32_t>(i * tile.rowsPerImage()) + tapRow;
    g.mRows = box.now;
    g.mGroups = box.noh;
    // A stride that never applies (one column, one row) is 0: it may not fit its field.
    g.inStride0 = box.now > 1 ? l_.strideW * tile.blocks : 0;
    g.inStride1 = box.noh > 1 ? l_.strideH * tile.width * tile.blocks : 0;
    g.accAddr = acc + i * box.noh * box.now;
    g.keepWeights = i > 0;  // the images of a box share the tap's weights
    addGemm(std::move(pc), inBuffer, wBuffer, accBuffer, declareParams && i == 0);
  }
}

// The caller builds the GEMM in place, in `pc`, and this completes it: building the command
// aside and copying it in made the copy wait on the stores just made (store forwarding fails on
// their mixed widths), a tenth of the tiling search's time.
void Emitter::addGemm(PlannedCommand&& pc, uint32_t inBuffer, uint32_t wBuffer, uint32_t accBuffer,
                      bool declareParams) {
  auto& g = std::get<hw::GemmCmd>(pc.cmd);
  g.inSigned = isSignedInteger(l_.inputType);
  g.wSigned = isSignedInteger(l_.weightType);
  g.inZp = l_.inZp;
  g.wZp = l_.wZp;
  g.fp16 = isFloat(l_.inputType);
  g.wTransposed = at_.weightSource == WeightSource::kInPlaceTransposed && !g.keepWeights;
  pc.uses.push_back({bufferId(BufferKind::kInput, inBuffer), false});
  pc.uses.push_back({weightBufferId(wBuffer), false});
  pc.uses.push_back({bufferId(BufferKind::kAccumulator, accBuffer), true});
  // One GEMM before an epoch's first STORE orders the parameter load before every store of the
  // epoch.
  if (declareParams) pc.uses.push_back({bufferId(BufferKind::kParams, 0), false});
  out_.add(std::move(pc));
}

// The STOREs of `tiles` consecutive n-tiles from `tile` on (accumulator rows Mt apart from
// `acc`): one request per output pixel covering all of them (weft_store's tiles).
nn::Status Emitter::store(const MBox& box, uint32_t tile, uint32_t tiles, uint32_t epochFirstTile, uint32_t acc,
                          const std::vector<uint32_t>& accBuffers) {
  const ImageView& v = at_.output;
  if (v.pixelStride >= (1u << 24) || v.rowStride > 0xFFFFFFFFull) {
    return NN_ERROR(BAD_DATA) << "layer " << l_.operationIndex << ": output strides exceed the STORE fields";
  }
  const uint32_t n0 = tile * C_;
  const uint32_t perImage = box.noh * box.now;
  // Whole dense images are one STORE; otherwise one per image.
  const bool merge = box.nb > 1 && box.noh == l_.output.height && box.now == l_.output.width &&
                     v.imageStride == uint64_t{l_.output.height} * v.rowStride;
  const uint32_t stores = merge ? 1 : box.nb;
  for (uint32_t i = 0; i < stores; ++i) {
    hw::StoreCmd s;
    s.mode = storeModeFor(l_.outputType);
    s.rowBytes = std::min<uint32_t>(C_, l_.n() - (tile + tiles - 1) * C_);  // the last tile's columns
    s.tiles = tiles;
    s.tileAccStride = tiles > 1 ? p_.rowsPerTile : 0;
    s.paramRow = tile - epochFirstTile;
    s.accAddr = acc + i * perImage;
    s.dramAddr = v.origin + uint64_t{box.b0 + i} * v.imageStride + uint64_t{box.oh0} * v.rowStride +
                 uint64_t{box.ow0} * v.pixelStride + uint64_t{n0} * l_.outputElementBytes();
    s.count0 = box.now;
    s.stride0 = static_cast<uint32_t>(v.pixelStride);
    s.count1 = merge ? box.noh * box.nb : box.noh;
    s.stride1 = static_cast<uint32_t>(v.rowStride);
    s.outZp = l_.outZp;
    s.clampMin = l_.clamp.min;
    s.clampMax = l_.clamp.max;
    PlannedCommand pc{s, {{bufferId(BufferKind::kParams, 0), false}}};
    for (uint32_t id : accBuffers) pc.uses.push_back({bufferId(BufferKind::kAccumulator, id), false});
    out_.add(std::move(pc));
  }
  return {};
}

// The loop nest of Tiling.h. Commands are emitted in an order that is a valid sequential
// execution and keeps few tokens outstanding: each load just before the first GEMM that reads
// it, each STORE right after the last GEMM of its tile. The scheduler then hoists the loads.
nn::Status Emitter::run() {
  nK_ = static_cast<uint32_t>(p_.chunks.size());
  Mt_ = p_.rowsPerTile;
  largestLoad_ = p_.largestLoad();
  // A steppable plan runs a tile's chunks of a load one after the other, which fold into one
  // GEMM; streamed weights then go a load's chunks at a time into a range of largestLoad slots
  // (at least two ranges: one computing, the next loading).
  stepped_ = steppable(p_);
  weightRanges_ = p_.weightMode == WeightMode::kStreamed ? p_.wSlots / largestLoad_ : 0;
  groupTiles_ = p_.tilesPerGroup * nK_;  // weight tiles of a full group
  // A pixel's channels of a whole group leave in one write request when a tile is whole beats
  // and the group fits the store's row buffer (weft_store's tiles). With one accumulator buffer
  // each tile is its own dependency and its STORE its own (so the next group can start early).
  mergeStores_ = p_.tilesPerGroup > 1 && p_.accBuffers > 1 && C_ % busBytes_ == 0 &&
                 p_.tilesPerGroup <= hw::micro::kStoreFifoDepth;
  reserve();
  const uint32_t nEpochs = ceilDiv(p_.nTiles, p_.tilesPerEpoch);
  for (uint32_t e = 0; e < nEpochs; ++e) NN_TRY(epoch(e));
  return {};
}

// The input regions' size, and the commands to come reserved at once rather than copied as the
// program grows (an estimate short of a GNMT layer's 2.8 M commands held 75 and 150 MB of
// program at once): a GEMM per (tile, chunk, box), or per image of a windowed box; a STORE per
// (tile, box); per (group, box) a load of each chunk's inputs when they stream and of its
// weights when those do; the rest (per box or epoch) fits the margin.
void Emitter::reserve() {
  inRegionRows_ = (p_.inputMode == InputMode::kResident ? nK_ : largestLoad_) * Mt_;
  if (p_.inputMode == InputMode::kWindowed) {
    inRegionRows_ = 0;
    for (const MBox& b : p_.boxes) {
      inRegionRows_ = std::max<uint32_t>(inRegionRows_, static_cast<uint32_t>(windowTile(l_, b, R_).rowsPerImage() * b.nb));
    }
  }
  uint64_t boxGemms = 0;
  for (const MBox& b : p_.boxes) boxGemms += p_.inputMode == InputMode::kWindowed ? b.nb : 1;
  const uint64_t groupBoxes = uint64_t{ceilDiv(p_.nTiles, p_.tilesPerGroup)} * p_.boxes.size();
  const uint64_t streamedLoads = uint64_t{p_.inputMode == InputMode::kStreamed ? nK_ : 0} +
                                 (p_.weightMode == WeightMode::kStreamed ? nK_ : 0);
  out_.expect(boxGemms * nK_ * p_.nTiles + uint64_t{p_.nTiles} * p_.boxes.size() + groupBoxes * streamedLoads +
              2 * p_.boxes.size() * (p_.inputLoads.size() + 1) + 64);
}

// One parameter epoch: its (box, group) pairs in loop order.
nn::Status Emitter::epoch(uint32_t e) {
  Epoch ep;
  ep.firstTile = e * p_.tilesPerEpoch;
  ep.tiles = std::min(p_.tilesPerEpoch, p_.nTiles - ep.firstTile);
  ep.gFirst = ep.firstTile / p_.tilesPerGroup;
  const uint32_t gEnd = ceilDiv(ep.firstTile + ep.tiles, p_.tilesPerGroup);
  ep.weightsLoaded.assign(gEnd - ep.gFirst, false);
  if (e > 0) out_.add(PlannedCommand{hw::BarrierCmd{}, {}});
  ep.paramsPending = !at_.paramsResident;
  if (!p_.ramped && ep.paramsPending) loadParams(ep.firstTile, ep.tiles);
  if (p_.order == LoopOrder::kBoxesOuter) {
    for (uint32_t b = 0; b < p_.boxes.size(); ++b)
      for (uint32_t g = ep.gFirst; g < gEnd; ++g) NN_TRY(pair(ep, b, g));
  } else {
    for (uint32_t g = ep.gFirst; g < gEnd; ++g)
      for (uint32_t b = 0; b < p_.boxes.size(); ++b) NN_TRY(pair(ep, b, g));
  }
  return {};
}

// Box b and group g: their inputs and weights where they are not resident yet, then each input
// load's GEMMs and the group's STOREs.
nn::Status Emitter::pair(Epoch& ep, uint32_t b, uint32_t g) {
  Pair pr{b, g, p_.boxes[b]};
  pr.newBox = p_.inputMode != InputMode::kStreamed && ep.residentBox != b;
  if (pr.newBox) {
    ep.inBuffer = inUse_++ % p_.inSlots;
    ep.residentBox = b;
  }
  if (p_.weightMode == WeightMode::kResidentEpoch && !ep.weightsLoaded[g - ep.gFirst]) {
    // The epoch's first weights are what the array waits for before its first GEMM: they
    // load in ranges. Later groups load while the array is busy, and at once.
    if (g == ep.gFirst && p_.ramped) {
      loadFirstWeightRanges(g, true);
      ep.rangesPending = true;
    } else {
      loadGroupWeights(g, bankRow() + (g - ep.gFirst) * groupTiles_ * R_, groupBuffer(g - ep.gFirst));
    }
    ep.weightsLoaded[g - ep.gFirst] = true;
  }
  if (p_.weightMode == WeightMode::kResidentGroup && ep.residentGroup != g) {
    ep.groupWBuffer = wUse_++ % 2;
    loadGroupWeights(g, ep.groupWBuffer * groupTiles_ * R_, ep.groupWBuffer);
    ep.residentGroup = g;
  }
  pr.accBuffer = accUse_++ % p_.accBuffers;
  pr.gTiles = groupSize(p_, g);
  for (size_t gi = 0; gi < p_.inputLoads.size(); ++gi) NN_TRY(inputLoad(ep, pr, gi));
  return {};
}

// One input load of a pair (loaded unless resident), then the GEMMs of its chunks.
nn::Status Emitter::inputLoad(Epoch& ep, const Pair& pr, size_t gi) {
  const ChunkGroup& cg = p_.inputLoads[gi];
  // inBuf: the region (spad rows); inId: what dependencies track. A resident region is
  // tracked per load, so that a box's later loads need not wait for the GEMMs reading
  // its earlier ones.
  Load ld{cg};
  uint32_t inBuf = ep.inBuffer;
  ld.inId = ep.inBuffer * static_cast<uint32_t>(p_.inputLoads.size()) + static_cast<uint32_t>(gi);
  if (p_.inputMode == InputMode::kStreamed) {
    inBuf = inUse_++ % p_.inSlots;
    ld.inId = inBuf;
    ld.firstInBuf = cg.first;
    NN_TRY(loadInputs(pr.box, cg, inRegionBase(inBuf), ld.inId, ld.firstInBuf));
  } else if (pr.newBox && p_.inputMode == InputMode::kWindowed) {
    NN_TRY(loadWindow(pr.box, inRegionBase(inBuf), ld.inId));
  } else if (pr.newBox) {
    NN_TRY(loadInputs(pr.box, cg, inRegionBase(inBuf), ld.inId, 0));
  }
  if (ep.rangesPending) {
    loadFirstWeightRanges(ep.gFirst, false);
    ep.rangesPending = false;
  }
  ld.inRow0 = inRegionBase(inBuf);
  ld.inStride = p_.packed ? static_cast<uint32_t>(nK_) : pixelMajor(cg) ? cg.count : 1;
  return stepped_ ? steppedGemms(ep, pr, ld) : chunkGemms(ep, pr, ld);
}

// Packed: pixel p's K string from row p x chunks on. Pixel-major: the load's region (from its
// first chunk's) pixel by pixel, `count` rows a pixel (loadInputs).
uint32_t Emitter::inRowOf(const Load& ld, uint32_t c) const {
  return p_.packed            ? ld.inRow0 + c
         : pixelMajor(ld.cg) ? ld.inRow0 + (ld.cg.first - ld.firstInBuf) * Mt_ + (c - ld.cg.first)
                              : ld.inRow0 + (c - ld.firstInBuf) * Mt_;
}

// The STOREs after tile j's last GEMM.
nn::Status Emitter::storeAfter(const Epoch& ep, const Pair& pr, uint32_t j) {
  const uint32_t tile = pr.g * p_.tilesPerGroup + j;
  if (!mergeStores_) {
    return store(pr.box, tile, 1, ep.firstTile, accBase(pr.accBuffer) + j * Mt_, {accId(pr.accBuffer, j)});
  }
  if (j + 1 < pr.gTiles) return {};
  // The group's tiles in one STORE, after the last of them: a request per pixel.
  return store(pr.box, pr.g * p_.tilesPerGroup, pr.gTiles, ep.firstTile, accBase(pr.accBuffer),
               {accId(pr.accBuffer, 0)});
}

// Resident weights of chunk c: (first row, buffer).
std::pair<uint32_t, uint32_t> Emitter::residentWeights(const Epoch& ep, const Pair& pr, uint32_t c) const {
  if (p_.weightMode == WeightMode::kResidentGroup) {
    return {(ep.groupWBuffer * groupTiles_ + c * pr.gTiles) * R_, ep.groupWBuffer};
  }
  return {bankRow() + ((pr.g - ep.gFirst) * groupTiles_ + c * pr.gTiles) * R_,
          pr.g == ep.gFirst && p_.ramped ? rangeBuffer(c) : groupBuffer(pr.g - ep.gFirst)};
}

// Every chunk of the load has its weights in place (resident, or this load's range of slots),
// so each tile takes its chunks one after the other: GEMMs the StepMerger folds into one of
// k_steps steps, the weights of consecutive chunks gTiles tiles apart and their inputs a chunk
// apart.
nn::Status Emitter::steppedGemms(Epoch& ep, const Pair& pr, const Load& ld) {
  const ChunkGroup& cg = ld.cg;
  uint32_t wBase = 0, wBuf = 0;
  if (p_.weightMode == WeightMode::kStreamed) {
    const uint32_t range = wUse_++ % weightRanges_;
    wBuf = weightRangeSlotsBuffer(range);
    wBase = range * largestLoad_ * p_.tilesPerGroup * R_;
    loadWeightTiles(at_.weights + groupWeightOffset(p_, pr.g, R_, C_) + uint64_t{cg.first} * pr.gTiles * R_ * C_,
                    cg.count * pr.gTiles, wBase, wBuf);
  }
  auto weightsOf = [&](uint32_t c) -> std::pair<uint32_t, uint32_t> {
    if (p_.weightMode != WeightMode::kStreamed) return residentWeights(ep, pr, c);
    return {wBase + (c - cg.first) * pr.gTiles * R_, wBuf};
  };
  // The parameter rows: declared by the epoch's first GEMM, or in a ramped plan loaded
  // just before the first tile's run that holds the last chunk, which declares them.
  const uint32_t declaring = p_.ramped ? nK_ - 1 : cg.first;
  const bool declares = ep.paramsPending && declaring >= cg.first && declaring < cg.first + cg.count;
  if (declares && p_.ramped) loadParams(ep.firstTile, ep.tiles);
  for (uint32_t j = 0; j < pr.gTiles; ++j) {
    for (uint32_t c = cg.first; c < cg.first + cg.count; ++c) {
      const auto [wRow0, cBuf] = weightsOf(c);
      gemm(pr.box, c, inRowOf(ld, c), ld.inStride, ld.inId, wRow0 + j * R_, cBuf, accBase(pr.accBuffer) + j * Mt_,
           accId(pr.accBuffer, j), declares && j == 0 && c == declaring);
    }
    if (cg.first + cg.count == nK_) NN_TRY(storeAfter(ep, pr, j));
  }
  ep.paramsPending = ep.paramsPending && !declares;
  return {};
}

// Chunk by chunk, each across the group's tiles (streamed weights a chunk at a time).
nn::Status Emitter::chunkGemms(Epoch& ep, const Pair& pr, const Load& ld) {
  const ChunkGroup& cg = ld.cg;
  for (uint32_t c = cg.first; c < cg.first + cg.count; ++c) {
    auto [wRow0, wBuf] = residentWeights(ep, pr, c);
    if (p_.weightMode == WeightMode::kStreamed) {
      wBuf = wUse_++ % p_.wSlots;
      wRow0 = wBuf * p_.tilesPerGroup * R_;
      loadChunkWeights(pr.g, c, wRow0, wBuf);
    }
    const bool declareParams = ep.paramsPending && (!p_.ramped || c + 1 == nK_);
    if (declareParams && p_.ramped) loadParams(ep.firstTile, ep.tiles);
    ep.paramsPending = ep.paramsPending && !declareParams;
    for (uint32_t j = 0; j < pr.gTiles; ++j) {
      const uint32_t acc = accBase(pr.accBuffer) + j * Mt_;
      const bool params = declareParams && j == 0;
      if (p_.inputMode == InputMode::kWindowed) {
        windowGemms(pr.box, c, ld.inRow0, ld.inId, wRow0 + j * R_, wBuf, acc, accId(pr.accBuffer, j), params);
      } else {
        gemm(pr.box, c, inRowOf(ld, c), ld.inStride, ld.inId, wRow0 + j * R_, wBuf, acc, accId(pr.accBuffer, j),
             params);
      }
      if (c + 1 == nK_) NN_TRY(storeAfter(ep, pr, j));
    }
  }
  return {};
}

}  // namespace

uint64_t weightTileOffset(const TilePlan& p, uint32_t tile, uint32_t chunk, const hw::HwConfig& config) {
  // Group-major, then chunk, then the group's tiles: the order the GEMM loop consumes them.
  const uint32_t g = tile / p.tilesPerGroup, j = tile % p.tilesPerGroup;
  const uint64_t index = uint64_t{chunk} * groupSize(p, g) + j;
  return groupWeightOffset(p, g, config.rows(), config.cols()) + index * config.rows() * config.cols();
}

bool weightBanksFit(const TilePlan& p, const hw::HwConfig& config) {
  return p.weightMode == WeightMode::kResidentEpoch && p.tilesPerEpoch >= p.nTiles &&
         uint64_t{2} * bankRows(p, config.rows()) <= config.wSpadRows();
}

uint64_t weightImageBytes(const TilePlan& p, const hw::HwConfig& config) {
  return uint64_t{p.chunks.size()} * p.nTiles * config.rows() * config.cols();
}

std::vector<uint8_t> weightImage(const GemmLayer& l, const TilePlan& p, const hw::HwConfig& config) {
  const unsigned C = config.cols();
  const uint32_t K = l.k(), N = l.n();
  std::vector<uint8_t> image(weightImageBytes(p, config), static_cast<uint8_t>(l.wZp));
  for (uint32_t t = 0; t < p.nTiles; ++t) {
    for (uint32_t c = 0; c < p.chunks.size(); ++c) {
      const KChunk& chunk = p.chunks[c];
      uint8_t* tile = &image[weightTileOffset(p, t, c, config)];
      // Channel by channel: each reads a contiguous run of its K weights (the tile, R x C
      // bytes, stays in cache for the strided writes).
      for (uint32_t x = 0; x < C && t * C + x < N; ++x) {
        const uint8_t* from = &l.weights[uint64_t{t * C + x} * K + chunk.kBegin];
        for (uint32_t r = 0; r < chunk.bytes; ++r) tile[r * C + x] = from[r];
      }
    }
  }
  return image;
}

std::vector<uint8_t> paddingImage(const GemmLayer& l, const TilePlan& p, const hw::HwConfig& config) {
  if (p.inputMode != InputMode::kWindowed) return {};
  return std::vector<uint8_t>(size_t{kPaddingRows} * config.rows(), static_cast<uint8_t>(l.inZp));
}

std::vector<uint8_t> paramImage(const GemmLayer& l, const TilePlan& p, const hw::HwConfig& config) {
  const unsigned C = config.cols();
  std::vector<uint8_t> image(uint64_t{p.nTiles} * 9 * C, 0);
  for (uint32_t n = 0; n < l.n(); ++n) {
    uint8_t* row = &image[uint64_t{n / C} * 9 * C];
    const uint32_t x = n % C;
    std::memcpy(row + 4 * x, &l.columns[n].bias, 4);
    std::memcpy(row + 4 * C + 4 * x, &l.columns[n].multiplier, 4);
    row[8 * C + x] = static_cast<uint8_t>(l.columns[n].shift);
  }
  return image;
}

nn::Status generateCommands(const GemmLayer& layer, const TilePlan& plan, const LayerPlacement& where,
                            const hw::HwConfig& config, CommandSink& out) {
  StepMerger steps(out);
  NN_TRY(Emitter(layer, plan, where, config, steps).run());
  steps.flush();
  return {};
}

// Mirrors Emitter::run: every (box, group) pair of every epoch runs each chunk for each tile of
// the group, so every (box, chunk, n-tile) once: one GEMM of the box's rows, or in the windowed
// mode one per image of noh x now rows (windowGemms).
GemmWork gemmWork(const TilePlan& p, const hw::HwConfig& config) {
  const CostModel cost(config);
  GemmWork perChunkTile;
  for (const MBox& box : p.boxes) {
    const bool windowed = p.inputMode == InputMode::kWindowed;
    const uint32_t gemms = windowed ? box.nb : 1;
    perChunkTile.commands += gemms;
    perChunkTile.busyCycles += gemms * cost.gemmBusyCycles(windowed ? uint64_t{box.noh} * box.now : box.rows());
  }
  const uint64_t chunkTiles = uint64_t{p.nTiles} * p.chunks.size();
  return {perChunkTile.commands * chunkTiles, perChunkTile.busyCycles * static_cast<double>(chunkTiles)};
}

nn::Status generateCommands(const GemmLayer& layer, const TilePlan& plan, const LayerPlacement& where,
                            const hw::HwConfig& config, std::vector<PlannedCommand>& out) {
  const size_t before = out.size();
  CommandVector sink(out);
  nn::Status status = generateCommands(layer, plan, where, config, sink);
  if (!status.ok()) out.resize(before);
  return status;
}

}  // namespace weft::accel
