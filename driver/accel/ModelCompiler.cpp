#include "ModelCompiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "CommandGenerator.h"
#include "CommandScheduler.h"
#include "CostModel.h"
#include "Lowering.h"
#include "ModelAccess.h"
#include "RuntimeOperands.h"
#include "Tiling.h"
#include "TilingMemo.h"
#include "Transfer.h"

namespace weft::accel {
namespace {

// Operation indexes in an order where every operation follows the producers of its inputs.
nn::Result<std::vector<uint32_t>> dependencyOrder(const nn::Model& model) {
  const auto& ops = model.main.operations;
  std::map<uint32_t, uint32_t> producer;
  for (uint32_t i = 0; i < ops.size(); ++i)
    for (uint32_t o : ops[i].outputs) producer[o] = i;
  std::vector<uint32_t> order;
  std::vector<int> state(ops.size(), 0);  // 0 new, 1 visiting, 2 done
  std::function<nn::Status(uint32_t)> visit = [&](uint32_t i) -> nn::Status {
    if (state[i] == 2) return {};
    if (state[i] == 1) return NN_ERROR(BAD_DATA) << "the model's operations form a cycle";
    state[i] = 1;
    for (uint32_t in : ops[i].inputs) {
      auto it = producer.find(in);
      if (it != producer.end()) NN_TRY(visit(it->second));
    }
    state[i] = 2;
    order.push_back(i);
    return {};
  };
  for (uint32_t i = 0; i < ops.size(); ++i) NN_TRY(visit(i));
  return order;
}

nn::Result<SharedRegion> allocateAndWrite(DeviceQueue& q, const std::vector<uint8_t>& bytes,
                                          const std::string& what) {
  auto region = q.allocator()->allocate(bytes.size(), 64, what);
  if (!region.ok()) return region.error();
  q.backend().writeDram(region.value()->addr(), bytes.data(), bytes.size());
  return region;
}

// Bump when the candidates rankTilings() returns, their order, or how one is chosen change:
// cached indices made by an older compiler then name other tilings, so its caches must not match.
constexpr uint64_t kTilingRevision = 9;

nn::Status checkDeadline(const DeviceQueue::Deadline& deadline, uint32_t operationIndex) {
  if (deadline && std::chrono::steady_clock::now() > *deadline) {
    return NN_ERROR(MISSED_DEADLINE_PERSISTENT) << "the compilation deadline passed while compiling operation "
                                                << operationIndex;
  }
  return {};
}

// The tiling whose scheduled program is shortest among the analytically best candidates, or
// the candidate `replay` names when there is one; its index goes to *chosen.
nn::Result<TilePlan> bestTiling(const GemmLayer& layer, const std::vector<KChunk>& chunks,
                                const LayerPlacement& where, const hw::HwConfig& config,
                                std::optional<uint32_t> replay, uint32_t* chosen,
                                const DeviceQueue::Deadline& deadline, double slack) {
  const std::string memoKey = replay.has_value() ? "" : TilingMemo::key(layer, chunks, where, config, slack);
  if (!replay.has_value()) {
    if (auto known = TilingMemo::instance().find(memoKey)) {
      *chosen = known->candidate;
      return std::move(known->plan);
    }
  }
  // Ten shapes: the first round costs a candidate at most a prefix, so the search affords more
  // than the six it could schedule whole (0.1-1 % fewer cycles on most baselines).
  constexpr size_t kShapes = 10;
  auto ranked = rankTilings(layer, chunks, where.input, config, kShapes);
  if (ranked.empty()) {
    return NN_ERROR(OP_FAILED) << "no tiling of operation " << layer.operationIndex << " (M " << layer.m()
                               << ", N " << layer.n() << ", K " << layer.k()
                               << ") fits the configuration's memories";
  }
  *chosen = 0;
  // Index count + i names candidate i's ramped variant (rampedPlan).
  const size_t count = ranked.size();
  if (replay.has_value() && *replay >= count && *replay < 2 * count) {
    if (auto ramped = rampedPlan(ranked[*replay - count], config)) {
      ranked[*replay - count] = std::move(*ramped);
      replay = *replay - count;
      *chosen = static_cast<uint32_t>(count);
    }
  }
  if (replay.has_value() && *replay < count) {
    ScheduleEstimator estimator(config);
    NN_TRY(generateCommands(layer, ranked[*replay], where, config, estimator));
    ranked[*replay].estimatedCycles = estimator.cycles();
    *chosen += *replay;
    return std::move(ranked[*replay]);
  }
  if (ranked.size() == 1) {
    TilingMemo::instance().remember(memoKey, {0, ranked.front()});
    return std::move(ranked.front());
  }
  // Two rounds. First every candidate is scheduled over a prefix of at most kPrefixGemms GEMMs
  // and its timeline extrapolated (ScheduleEstimator); then the best few of those, and with a
  // preference's slack every candidate within reach of it, are scheduled whole (up to
  // kWholeGemms GEMMs: beyond, the prefix's rate is the estimate, the edges being negligible).
  // The choice is made among the second round. A candidate costs the search at most a prefix
  // unless it is a contender, where the search used to schedule each of them whole.
  constexpr uint64_t kPrefixGemms = 1024;
  constexpr uint64_t kWholeGemms = 200000;
  constexpr size_t kContenders = 6;
  // A shape whose first-round estimate is more than this behind the best is no contender: the
  // prefix's error is a few per cent (measured in scheduler_test), and scheduling fewer programs
  // whole saved 7 % of a sweep without a cycle lost on any baseline.
  constexpr double kReach = 0.03;
  std::vector<GemmWork> work(count);
  for (size_t i = 0; i < count; ++i) work[i] = gemmWork(ranked[i], config);
  std::vector<nn::Status> status(count);
  std::vector<double> cycles(count, 0), channel(count, 0);
  // One byte a slot: std::vector<bool> packs slots into shared words, and two workers writing
  // neighbouring bits race (ThreadSanitizer, tests/accel/search_test.cpp).
  std::vector<uint8_t> whole(count, 0);
  // The candidates are independent and the search is most of a large model's compilation, so
  // a second thread takes every other one when there is enough to share (a thread costs tens
  // of microseconds). Each result lands in its own slot: the choice does not depend on timing.
  auto evaluate = [&](const std::vector<size_t>& which, uint64_t budget) {
    uint64_t gemms = 0;
    for (size_t i : which) gemms += budget > 0 ? std::min(budget, work[i].commands) : work[i].commands;
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t k = next++; k < which.size(); k = next++) {
        const size_t i = which[k];
        status[i] = checkDeadline(deadline, layer.operationIndex);
        if (!status[i].ok()) continue;
        ScheduleEstimator estimator(config, budget);
        try {
          status[i] = generateCommands(layer, ranked[i], where, config, estimator);
        } catch (const EstimateBudgetSpent&) {
        }
        cycles[i] = estimator.projectedCycles(work[i].busyCycles);
        channel[i] = estimator.projectedChannelCycles(work[i].busyCycles);
        whole[i] = !estimator.truncated();
      }
    };
    constexpr uint64_t kGemmsWorthAThread = 20000;
    if (gemms >= kGemmsWorthAThread && which.size() > 1 && std::thread::hardware_concurrency() > 1) {
      auto helper = std::async(std::launch::async, worker);
      worker();
      helper.get();  // rethrows what the helper threw
    } else {
      worker();
    }
  };
  std::vector<size_t> all(count);
  for (size_t i = 0; i < count; ++i) all[i] = i;
  evaluate(all, kPrefixGemms);
  for (size_t i = 0; i < count; ++i) NN_TRY(status[i]);

