#include "TilingSearch.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "CommandScheduler.h"
#include "TilingMemo.h"

namespace weft::accel {
namespace {

// What makes two candidates the same shape for the search: everything but their load sizes and
// loop order, which the first round's prefix ranks well (their differences show from the start).
auto shapeOf(const TilePlan& p) {
  return std::make_tuple(p.tilesPerGroup, p.accBuffers, p.inputMode, p.weightMode, p.rowsPerTile, p.packed);
}
using Shape = decltype(shapeOf(TilePlan{}));

// A layer's ranked candidates and what the rounds of scheduling found of each, a slot each: the
// choice does not depend on which thread scheduled what.
class Candidates {
 public:
  Candidates(const TilingProblem& problem, std::vector<TilePlan> ranked, const TilingPolicy& policy,
             const CompileOptions& options)
      : problem_(problem), policy_(policy), options_(options), ranked_(std::move(ranked)) {
    const size_t count = ranked_.size();
    work_.resize(count);
    for (size_t i = 0; i < count; ++i) work_[i] = gemmWork(ranked_[i], problem_.config);
    status_.resize(count);
    cycles_.assign(count, 0);
    channel_.assign(count, 0);
    whole_.assign(count, 0);
  }

  size_t size() const { return ranked_.size(); }

  // Schedules the candidates `which`, each over at most `budget` GEMMs (0: whole), and returns
  // the first failure among them in that order.
  nn::Status schedule(const std::vector<size_t>& which, uint64_t budget);
  void traceFirstRound() const;
  // The candidates scheduled whole in the second round, among which the choice is made.
  std::vector<size_t> contenders();
  // Those of `which` the first round cut short, and small enough to schedule whole.
  std::vector<size_t> notWhole(const std::vector<size_t>& which) const {
    std::vector<size_t> rest;
    for (size_t i : which) {
      if (!whole_[i] && work_[i].commands <= policy_.wholeGemms) rest.push_back(i);
    }
    return rest;
  }
  size_t choose(const std::vector<size_t>& contenders) const;
  // The choice, with ramped ends when the policy says they pay.
  nn::Result<TilingChoice> finish(size_t best);

 private:
  size_t tieBreak(size_t i, const std::vector<size_t>& byCycles) const;

  const TilingProblem& problem_;
  const TilingPolicy& policy_;
  const CompileOptions& options_;
  std::vector<TilePlan> ranked_;
  std::vector<GemmWork> work_;
  std::vector<nn::Status> status_;
  std::vector<double> cycles_, channel_;
  // One byte a slot: std::vector<bool> packs slots into shared words, and two workers writing
  // neighbouring bits race (ThreadSanitizer, tests/accel/search_test.cpp).
  std::vector<uint8_t> whole_;
};

// Products a candidate is scheduled as (TilingProblem::overlapsNext): two when the next product
// overlaps it, which takes a plan of one parameter epoch (EmitProgram.cpp), else one.
uint32_t productsScheduled(const TilingProblem& problem, const TilePlan& plan) {
  return problem.overlapsNext && plan.tilesPerEpoch >= plan.nTiles ? 2 : 1;
}

// The candidate's commands into `sink`: the layer, and when two products are scheduled the next
// one after it as emission would place it.
nn::Status generateProducts(const TilingProblem& problem, const TilePlan& plan, CommandSink& sink) {
  NN_TRY(generateCommands(problem.layer, plan, problem.where, problem.config, sink));
  if (productsScheduled(problem, plan) == 1) return {};
  LayerPlacement next = problem.where;
  next.paramsResident = true;
  next.weightBank = weightBanksFit(plan, problem.config) ? 1 : 0;
  return generateCommands(problem.layer, plan, next, problem.config, sink);
}

nn::Status Candidates::schedule(const std::vector<size_t>& which, uint64_t budget) {
  uint64_t gemms = 0;
  for (size_t i : which) gemms += budget > 0 ? std::min(budget, work_[i].commands) : work_[i].commands;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k = next++; k < which.size(); k = next++) {
      const size_t i = which[k];
      status_[i] = checkDeadline(options_.deadline, problem_.layer.operationIndex);
      if (!status_[i].ok()) continue;
      ScheduleEstimator estimator(problem_.config, budget);
      try {
        status_[i] = generateProducts(problem_, ranked_[i], estimator);
      } catch (const EstimateBudgetSpent&) {
      }
      const double products = productsScheduled(problem_, ranked_[i]);
      cycles_[i] = estimator.projectedCycles(products * work_[i].busyCycles) / products;
      channel_[i] = estimator.projectedChannelCycles(products * work_[i].busyCycles) / products;
      whole_[i] = !estimator.truncated();
    }
  };
  // The candidates are independent and the search is most of a large model's compilation, so
  // a second thread takes every other one when there is enough to share.
  if (gemms >= policy_.gemmsWorthAThread && which.size() > 1 && std::thread::hardware_concurrency() > 1) {
    auto helper = std::async(std::launch::async, worker);
    worker();
    helper.get();  // rethrows what the helper threw
  } else {
    worker();
  }
  for (size_t i : which) NN_TRY(status_[i]);
  return {};
}

