// org.weft.accel's WEFT_LAYER_NORM on the vector unit (LAYER_NORM commands), quant8 asymmetric
// and signed: each row along the last axis normalized to zero mean and unit variance, then
// scaled by gamma and shifted by beta (FLOAT32 constants, one per element of the row).
//
// The split of the work: the LAYER_NORM command sums a row's x and x*x across every lane of its
// scratchpad rows, takes the reciprocal square root once, and writes y = (x - mean) /
// sqrt(variance + epsilon) in fixed point, Q(F), to the accumulator; gamma and beta are the
// STORE's per-column multiplier and bias (a row's element e is lane e % Cols of its scratchpad row
// e / Cols, and every such row is one column tile: parameter row e / Cols). For element c the
// STORE computes requantize(acc + bias[c], M[c]) + zero point, with
//   M[c] = gamma[c] * 2^-F / output scale,   bias[c] = beta[c] / output scale / M[c],
// so the output is (y * gamma[c] + beta[c]) / output scale + zero point, as the reference kernel
// (kernels_ref/ops/WeftLayerNorm.cpp) computes it in double: the two agree to one unit (NNAPI's
// quant8 tolerance). Where gamma[c] is zero or tiny, M[c] is raised to what keeps bias[c] in range
// and F is chosen so that the change and the roundings stay within 0.3 of a unit (worked out per
// column below); a row no F serves stays on the CPU with the reason.
//
// In binary16 (TENSOR_FLOAT16, or a relaxed model's TENSOR_FLOAT32; fp16 hardware): the
// command's fp16 mode (binary32 statistics, weft/hw/layer_norm_fp16.h), Cols/2 elements a
// scratchpad row, the STOREs in fp16_affine mode with gamma and beta as binary32 parameter words
// (row e / (Cols/2), column e % (Cols/2)), one accumulator row a tile; the same groups and chunks.
//
// Tokens go in groups: a group's rows are loaded together, one LAYER_NORM per token writes its
// output rows interleaved (acc_stride = the group's size), and one STORE per column tile writes
// that tile of every token of the group.
//
// A row whose parameter rows (one per column tile) all fit the parameter memory (ParamRows x
// Cols elements: 1024 at weft16, 256 at weft8) has them loaded once, before the first LAYER_NORM
// (which declares reading them: no token queue runs from the load unit to the store unit, so the
// STOREs' need of them goes through the vector unit); groups take turns in parts of the
// scratchpad and the accumulator, two to four, as its program scheduled where the tensors lie
// runs fastest (BufferParts.h). That program is what it was before longer rows ran.
//
// A longer row has its parameter rows loaded in chunks of ParamRows, for each group: the group is
// normalized, then for each chunk its parameter rows are loaded and the STOREs of its column
// tiles issued. Chunks go forwards in one group and backwards in the next, so that a group starts
// with the chunk the previous one ended with, still loaded. Reloading needs two orderings no token
// queue carries, the STOREs of a chunk before the LOAD that rewrites their parameter rows (store
// to load) and that LOAD before the STOREs that read it (load to store); the scheduler derives
// both from the buffers commands declare, through a relay each (VectorCommands::relay, a one-row
// ELTWISE into the accumulator's last row, which the groups leave free): one declaring it
// rewrites the parameter rows (after the STOREs that read them, before the LOAD), one declaring it
// reads them and writes a buffer the next STOREs declare reading (after the LOAD, before them).
// The group takes the whole accumulator but its last row (5 of BERT's rows of 768 at weft8): the
// larger the group, the fewer the parameter loads, which outweigh the overlap of a group's
// LAYER_NORMs with the previous group's STOREs that halves would give. Rows of up to (AccRows - 1)
// x Cols elements run (4088 at weft8, 16368 at weft16; the command itself sums up to 32768); longer
// ones stay on the CPU with the reason.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../ModelAccess.h"
#include "../Requantization.h"
#include "BufferParts.h"
#include "EltwiseLayer.h"
#include "Families.h"
#include "weft/hw/fp16.h"