  if (std::getenv("WEFT_ACCEL_TRACE_TILING") != nullptr) {
    for (size_t i = 0; i < count; ++i) {
      std::fprintf(stderr, "[tiling] round 1, candidate %zu: %.0f cycles%s\n", i, cycles[i],
                   whole[i] ? "" : " (extrapolated)");
    }
  }
  // The contenders: the best candidate of each of the kContenders best shapes within kReach
  // (load sizes and loop orders apart, which the prefix ranks well: their differences show from
  // the start), since the prefix misjudges what only shows later (a partial last group, epoch
  // changes) by a few per cent alike for every member of a shape.
  std::vector<size_t> byCycles = all;
  std::stable_sort(byCycles.begin(), byCycles.end(), [&](size_t a, size_t b) { return cycles[a] < cycles[b]; });
  auto shapeOf = [&](size_t i) {
    const TilePlan& p = ranked[i];
    return std::make_tuple(p.tilesPerGroup, p.accBuffers, p.inputMode, p.weightMode, p.rowsPerTile, p.packed);
  };
  // A shape's members (its load sizes) within kTie of its fastest are a tie, broken by the DRAM
  // channel: larger loads of the same data cost fewer requests (fewer bursts, less energy) and
  // fewer commands to compile and simulate, for a few cycles of a first load's latency (GNMT's
  // 1024x1632 -> 36548: 4-chunk loads 384 cycles of 240 M behind 1-chunk ones, with 44 % of
  // their channel time; they then ran shorter).
  constexpr double kTie = 1e-5;
  auto tieBreak = [&](size_t i) {
    size_t pick = i;
    for (size_t j : byCycles) {
      if (cycles[j] > cycles[i] * (1 + kTie)) break;
      if (shapeOf(j) == shapeOf(i) && channel[j] < channel[pick]) pick = j;
    }
    return pick;
  };
  std::vector<decltype(shapeOf(0))> shapes;
  std::vector<size_t> contenders, rescheduled;
  for (size_t i : byCycles) {
    const bool newShape = std::find(shapes.begin(), shapes.end(), shapeOf(i)) == shapes.end();
    // With slack the least-traffic candidate within it may rank anywhere among those in reach
    // (a 10 % margin for the prefix's error).
    const bool inReach = slack > 0 && cycles[i] <= cycles[byCycles[0]] * (1 + slack) * 1.1;
    const bool contender =
        newShape && shapes.size() < kContenders && cycles[i] <= cycles[byCycles[0]] * (1 + kReach);
    if (!contender && !inReach) continue;
    if (newShape) shapes.push_back(shapeOf(i));
    const size_t c = contender ? tieBreak(i) : i;
    if (std::find(contenders.begin(), contenders.end(), c) != contenders.end()) continue;
    contenders.push_back(c);
    if (!whole[c] && work[c].commands <= kWholeGemms) rescheduled.push_back(c);
  }
  evaluate(rescheduled, 0);
  for (size_t i : rescheduled) NN_TRY(status[i]);

