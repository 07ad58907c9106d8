// The tiling search's policy: how many candidates it ranks, how much scheduling it spends on
// them, and the margins by which it prefers one to another (TilingSearch.h). Every value was
// tuned on the timing baselines (traces/baselines/); changing one changes which tilings are
// chosen, so it moves cycles, and a compilation cache made before it names other candidates
// (bump kTilingRevision in SearchKey.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "weft/nn/Types.h"

namespace weft::accel {

struct TilingPolicy {
  // Distinct tile shapes rankTilings() keeps (all their load sizes): the first round costs a
  // candidate at most a prefix, so the search affords more than the six it could schedule whole
  // (0.1-1 % fewer cycles on most baselines).
  size_t shapes = 10;

  // Round one schedules every candidate over a prefix of at most this many GEMMs and
  // extrapolates its timeline (ScheduleEstimator).
  uint64_t prefixGemms = 1024;
  // Round two schedules the contenders whole, up to this many GEMMs: beyond, the prefix's rate is
  // the estimate, the edges being negligible.
  uint64_t wholeGemms = 200000;
  // The contenders: the best candidate of each of this many best shapes ...
  size_t contenders = 6;
  // ... within this share of the best first-round estimate. The prefix's error is a few per cent
  // (measured in scheduler_test), and scheduling fewer programs whole saved 7 % of a sweep
  // without a cycle lost on any baseline.
  double reach = 0.03;
  // With a preference's slack, every candidate within (1 + slack) x this of the best first-round
  // estimate is scheduled whole too: the least-traffic one may rank anywhere among them (a 10 %
  // margin for the prefix's error).
  double slackReach = 1.1;
  // A shape's members (its load sizes) within this share of its fastest are a tie, broken by the
  // DRAM channel: larger loads of the same data cost fewer requests (fewer bursts, less energy)
  // and fewer commands to compile and simulate, for a few cycles of a first load's latency
  // (GNMT's 1024x1632 -> 36548: 4-chunk loads 384 cycles of 240 M behind 1-chunk ones, with 44 %
  // of their channel time; they then ran shorter).
  double tie = 1e-5;
  // A round's GEMMs worth a second thread: a thread costs tens of microseconds.
  uint64_t gemmsWorthAThread = 20000;

  // A packed plan must beat the best plain contender by this share: where the channel bounds a
  // layer, the timeline ties it with the plain plan over the same requests (SqueezeNet's stem at
  // weft16: 168,824 against 168,888 scheduled cycles) while it runs 2.5 % slower, its GEMMs
  // waiting for every piece of a box.
  double packedMargin = 0.01;

  // The choice with ramped ends (rampedPlan) is tried only where the array is the bottleneck, its
  // GEMMs filling this share of the timeline: there the ends are what is left to win, where a
  // layer the DMA bounds loses more to the smaller boxes' extra requests than the timeline shows
  // (GoogLeNet's 14x14x24 1x1 at weft8: 1.7 % slower ramped, against 2 % faster on the estimate).
  double rampBusyShare = 0.9;
  // And kept only for this gain: a few hundred cycles either way are within the timeline's error
  // where the store unit and the channel are busy (ResNet-50's 56x56x64 1x1 at weft8: 0.13 %
  // shorter on the estimate, 0.4 % slower run).
  double rampGain = 0.015;

  // The preference's trade: the least DRAM channel time (its traffic, in bursts: most of the
  // device's energy) among the candidates within this share of the fastest (forPreference).
  double slack = 0;

  // FAST_SINGLE_ANSWER: slack 0, the fastest. SUSTAINED_SPEED: 5 %, the leanest of the
  // practically fastest (a device kept busy pays for its traffic all the time). LOW_POWER: 15 %,
  // trading a little time for less DRAM traffic.
  static TilingPolicy forPreference(nn::ExecutionPreference preference) {
    TilingPolicy p;
    switch (preference) {
      case nn::ExecutionPreference::LOW_POWER: p.slack = 0.15; break;
      case nn::ExecutionPreference::SUSTAINED_SPEED: p.slack = 0.05; break;
      case nn::ExecutionPreference::FAST_SINGLE_ANSWER: p.slack = 0; break;
    }
    return p;
  }
};

}  // namespace weft::accel