namespace weft::accel {
namespace {

// Rows of 8-bit values whose sums stay exact in the 32-bit accumulators (hw/spec/isa.json).
constexpr uint64_t kMaxRow = 32768;
// The largest output fraction the command takes, and the error budget of a column in output units.
constexpr int kMaxFraction = 20;
constexpr double kErrorBudget = 0.3;
// When a row's parameters come in chunks: the parts of the accumulator (groups in flight) and
// the regions of the parameter memory (chunks in flight). One and one measured best: BERT's rows
// (768, 128 tokens) at weft8 take 87.7 k cycles so, 115 k with two accumulator halves (groups
// of 2 tokens instead of 5: thrice the parameter loads), 88.5 k with two regions (chunks of 16
// rows, the next loading while the STOREs of this one run: more, smaller loads).
constexpr uint32_t kChunkBuffers = 1;
constexpr uint32_t kChunkRegions = 1;

class LayerNormLayer final : public VectorLayer {
 public:
  uint64_t tokens = 1, width = 1;  // rows along the last axis, its length
  bool isSigned = false;
  int32_t inZp = 0, outZp = 0;
  uint32_t fraction = 0;  // F
  uint64_t eps = 0;       // epsilon / scale^2 * N^2
  bool fp16 = false;      // binary16: the command's fp16 mode, STORE fp16_affine
  uint32_t epsFp32 = 0;   // binary16: epsilon as binary32
  std::vector<hw::ColumnParams> columns;  // one per element of a row

  // Bytes an element, and elements a scratchpad row (its lanes): Cols, or Cols/2 in binary16.
  uint32_t elementBytes() const { return fp16 ? 2 : 1; }
  uint32_t lanes(const hw::HwConfig& config) const { return config.cols() / elementBytes(); }
  uint32_t rowsOf(const hw::HwConfig& config) const {
    return static_cast<uint32_t>(ceilDiv(width, lanes(config)));
  }

  // Parameter row r holds the columns of elements r*L .. r*L + L - 1 (L lanes a row).
  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override {
    const uint32_t C = config.cols(), L = lanes(config), rows = rowsOf(config);
    if (L == C) return {paramRows(columns, rows, config)};
    std::vector<hw::ColumnParams> padded(size_t{rows} * C);
    for (uint64_t e = 0; e < width; ++e) padded[e / L * C + e % L] = columns[e];
    return {paramRows(padded, rows, config)};
  }

  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const override {
    if (rowsOf(config) > config.paramRows()) return generateChunked(where, config, sink);
    uint32_t most = 2;  // one group: nothing to overlap
    if (tokens > groupSize(config, 2)) {
      while (most < kMaxBufferParts && groupSize(config, most + 1) > 0) ++most;
    }
    const auto parts = fastestBufferParts(config, sink, most, [&](CommandSink& s, uint32_t p) {
      return generateResident(where, config, s, p);
    });
    if (!parts.ok()) return parts.error();
    return generateResident(where, config, sink, *parts);
  }

  // STOREs write binary16 through gamma and beta (fp16_affine), or requantize to the 8-bit type;
  // a binary16 tile is one accumulator row of L values (the lanes past L are not the row's), so
  // its STOREs take one tile a row.
  void setStoreType(VectorCommands& cmds) const {
    if (fp16) cmds.setStoreType(ElementType::kFloat16, hw::StoreMode::kFp16Affine);
  }
  uint32_t storeTiles(const VectorCommands& cmds) const { return fp16 ? 1 : cmds.maxStoreTiles(); }
  int32_t clampMin() const { return fp16 ? 0xfc00 : isSigned ? -128 : 0; }
  int32_t clampMax() const { return fp16 ? 0x7c00 : isSigned ? 127 : 255; }