  size_t best = contenders.front();
  for (size_t i : contenders) {
    if (std::getenv("WEFT_ACCEL_TRACE_TILING") != nullptr) {
      std::fprintf(stderr, "[tiling] candidate %zu: %s; scheduled %.0f cycles, DRAM channel %.0f cycles%s\n", i,
                   ranked[i].describe().c_str(), cycles[i], channel[i], whole[i] ? "" : " (extrapolated)");
    }
    if (cycles[i] < cycles[best] || (cycles[i] == cycles[best] && i < best)) best = i;
  }
  // A packed plan must win clearly: where the channel bounds a layer, the timeline ties it with
  // the plain plan over the same requests (SqueezeNet's stem at weft16: 168,824 against 168,888
  // scheduled cycles) while it runs 2.5 % slower, its GEMMs waiting for every piece of a box.
  constexpr double kPackedMargin = 0.01;
  if (ranked[best].packed) {
    std::optional<size_t> plain;
    for (size_t i : contenders) {
      if (!ranked[i].packed && (!plain || cycles[i] < cycles[*plain])) plain = i;
    }
    if (plain && cycles[*plain] <= cycles[best] * (1 + kPackedMargin)) best = *plain;
  }
  // The preference's trade: the least DRAM traffic within `slack` of the fastest.
  if (slack > 0) {
    const size_t fastest = best;
    for (size_t i : contenders) {
      const bool lessTraffic = channel[i] < channel[best] || (channel[i] == channel[best] && i < best);
      if (cycles[i] <= cycles[fastest] * (1 + slack) && lessTraffic) best = i;
    }
  }
  ranked[best].estimatedCycles = cycles[best];
  *chosen = static_cast<uint32_t>(best);
  // The choice with ramped ends, kept when its whole timeline is shorter and, where a preference
  // traded cycles for traffic, its traffic no more (its smaller boxes take more commands to fetch). Tried on the choice alone (the ramp changes the
  // layer's ends only, alike for every candidate), and only where the array is the bottleneck
  // (its GEMMs fill kRampBusyShare of the timeline): there the ends are what is left to win,
  // where a layer the DMA bounds loses more to the smaller boxes' extra requests than the
  // timeline shows (GoogLeNet's 14x14x24 1x1 at weft8: 1.7 % slower ramped, against 2 %
  // faster on the estimate).
  constexpr double kRampBusyShare = 0.9;
  // And only for a clear gain: a few hundred cycles either way are within the timeline's error
  // where the store unit and the channel are busy (ResNet-50's 56x56x64 1x1 at weft8: 0.13 %
  // shorter on the estimate, 0.4 % slower run).
  constexpr double kRampGain = 0.015;
  const RampChoice ramp = rampChoice();
  if (ramp == RampChoice::kAlways ||
      (ramp == RampChoice::kSearch && whole[best] && work[best].busyCycles >= kRampBusyShare * cycles[best])) {
    if (auto ramped = rampedPlan(ranked[best], config)) {
      ScheduleEstimator estimator(config);
      NN_TRY(generateCommands(layer, *ramped, where, config, estimator));
      const bool traceTiling = std::getenv("WEFT_ACCEL_TRACE_TILING") != nullptr;
      if (traceTiling) {
        std::fprintf(stderr, "[tiling] candidate %zu ramped: scheduled %.0f cycles, DRAM channel %.0f cycles\n",
                     best, estimator.cycles(), estimator.channelCycles());
      }
      const bool gains = estimator.cycles() < cycles[best] * (1 - kRampGain) &&
                         (slack == 0 || estimator.channelCycles() <= channel[best]);
      if (gains || ramp == RampChoice::kAlways) {
        ramped->estimatedCycles = estimator.cycles();
        ranked[best] = std::move(*ramped);
        *chosen = static_cast<uint32_t>(count + best);
      }
    }
  }
  TilingMemo::instance().remember(memoKey, {*chosen, ranked[best]});
  return std::move(ranked[best]);
}

}  // namespace