void Candidates::traceFirstRound() const {
  if (!options_.traceTiling) return;
  for (size_t i = 0; i < size(); ++i) {
    std::fprintf(stderr, "[tiling] round 1, candidate %zu: %.0f cycles%s: %s\n", i, cycles_[i],
                 whole_[i] ? "" : " (extrapolated)", ranked_[i].describe().c_str());
  }
}

// Among the members of i's shape within the policy's tie of it, the one with the least channel
// time.
size_t Candidates::tieBreak(size_t i, const std::vector<size_t>& byCycles) const {
  size_t pick = i;
  for (size_t j : byCycles) {
    if (cycles_[j] > cycles_[i] * (1 + policy_.tie)) break;
    if (shapeOf(ranked_[j]) == shapeOf(ranked_[i]) && channel_[j] < channel_[pick]) pick = j;
  }
  return pick;
}

// The best candidate of each of the policy's best shapes within reach, since the prefix misjudges
// what only shows later (a partial last group, epoch changes) by a few per cent alike for every
// member of a shape; with slack, every candidate within reach of it too. Those the first round
// did not schedule whole are scheduled whole (the caller's second round).
std::vector<size_t> Candidates::contenders() {
  std::vector<size_t> byCycles(size());
  for (size_t i = 0; i < size(); ++i) byCycles[i] = i;
  std::stable_sort(byCycles.begin(), byCycles.end(), [&](size_t a, size_t b) { return cycles_[a] < cycles_[b]; });
  std::vector<Shape> shapes;
  std::vector<size_t> chosen;
  const double fastest = cycles_[byCycles[0]];
  for (size_t i : byCycles) {
    const Shape shape = shapeOf(ranked_[i]);
    const bool newShape = std::find(shapes.begin(), shapes.end(), shape) == shapes.end();
    const bool inReach = policy_.slack > 0 && cycles_[i] <= fastest * (1 + policy_.slack) * policy_.slackReach;
    const bool contender =
        newShape && shapes.size() < policy_.contenders && cycles_[i] <= fastest * (1 + policy_.reach);
    if (!contender && !inReach) continue;
    if (newShape) shapes.push_back(shape);
    const size_t c = contender ? tieBreak(i, byCycles) : i;
    if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
    chosen.push_back(c);
  }
  return chosen;
}

size_t Candidates::choose(const std::vector<size_t>& contenders) const {
  size_t best = contenders.front();
  for (size_t i : contenders) {
    if (options_.traceTiling) {
      std::fprintf(stderr, "[tiling] candidate %zu: %s; scheduled %.0f cycles, DRAM channel %.0f cycles%s\n", i,
                   ranked_[i].describe().c_str(), cycles_[i], channel_[i], whole_[i] ? "" : " (extrapolated)");
    }
    if (cycles_[i] < cycles_[best] || (cycles_[i] == cycles_[best] && i < best)) best = i;
  }
  // A packed plan must win clearly (TilingPolicy::packedMargin).
  if (ranked_[best].packed) {
    std::optional<size_t> plain;
    for (size_t i : contenders) {
      if (!ranked_[i].packed && (!plain || cycles_[i] < cycles_[*plain])) plain = i;
    }
    if (plain && cycles_[*plain] <= cycles_[best] * (1 + policy_.packedMargin)) best = *plain;
  }
  // The preference's trade: the least DRAM traffic within `slack` of the fastest.
  if (policy_.slack > 0) {
    const size_t fastest = best;
    for (size_t i : contenders) {
      const bool lessTraffic = channel_[i] < channel_[best] || (channel_[i] == channel_[best] && i < best);
      if (cycles_[i] <= cycles_[fastest] * (1 + policy_.slack) && lessTraffic) best = i;
    }
  }
  return best;
}