  // A row's parameter rows all fit: loaded once, before the first LAYER_NORM.
  // `parts`: of the scratchpad and the accumulator, groups taking them in turn.
  nn::Status generateResident(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink,
                              uint32_t parts) const {
    const uint32_t L = lanes(config), eb = elementBytes();
    const uint32_t bufRows = config.vecSpadRows() / parts, accPart = config.accRows() / parts;
    const uint32_t rows = rowsOf(config);
    const auto lastLanes = static_cast<uint32_t>(width - uint64_t{rows - 1} * L);
    const uint32_t group = groupSize(config, parts);
    if (group == 0) return NN_ERROR(BAD_DATA) << "a layer-norm row is longer than the buffers";
    const uint32_t paramBytes = config.paramRowBytes();
    const uint64_t in0 = where.inputs[0].origin, out0 = where.outputs[0].origin;
    VectorCommands cmds(config, sink);
    setStoreType(cmds);
    NN_TRY(cmds.loadRows(hw::Mem::kParam, where.constants[0], 0, rows, paramBytes, paramBytes, paramBuffer()));
    uint32_t buf = 0;
    for (uint64_t t0 = 0; t0 < tokens; t0 += group) {
      const auto g = static_cast<uint32_t>(std::min<uint64_t>(group, tokens - t0));
      const uint32_t spad = buf * bufRows, acc = buf * accPart;
      NN_TRY(loadGroup(cmds, in0, t0, g, spad, vecBuffer(1 + buf), config));
      layerNorms(cmds, g, spad, acc, {{accBuffer(buf), true}, {vecBuffer(1 + buf), false}, {paramBuffer(), false}},
                 rows, lastLanes);
      // Column tiles r .. r + tiles - 1 of every token of the group, with parameter rows r ..: a
      // token's tiles leave as one DRAM request (row j of the STORE is token j; its tile t,
      // column tile r + t, is accumulator row acc + (r + t)*g + j).
      const uint32_t perStore = storeTiles(cmds);
      for (uint32_t r = 0; r < rows; r += perStore) {
        const uint32_t tiles = std::min(perStore, rows - r);
        NN_TRY(cmds.storeTiledRows(out0 + (t0 * width + uint64_t{r} * L) * eb, width * eb, g, tiles,
                                   (r + tiles == rows ? lastLanes : L) * eb, acc + r * g, g, accBuffer(buf), r, outZp,
                                   clampMin(), clampMax()));
      }
      buf = (buf + 1) % parts;
    }
    return {};
  }

  // The group's rows: one LOAD when rows are whole (the tokens are dense), else one a token (its
  // last row reads past it: allocations keep Cols bytes of slack).
  nn::Status loadGroup(VectorCommands& cmds, uint64_t in0, uint64_t t0, uint32_t g, uint32_t spad, uint32_t buffer,
                       const hw::HwConfig& config) const {
    const uint32_t C = config.cols(), rows = rowsOf(config), eb = elementBytes();
    if (width % lanes(config) == 0) {
      return cmds.loadRows(hw::Mem::kVec, in0 + t0 * width * eb, spad, g * rows, C, C, buffer);
    }
    for (uint32_t j = 0; j < g; ++j) {
      NN_TRY(cmds.loadRows(hw::Mem::kVec, in0 + (t0 + j) * width * eb, spad + j * rows, rows, C, C, buffer));
    }
    return {};
  }

  // One LAYER_NORM a token of the group, its output rows interleaved (acc_stride = g).
  void layerNorms(VectorCommands& cmds, uint32_t g, uint32_t spad, uint32_t acc, BufferUses uses, uint32_t rows,
                  uint32_t lastLanes) const {
    for (uint32_t j = 0; j < g; ++j) {
      hw::LayerNormCmd n;
      n.inSigned = isSigned;
      n.inZp = inZp;
      n.count = rows;
      n.inAddr = spad + j * rows;
      n.stride = 1;
      n.accAddr = acc + j;
      n.accStride = g;
      n.lastLanes = lastLanes;
      n.outShift = fraction;
      n.eps = eps;
      n.fp16 = fp16;
      n.epsFp32 = epsFp32;
      cmds.vector(n, uses);
    }
  }

  // The parameter memory holds a chunk of the row's parameter rows at a time. See the comment at
  // the top of the file.
  struct ChunkPlan {
    uint32_t regions = 1;     // of the parameter memory, loaded in turn
    uint32_t chunkRows = 0;   // parameter rows (column tiles) of a chunk: a region's
    uint32_t chunks = 0;
    uint32_t buffers = 1;     // parts of the accumulator (groups in flight)
    uint32_t group = 0;       // tokens a group holds
  };