namespace {

// A sink that only counts: a vector layer's commands generated against a made-up placement
// prove that its tiling fits the configuration's memories and command fields.
class CountingSink final : public CommandSink {
 public:
  void add(PlannedCommand&&) override { ++count; }
  size_t count = 0;
};

// An fp16 layer needs the fp16 datapath; without it the runtime runs the operation elsewhere.
nn::Status datapathFits(const LoweredOperation& lo, const hw::HwConfig& config) {
  if ((lo.isVector() ? lo.vector->fp16 : lo.layer.fp16) && !config.fp16()) {
    return NN_ERROR(BAD_DATA) << nn::toString(lo.type()) << " in float16 (TENSOR_FLOAT16, or TENSOR_FLOAT32 relaxed) "
                              << "needs the fp16 datapath (Fp16 1, as in weft16fp); " << config.name() << " has none";
  }
  return {};
}

nn::Status vectorLayerFits(const VectorLayer& layer, const hw::HwConfig& config) {
  VectorPlacement where;
  uint64_t addr = 0;
  auto dense = [&](const LayerTensor& t) {
    const ImageShape& s = t.shape;
    const ImageView v{addr, s.channels, uint64_t{s.width} * s.channels, uint64_t{s.height} * s.width * s.channels};
    addr += s.elements() + 64;
    return v;
  };
  for (const auto& t : layer.inputs) where.inputs.push_back(dense(t));
  for (const auto& t : layer.outputs) where.outputs.push_back(dense(t));
  for (const auto& image : layer.constantImages(config)) {
    where.constants.push_back(addr);
    addr += image.size() + 64;
  }
  CountingSink sink;
  return layer.generate(where, config, sink);
}

}  // namespace