// The choice with ramped ends is kept when its whole timeline is shorter by the policy's gain
// and, where a preference traded cycles for traffic, its traffic no more (its smaller boxes take
// more commands to fetch). Tried on the choice alone: the ramp changes the layer's ends only,
// alike for every candidate.
nn::Result<TilingChoice> Candidates::finish(size_t best) {
  ranked_[best].estimatedCycles = cycles_[best];
  TilingChoice choice{static_cast<uint32_t>(best), ranked_[best]};
  const RampChoice ramp = options_.ramp;
  const bool arrayBound = whole_[best] && work_[best].busyCycles >= policy_.rampBusyShare * cycles_[best];
  if (ramp != RampChoice::kAlways && !(ramp == RampChoice::kSearch && arrayBound)) return choice;
  auto ramped = rampedPlan(ranked_[best], problem_.config);
  if (!ramped) return choice;
  ScheduleEstimator estimator(problem_.config);
  NN_TRY(generateProducts(problem_, *ramped, estimator));
  const double products = productsScheduled(problem_, *ramped);
  if (options_.traceTiling) {
    std::fprintf(stderr, "[tiling] candidate %zu ramped: scheduled %.0f cycles, DRAM channel %.0f cycles\n", best,
                 estimator.cycles(), estimator.channelCycles());
  }
  const bool gains = estimator.cycles() / products < cycles_[best] * (1 - policy_.rampGain) &&
                     (policy_.slack == 0 || estimator.channelCycles() / products <= channel_[best]);
  if (gains || ramp == RampChoice::kAlways) {
    ramped->estimatedCycles = estimator.cycles() / products;
    choice = TilingChoice{static_cast<uint32_t>(size() + best), std::move(*ramped)};
  }
  return choice;
}

// The candidate a compilation cache names, scheduled alone; nullopt when the index names none.
nn::Result<std::optional<TilingChoice>> replayed(const TilingProblem& problem, std::vector<TilePlan>& ranked,
                                                 uint32_t index) {
  const size_t count = ranked.size();
  uint32_t chosen = 0;
  if (index >= count && index < 2 * count) {
    if (auto ramped = rampedPlan(ranked[index - count], problem.config)) {
      ranked[index - count] = std::move(*ramped);
      index -= static_cast<uint32_t>(count);
      chosen = static_cast<uint32_t>(count);
    }
  }
  if (index >= count) return std::optional<TilingChoice>();
  ScheduleEstimator estimator(problem.config);
  NN_TRY(generateProducts(problem, ranked[index], estimator));
  ranked[index].estimatedCycles = estimator.cycles() / productsScheduled(problem, ranked[index]);
  return std::optional<TilingChoice>(TilingChoice{chosen + index, std::move(ranked[index])});
}

// Two rounds. First every candidate is scheduled over a prefix and its timeline extrapolated;
// then the contenders are scheduled whole, and the choice is made among them. A candidate costs
// the search at most a prefix unless it is a contender.
nn::Result<TilingChoice> scheduledSearch(const TilingProblem& problem, std::vector<TilePlan> ranked,
                                         const TilingPolicy& policy, const CompileOptions& options) {
  Candidates candidates(problem, std::move(ranked), policy, options);
  std::vector<size_t> all(candidates.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  NN_TRY(candidates.schedule(all, policy.prefixGemms));
  candidates.traceFirstRound();
  const std::vector<size_t> contenders = candidates.contenders();
  NN_TRY(candidates.schedule(candidates.notWhole(contenders), 0));
  return candidates.finish(candidates.choose(contenders));
}

}  // namespace

nn::Result<TilingChoice> searchTiling(const TilingProblem& problem, const TilingPolicy& policy,
                                      const CompileOptions& options, std::optional<uint32_t> replay) {
  const std::string memoKey = replay.has_value() ? "" : TilingMemo::key(problem, policy, options);
  if (!replay.has_value()) {
    if (auto known = TilingMemo::instance().find(memoKey)) return std::move(*known);
  }
  const GemmLayer& layer = problem.layer;
  auto ranked = rankTilings(layer, problem.chunks, problem.where.input, problem.config, policy.shapes,
                            options.inputChoice);
  if (ranked.empty()) {
    return NN_ERROR(OP_FAILED) << "no tiling of operation " << layer.operationIndex << " (M " << layer.m()
                               << ", N " << layer.n() << ", K " << layer.k()
                               << ") fits the configuration's memories";
  }
  if (replay.has_value()) {
    auto choice = replayed(problem, ranked, *replay);
    if (!choice.ok()) return choice.error();
    if (choice.value().has_value()) return std::move(*choice.value());
  }
  TilingChoice choice;
  if (ranked.size() == 1) {
    choice = TilingChoice{0, std::move(ranked.front())};
  } else {
    auto searched = scheduledSearch(problem, std::move(ranked), policy, options);
    if (!searched.ok()) return searched.error();
    choice = std::move(searched).value();
  }
  if (!replay.has_value()) TilingMemo::instance().remember(memoKey, choice);
  return choice;
}

}  // namespace weft::accel