  ChunkPlan chunkPlan(const hw::HwConfig& config) const {
    ChunkPlan p;
    const uint64_t rows = rowsOf(config);
    p.regions = std::min(kChunkRegions, config.paramRows());
    p.chunkRows = config.paramRows() / p.regions;
    p.chunks = static_cast<uint32_t>(ceilDiv(rows, p.chunkRows));
    // Each part of the accumulator keeps its last row for the relays.
    auto fit = [&](uint32_t buffers) {
      const uint64_t byAcc = (config.accRows() / buffers - 1) / rows, bySpad = config.vecSpadRows() / 2 / rows;
      return static_cast<uint32_t>(std::min<uint64_t>({byAcc, bySpad, tokens, 4095}));
    };
    p.buffers = kChunkBuffers;
    p.group = fit(p.buffers);
    if (p.group == 0 && p.buffers == 2) {
      p.buffers = 1;
      p.group = fit(1);
    }
    return p;
  }

  nn::Status generateChunked(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const {
    const uint32_t L = lanes(config), eb = elementBytes();
    const uint32_t rows = rowsOf(config);
    const auto lastLanes = static_cast<uint32_t>(width - uint64_t{rows - 1} * L);
    const ChunkPlan p = chunkPlan(config);
    if (p.group == 0) {
      return NN_ERROR(BAD_DATA) << fmt::format(
                 "a layer-norm row of {} elements needs {} rows of the accumulator and the vector scratchpad at "
                 "once; they hold {} and {} (a row of at most {} elements)",
                 width, rows, config.accRows() - 1, config.vecSpadRows() / 2, maxRow(config, fp16));
    }
    const uint32_t spadHalf = config.vecSpadRows() / 2, accPart = config.accRows() / p.buffers;
    const uint32_t paramBytes = config.paramRowBytes();
    const uint64_t in0 = where.inputs[0].origin, out0 = where.outputs[0].origin;
    const auto groups = static_cast<uint32_t>(ceilDiv(tokens, p.group));
    const bool pipelined = p.buffers == 2;
    VectorCommands cmds(config, sink);
    setStoreType(cmds);

    // The chunks in the order the STOREs take them: group by group, every other group backwards,
    // so that a group starts with the chunk its predecessor ended with (still loaded). Load n of
    // the sequence goes to region n % regions.
    struct Step {
      uint32_t group, chunk, load;
    };
    std::vector<Step> steps;
    std::vector<uint32_t> loadChunk;  // per load, its chunk
    for (uint32_t i = 0; i < groups; ++i) {
      for (uint32_t j = 0; j < p.chunks; ++j) {
        const uint32_t k = i % 2 == 0 ? j : p.chunks - 1 - j;
        if (loadChunk.empty() || loadChunk.back() != k) loadChunk.push_back(k);
        steps.push_back({i, k, static_cast<uint32_t>(loadChunk.size() - 1)});
      }
    }
    auto region = [&](uint32_t n) { return n % p.regions; };
    // Relay rows and the buffers a relay writes for the STOREs of load n to read.
    auto relayRow = [&](uint32_t buf) { return buf * accPart + accPart - 1; };
    auto relayed = [&](uint32_t n) { return accBuffer(2 + n % 2); };
    uint32_t loaded = 0;  // loads emitted
    // Load n of chunk k into its region: after the STOREs that read the region's previous chunk
    // (a relay declaring it rewrites the region proves them complete to the load unit).
    auto load = [&](uint32_t buf) -> nn::Status {
      const uint32_t n = loaded++, k = loadChunk[n];
      const uint32_t first = k * p.chunkRows, count = std::min(p.chunkRows, rows - first);
      if (n >= p.regions) cmds.relay(0, relayRow(buf), {{paramBuffer(region(n)), true}});
      return cmds.loadRows(hw::Mem::kParam, where.constants[0] + uint64_t{first} * paramBytes,
                           region(n) * p.chunkRows, count, paramBytes, paramBytes, paramBuffer(region(n)));
    };
    // Group i's rows go to scratchpad half i % 2 (the next group's load runs while this group
    // is normalized), its outputs to accumulator part i % buffers.
    auto groupLoad = [&](uint32_t i) -> nn::Status {
      const uint64_t t0 = uint64_t{i} * p.group;
      const auto g = static_cast<uint32_t>(std::min<uint64_t>(p.group, tokens - t0));
      return loadGroup(cmds, in0, t0, g, (i % 2) * spadHalf, vecBuffer(1 + i % 2), config);
    };
    auto groupNorms = [&](uint32_t i) {
      const uint32_t buf = i % p.buffers;
      const uint64_t t0 = uint64_t{i} * p.group;
      const auto g = static_cast<uint32_t>(std::min<uint64_t>(p.group, tokens - t0));
      layerNorms(cmds, g, (i % 2) * spadHalf, buf * accPart,
                 {{accBuffer(buf), true}, {vecBuffer(1 + i % 2), false}}, rows, lastLanes);
    };

    // The LAYER_NORMs of group i go before the STOREs of group i - 1 when the accumulator has two
    // parts (the vector unit normalizes while the store unit writes), else after them; the rows
    // of group i + 1 are loaded right after them.
    NN_TRY(groupLoad(0));
    uint32_t normed = 0;
    int64_t inMemory = -1;  // the load the STOREs use
    for (size_t s = 0; s < steps.size(); ++s) {
      const Step& st = steps[s];
      const uint32_t buf = st.group % p.buffers;
      while (normed <= st.group + (pipelined ? 1 : 0) && normed < groups) {
        groupNorms(normed);
        if (++normed < groups) NN_TRY(groupLoad(normed));
      }
      if (inMemory != st.load) {
        const uint32_t n = st.load;
        while (loaded <= n) NN_TRY(load(buf));
        // The load before the STOREs that read it: a relay after it that those STOREs follow.
        cmds.relay(0, relayRow(buf), {{paramBuffer(region(n)), false}, {relayed(n), true}});
        inMemory = n;
        // The next chunk's load, into the other region, while this one's STOREs run.
        if (p.regions > 1 && loaded < loadChunk.size() && loaded <= n + p.regions - 1) NN_TRY(load(buf));
      }
      cmds.setStoreReads(paramBuffer(region(st.load)), relayed(st.load));
      const uint64_t t0 = uint64_t{st.group} * p.group;
      const auto g = static_cast<uint32_t>(std::min<uint64_t>(p.group, tokens - t0));
      const uint32_t acc = buf * accPart, first = st.chunk * p.chunkRows;
      const uint32_t end = std::min(rows, first + p.chunkRows), perStore = storeTiles(cmds);
      for (uint32_t r = first; r < end; r += perStore) {
        const uint32_t tiles = std::min(perStore, end - r);
        NN_TRY(cmds.storeTiledRows(out0 + (t0 * width + uint64_t{r} * L) * eb, width * eb, g, tiles,
                                   (r + tiles == rows ? lastLanes : L) * eb, acc + r * g, g, accBuffer(buf),
                                   region(st.load) * p.chunkRows + (r - first), outZp, clampMin(), clampMax()));
      }
    }
    return {};
  }

  // The longest row a configuration runs: its rows in the accumulator (less a relay row) and in a
  // half of the vector scratchpad at once, and the command's limit (N counted in bytes' lanes).
  static uint64_t maxRow(const hw::HwConfig& config, bool fp16) {
    const uint32_t L = config.cols() / (fp16 ? 2 : 1);
    return std::min<uint64_t>(kMaxRow / (fp16 ? 2 : 1),
                              uint64_t{std::min(config.accRows() - 1, config.vecSpadRows() / 2)} * L);
  }

  // Tokens a group holds: a part of the vector scratchpad and of the accumulator each (of
  // `parts`), and acc_stride's 12 bits.
  uint32_t groupSize(const hw::HwConfig& config, uint32_t parts = 2) const {
    const uint64_t rows = rowsOf(config);
    const uint64_t fit = std::min<uint64_t>(config.vecSpadRows() / parts / rows, config.accRows() / parts / rows);
    return static_cast<uint32_t>(std::min<uint64_t>({fit, tokens, 4095}));
  }

  uint64_t laneOps() const override { return 2 * tokens * width; }
  std::string describe() const override { return fmt::format("layer norm{} {}x{}", fp16 ? " fp16" : "", tokens, width); }
};

std::vector<double> floatConstant(const OperationReader& r, uint32_t i, uint64_t count) {
  const auto& o = r.input(i);
  const uint8_t* bytes = constantBytes(r.model(), o);
  if (o.type != nn::OperandType::TENSOR_FLOAT32 || bytes == nullptr || o.location.length < count * 4 ||
      nn::numberOfElements(o.dimensions) != count) {
    return {};
  }
  std::vector<double> v(count);
  for (uint64_t k = 0; k < count; ++k) {
    float f;
    std::memcpy(&f, bytes + 4 * k, 4);
    v[k] = f;
  }
  return v;
}

// A constant TENSOR_FLOAT16 (widened, exactly) or TENSOR_FLOAT32 operand of `count` values as
// binary32 bit patterns (STORE fp16_affine's multiplier and bias words); empty if it is not one.
std::vector<uint32_t> binary32Constant(const OperationReader& r, uint32_t i, uint64_t count) {
  const auto& o = r.input(i);
  const uint8_t* bytes = constantBytes(r.model(), o);
  const bool half = o.type == nn::OperandType::TENSOR_FLOAT16;
  if ((!half && o.type != nn::OperandType::TENSOR_FLOAT32) || bytes == nullptr ||
      o.location.length < count * (half ? 2 : 4) || nn::numberOfElements(o.dimensions) != count) {
    return {};
  }
  std::vector<uint32_t> v(count);
  for (uint64_t k = 0; k < count; ++k) {
    if (half) {
      uint16_t h;
      std::memcpy(&h, bytes + 2 * k, 2);
      v[k] = hw::fp::fp16ToFp32(h);
    } else {
      std::memcpy(&v[k], bytes + 4 * k, 4);
    }
  }
  return v;
}

// WEFT_LAYER_NORM in binary16 (TENSOR_FLOAT16, or a relaxed model's TENSOR_FLOAT32): the
// command's fp16 mode writes (x - mean) / sqrt(variance + epsilon) as binary32 and STOREs in
// fp16_affine mode apply gamma (the multiplier words) and beta (the bias words), both binary32,
// rounding once to binary16. Epsilon stays binary32 (1e-12 has no binary16).
nn::Result<LoweredOperation> lowerLayerNormFp16(const OperationReader& r, uint32_t index) {
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  NN_TRY(r.halfTensor(in, "input", 1, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  NN_TRY(r.checkOutputDims(in.dimensions));
  const uint64_t width = in.dimensions.back();
  if (width == 0 || width > kMaxRow / 2) {
    return r.fail("rows along the last axis of {} elements (the hardware sums at most {} in binary16)", width,
                  kMaxRow / 2);
  }
  const std::vector<uint32_t> gamma = binary32Constant(r, 1, width), beta = binary32Constant(r, 2, width);
  if (gamma.empty() || beta.empty()) {
    return r.fail("gamma and beta must be constant TENSOR_FLOAT16 or TENSOR_FLOAT32 of {} values", width);
  }
  const auto& e = r.input(3);
  float epsilon = 0;
  if (e.type == nn::OperandType::FLOAT16) {
    auto h = r.halfParam(3, "epsilon");
    if (!h.ok()) return h.error();
    epsilon = hw::fp::fp16Value(*h);
  } else {
    auto f = r.floatParam(3, "epsilon");
    if (!f.ok()) return f.error();
    epsilon = *f;
  }
  if (!std::isfinite(epsilon) || epsilon < 0) return r.fail("epsilon must be finite and non-negative");

  auto layer = std::make_shared<LayerNormLayer>();
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->fp16 = true;
  layer->valueType = ElementType::kFloat16;
  layer->width = width;
  layer->tokens = nn::numberOfElements(in.dimensions) / width;
  layer->epsFp32 = hw::fp::bitsOf(epsilon);
  layer->columns.resize(width);
  for (uint64_t c = 0; c < width; ++c) {
    layer->columns[c].multiplier = static_cast<int32_t>(gamma[c]);
    layer->columns[c].bias = static_cast<int32_t>(beta[c]);
  }
  return loweredOverRows(std::move(layer), r.op(), in.dimensions);
}

// The STORE's parameters of one column at fraction F: M = gamma 2^-F / s (raised where gamma is
// too small for beta's bias to fit, or below what a shift of -31 reaches), and the column's error
// bound in output units: the accumulator's error (its rounding, and the reciprocal square root's
// few parts in 2^30 of |y| 2^F: under one unit) times |M|, the raise times the largest |y|
// (sqrt(N)) times 2^F, the bias's rounding times |M|.
struct Column {
  hw::ColumnParams params;
  double error = 0;
};

std::optional<Column> columnAt(double gamma, double beta, double outScale, int fraction, double maxY) {
  const double m = gamma * std::ldexp(1.0, -fraction) / outScale, b = beta / outScale;
  const double floorM = std::max(std::fabs(b) / std::ldexp(1.0, 29), std::ldexp(1.0, -32));
  const double used = std::max(std::fabs(m), floorM);
  const auto q = quantizeMultiplier(used);
  if (!q || q->shift < -31) return std::nullopt;
  Column c;
  c.params.multiplier = gamma < 0 ? -q->multiplier : q->multiplier;
  c.params.shift = static_cast<int8_t>(q->shift);
  const double bias = std::round(b / (gamma < 0 ? -used : used));
  if (std::fabs(bias) >= std::ldexp(1.0, 30)) return std::nullopt;
  c.params.bias = static_cast<int32_t>(bias);
  c.error = 1.0 * used + (used - std::fabs(m)) * maxY * std::ldexp(1.0, fraction) + 0.5 * used;
  return c;
}

}  // namespace

nn::Result<LoweredOperation> lowerLayerNorm(const OperationReader& r, uint32_t index, bool) {
  const auto& op = r.op();
  NN_TRY(r.expectCounts({4}, 1));
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  if (r.halfType(in)) return lowerLayerNormFp16(r, index);
  NN_TRY(r.quant8Tensor(in, "input", 1, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  NN_TRY(r.checkOutputDims(in.dimensions));
  const uint64_t width = in.dimensions.back();
  if (width == 0 || width > kMaxRow) {
    return r.fail("rows along the last axis of {} elements (the hardware sums at most {})", width, kMaxRow);
  }
  const std::vector<double> gamma = floatConstant(r, 1, width), beta = floatConstant(r, 2, width);
  if (gamma.empty() || beta.empty()) {
    return r.fail("gamma and beta must be constant TENSOR_FLOAT32 of {} values (the STORE's parameters)", width);
  }
  auto epsilon = r.floatParam(3, "epsilon");
  if (!epsilon.ok()) return epsilon.error();
  if (!std::isfinite(*epsilon) || *epsilon < 0) return r.fail("epsilon must be finite and non-negative");
  const double n = static_cast<double>(width);
  const double eps = std::round(double{*epsilon} / (double{in.scale} * in.scale) * n * n);
  if (eps >= std::ldexp(1.0, 48)) return r.fail("epsilon is too large for the input's scale ({} squared units)", eps);

  // The largest fraction at which every column stays within the error budget.
  const double maxY = std::sqrt(n);
  std::vector<hw::ColumnParams> columns;
  int fraction = kMaxFraction;
  for (; fraction >= 0; --fraction) {
    columns.clear();
    for (uint64_t c = 0; c < width; ++c) {
      const auto col = columnAt(gamma[c], beta[c], out.scale, fraction, maxY);
      if (!col || col->error > kErrorBudget) break;
      columns.push_back(col->params);
    }
    if (columns.size() == width) break;
  }
  if (fraction < 0) return r.fail("no output fraction keeps gamma and beta within the STORE's range");

  auto layer = std::make_shared<LayerNormLayer>();
  layer->operationIndex = index;
  layer->type = op.type;
  layer->isSigned = isSignedType(in.type);
  layer->valueType = quant8(layer->isSigned);
  layer->width = width;
  layer->tokens = nn::numberOfElements(in.dimensions) / width;
  layer->inZp = in.zeroPoint;
  layer->outZp = out.zeroPoint;
  layer->fraction = static_cast<uint32_t>(fraction);
  layer->eps = static_cast<uint64_t>(eps);
  layer->columns = std::move(columns);
  return loweredOverRows(std::move(layer), op, in.dimensions);
}

}  // namespace weft::accel