std::vector<bool> supportedOperations(const nn::Model& model, const hw::HwConfig& config,
                                      std::map<uint32_t, std::string>* reasons) {
  const size_t n = model.main.operations.size();
  std::vector<std::optional<LoweredOperation>> lowered(n);
  for (uint32_t i = 0; i < n; ++i) {
    auto lo = lowerOperation(model, i, /*withValues=*/false);
    if (lo.ok()) {
      if (auto fits = datapathFits(lo.value(), config); !fits.ok()) lo = fits.error();
    }
    if (lo.ok() && lo.value().isVector() && !lo.value().pending) {
      if (auto fits = vectorLayerFits(*lo.value().vector, config); !fits.ok()) lo = fits.error();
    }
    if (lo.ok()) {
      lowered[i] = std::move(lo).value();
    } else if (reasons) {
      (*reasons)[i] = lo.error().message;
    }
  }
  std::map<uint32_t, nn::Error> rejected;
  planLayouts(model, lowered, &rejected);
  std::vector<bool> supported(n);
  for (uint32_t i = 0; i < n; ++i) {
    supported[i] = lowered[i].has_value() && rejected.count(i) == 0;
    if (rejected.count(i) && reasons) (*reasons)[i] = rejected.at(i).message;
  }
  return supported;
}

namespace {

// The fingerprint of what the tiling search depends on: the configuration and each layer's
// geometry, views and K chunks (never the weights' values, which the search does not read).
std::string tilingFingerprint(const hw::HwConfig& config, const std::vector<LoweredOperation>& layers,
                              const std::vector<LayerPlacement>& where,
                              const std::vector<std::vector<KChunk>>& chunks, nn::ExecutionPreference preference) {
  Fnv64 f;
  f.add(kTilingRevision).add(config.toJson()).add(layers.size()).add(static_cast<uint64_t>(inputChoice()))
      .add(static_cast<uint64_t>(rampChoice()));
  f.add(static_cast<uint64_t>(preference));  // the same candidates, chosen by another measure
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

}  // namespace

std::vector<uint8_t> initialTensorImage(const TensorLayout& layout, const hw::HwConfig& config) {
  std::vector<uint8_t> image = fillImage(layout);
  image.resize(image.size() + config.cols(), static_cast<uint8_t>(layout.zeroPoint));
  return image;
}

uint64_t tensorImageBytes(const TensorLayout& layout, const hw::HwConfig& config) {
  return layout.bytes() + config.cols();
}

double tilingSlack(nn::ExecutionPreference preference) {
  switch (preference) {
    case nn::ExecutionPreference::LOW_POWER: return 0.15;
    case nn::ExecutionPreference::SUSTAINED_SPEED: return 0.05;
    case nn::ExecutionPreference::FAST_SINGLE_ANSWER: return 0;
  }
  return 0;
}

nn::Result<CompiledModel> compileModel(const nn::Model& model, DeviceQueue& queue, const TilingChoices* replay,
                                       const DeviceQueue::Deadline& deadline, nn::ExecutionPreference preference) {
  const hw::HwConfig& config = queue.config();
  const bool computesData = sim::computesData(queue.backend().kind());
  const auto& operands = model.main.operands;
  auto order = dependencyOrder(model);
  if (!order.ok()) return order.error();
  if (model.main.operations.empty()) return NN_ERROR(BAD_DATA) << "the model has no operations";

  // Three phases, the device's lock held only in the second: (1) lowering, layouts and each
  // GEMM layer's tiling search, which read no address (the cost model sees request sizes, and
  // every region starts on a burst); (2) the DRAM regions, placed and written; (3) the program,
  // generated for those addresses. Compilations run side by side then, and beside executions.

  // (1) Lowering, then the layouts, in dependency order.
  std::vector<std::optional<LoweredOperation>> lowered;
  for (uint32_t i : order.value()) {
    // The timing backend builds no weight image (below), so an array layer takes no copy of its
    // filter: beside the client's values and the runtime's, it was a third copy of GNMT's 60 MB
    // filter at the compilation's peak.
    auto lo = lowerOperation(model, i, /*withValues=*/true, /*gemmFilterValues=*/computesData);
    if (!lo.ok()) return lo.error();
    NN_TRY(datapathFits(lo.value(), config));
    lowered.push_back(std::move(lo).value());
  }
  std::map<uint32_t, nn::Error> rejected;
  LayoutPlan plan = planLayouts(model, std::move(lowered), &rejected);
  if (!rejected.empty()) return rejected.begin()->second;

  // Each GEMM layer's views, first as if every tensor lay at address 0 (the search reads only
  // their strides), and its K chunks: what the tiling search works from.
  const size_t layerCount = plan.layers.size();
  std::vector<LayerPlacement> placements(layerCount);
  std::vector<std::vector<KChunk>> chunks(layerCount);
  auto gemmViews = [&](size_t l, const std::function<uint64_t(uint32_t)>& addressOf) {
    const GemmLayer& layer = plan.layers[l].layer;
    auto view = [&](uint32_t operand, const ImageShape& shape) {
      const TensorLayout& t = plan.tensors.at(operand);
      return viewOf(t, shape, addressOf(t.aliasOf ? *t.aliasOf : operand));
    };
    placements[l].input = view(layer.inputOperand, layer.input);
    ImageShape outputBytes = layer.output;  // the view in bytes, as tensor images count them
    outputBytes.channels *= layer.outputElementBytes();
    placements[l].output = view(layer.outputOperand, outputBytes);
  };
  for (size_t l = 0; l < layerCount; ++l) {
    if (plan.layers[l].isVector()) continue;
    gemmViews(l, [](uint32_t) { return uint64_t{0}; });
    chunks[l] = chunkK(plan.layers[l].layer, placements[l].input.pixelStride, placements[l].input.rowStride,
                       config.rows());
  }
  CompiledModel out;
  out.tilings.fingerprint = tilingFingerprint(config, plan.layers, placements, chunks, preference);
  const bool replaying = replay != nullptr && replay->fingerprint == out.tilings.fingerprint &&
                         replay->tilings.size() == layerCount;
  out.tilingsFromCache = replaying;
  std::vector<std::optional<TilePlan>> tilings(layerCount);
  for (size_t l = 0; l < layerCount; ++l) {
    const LoweredOperation& lo = plan.layers[l];
    NN_TRY(checkDeadline(deadline, lo.operationIndex()));
    if (lo.isVector()) {
      out.tilings.tilings.push_back(0);
      continue;
    }
    uint32_t chosen = 0;
    auto tiling = bestTiling(lo.layer, chunks[l], placements[l], config,
                             replaying ? std::optional<uint32_t>(replay->tilings[l]) : std::nullopt, &chosen,
                             deadline, tilingSlack(preference));
    if (!tiling.ok()) return tiling.error();
    if (replaying && chosen != replay->tilings[l]) out.tilingsFromCache = false;  // named no candidate
    out.tilings.tilings.push_back(chosen);
    tilings[l] = std::move(tiling).value();
  }

  // (2) The DRAM regions. Every tensor gets its device buffer, filled for good (the halo with the
  // zero point, the interior with its fill: PAD's border), with Cols bytes of slack: the vector
  // unit's last row of a tensor may read past it. The timing backend reads no data: the buffers
  // are placed alike (the same sizes, so the same timing) but neither filled nor written.
  std::vector<VectorPlacement> vectorPlacements(layerCount);
  std::vector<uint64_t> copyRows(layerCount, 0);  // runtime filters and biases: the copies' parameter row
  {
    std::lock_guard<std::mutex> lock(queue.mutex());
    for (const auto& [index, layout] : plan.tensors) {
      if (layout.aliasOf) continue;  // placed below, in its parent's buffer
      const std::string what = fmt::format("tensor {}", index);
      auto region = computesData ? allocateAndWrite(queue, initialTensorImage(layout, config), what)
                                 : queue.allocator()->allocate(tensorImageBytes(layout, config), 64, what);
      if (!region.ok()) return region.error();
      const nn::Operand& o = operands[index];
      if (isConstant(o) && computesData) {  // a constant activation: its value is written now, once
        const uint8_t* bytes = constantBytes(model, o);
        if (bytes == nullptr || o.location.length < logicalBytes(layout)) {
          return NN_ERROR(BAD_DATA) << "constant operand " << index << " is shorter than its shape";
        }
        copyToDevice(queue.backend(), layout, region.value()->addr(), bytes);
      }
      out.tensors[index] = PlacedTensor{layout, std::move(region).value()};
    }
    for (const auto& [index, layout] : plan.tensors) {
      if (layout.aliasOf) out.tensors[index] = PlacedTensor{layout, out.tensors.at(*layout.aliasOf).region};
    }
    auto snapshots = queue.allocator()->allocate(hw::kSnapshotBytes * (layerCount + 1), 64, "snapshot records");
    if (!snapshots.ok()) return snapshots.error();
    out.snapshots = std::move(snapshots).value();

    for (size_t l = 0; l < layerCount; ++l) {
      const LoweredOperation& lo = plan.layers[l];
      if (lo.isVector()) {
        size_t k = 0;
        for (auto& image : lo.vector->constantImages(config)) {
          auto region =
              allocateAndWrite(queue, image, fmt::format("constants {} of operation {}", k++, lo.operationIndex()));
          if (!region.ok()) return region.error();
          vectorPlacements[l].constants.push_back(region.value()->addr());
          out.constants.push_back(std::move(region).value());
        }
        continue;
      }
      const GemmLayer& layer = lo.layer;
      const TilePlan& tp = *tilings[l];
      LayerPlacement& where = placements[l];
      // The timing backend never reads data: its weight image is placed (the same bytes, so the
      // same timing) but not built, the largest image of a compilation.
      const std::string weightsWhat = fmt::format("weights of operation {}", layer.operationIndex);
      auto weights = computesData ? allocateAndWrite(queue, weightImage(layer, tp, config), weightsWhat)
                                  : queue.allocator()->allocate(weightImageBytes(tp, config), 64, weightsWhat);
      if (!weights.ok()) return weights.error();
      auto params = allocateAndWrite(queue, paramImage(layer, tp, config),
                                     fmt::format("parameters of operation {}", layer.operationIndex));
      if (!params.ok()) return params.error();
      where.weights = weights.value()->addr();
      where.params = params.value()->addr();
      out.constants.push_back(std::move(weights).value());
      out.constants.push_back(std::move(params).value());
      if (tp.inputMode == InputMode::kWindowed) {
        auto padding = allocateAndWrite(queue, paddingImage(layer, tp, config),
                                        fmt::format("input padding of operation {}", layer.operationIndex));
        if (!padding.ok()) return padding.error();
        where.padding = padding.value()->addr();
        out.constants.push_back(std::move(padding).value());
      }
      if (layer.runtimeWeights || layer.runtimeBias) {
        auto row = allocateAndWrite(queue, copyParamRow(config),
                                    fmt::format("copy parameters of operation {}", layer.operationIndex));
        if (!row.ok()) return row.error();
        copyRows[l] = row.value()->addr();
        out.constants.push_back(std::move(row).value());
      }
    }
  }

  // (3) The program: each layer's commands, closed by a snapshot barrier, scheduled segment by
  // segment as they come (ProgramBuilder).
  auto addressOf = [&](uint32_t operand) { return out.tensors.at(operand).region->addr(); };
  auto placeOf = [&](uint32_t operand, const ImageShape& shape) {
    const PlacedTensor& p = out.tensors.at(operand);
    return viewOf(p.layout, shape, p.region->addr());
  };
  ProgramBuilder program(config);
  hw::BarrierCmd start;
  start.snapshot = true;
  start.tag = 0;
  start.dramAddr = out.snapshots->addr();
  program.add(PlannedCommand{start, {}});
  for (size_t l = 0; l < layerCount; ++l) {
    const LoweredOperation& lo = plan.layers[l];
    NN_TRY(checkDeadline(deadline, lo.operationIndex()));
    const size_t firstCommand = program.size();
    program.takeBusyCycles();
    CompiledOperation op;
    op.operationIndex = lo.operationIndex();
    op.type = lo.type();
    if (lo.isVector()) {
      const VectorLayer& layer = *lo.vector;
      VectorPlacement& where = vectorPlacements[l];
      for (const auto& t : layer.inputs) {
        where.inputs.push_back(placeOf(t.operand, t.shape));
        out.firstReader.emplace(t.operand, out.operations.size());
      }
      for (const auto& t : layer.outputs) {
        where.outputs.push_back(placeOf(t.operand, t.shape));
        out.producer[t.operand] = out.operations.size();
      }
      NN_TRY(layer.generate(where, config, program));
      op.macs = layer.laneOps();
      op.peakOpsPerCycle = layer.fp16 ? config.cols() / 2 : config.cols();  // a binary16 value takes two lanes
      op.unit = hw::Unit::kVector;
      op.tiling = layer.describe();
      op.estimatedCycles = program.takeBusyCycles();
    } else {
      const GemmLayer& layer = lo.layer;
      const TilePlan& tp = *tilings[l];
      LayerPlacement& where = placements[l];
      gemmViews(l, addressOf);  // the views at the tensors' addresses
      if (layer.runtimeWeights || layer.runtimeBias) {
        // The filter and bias of this execution go into those images first; the barrier keeps
        // the layer's loads behind the copies' stores.
        EltwiseEmitter emitter(config, program);
        NN_TRY(emitter.begin(copyRows[l], std::nullopt));
        if (layer.runtimeWeights) {
          NN_TRY(repackWeights(layer, tp, addressOf(*layer.runtimeWeights), where.weights, config, emitter));
          out.firstReader.emplace(*layer.runtimeWeights, out.operations.size());
        }
        if (layer.runtimeBias) {
          NN_TRY(repackBias(layer.n(), addressOf(*layer.runtimeBias), where.params, config, emitter));
          out.firstReader.emplace(*layer.runtimeBias, out.operations.size());
        }
        program.add(PlannedCommand{hw::BarrierCmd{}, {}});
      }
      const double repackCycles = program.takeBusyCycles();
      NN_TRY(generateCommands(layer, tp, where, config, program));
      out.firstReader.emplace(layer.inputOperand, out.operations.size());
      out.producer[layer.outputOperand] = out.operations.size();
      op.macs = layer.macs();
      op.peakOpsPerCycle = uint64_t{layer.fp16 ? config.rows() / 2 : config.rows()} * config.cols();
      op.unit = hw::Unit::kCompute;
      op.estimatedCycles = tp.estimatedCycles + repackCycles;
      op.tiling = tp.describe();
    }
    op.commands = program.size() - firstCommand + 1;
    out.operations.push_back(op);
    hw::BarrierCmd end;
    end.snapshot = true;
    end.tag = static_cast<uint32_t>(l + 1);
    end.dramAddr = out.snapshots->addr() + hw::kSnapshotBytes * (l + 1);
    end.irq = l + 1 == layerCount;
    program.add(PlannedCommand{end, {}});
  }

  // The watchdog budget: every command run alone, one after the other, twice over, plus a
  // margin for fetch and reset: slower than any correct execution, finite for a hung one.
  const double serial = program.serialCycles();
  auto scheduled = program.finish();
  if (!scheduled.ok()) return scheduled.error();
  out.estimatedCycles = scheduled.value().estimatedCycles;
  out.watchdogCycles = static_cast<uint64_t>(std::ceil(2 * serial)) + 100000;
  out.program = std::move(scheduled).value().program;
  return out;
}

}  // namespace weft::accel
