// Scheduling: from commands in loop-nest order to a ring the hardware runs with overlap.
//
// 1. Dependencies. Each command lists the buffers it reads and writes; a read depends on the
//    buffer's last writer, a write on its last writer and the readers since. Dependencies
//    within a unit are free (each unit runs in order).
// 2. Tokens (hw/README.md "Units and tokens"; the queues of hw/spec/isa.json). A dependency
//    between units joined by a queue becomes a token: the consumer waits on the queue from the
//    producer's unit and the producer signals it. Each unit tracks what it already knows to be
//    complete (a token from command d also proves everything d knew), so most dependencies need
//    no token of their own, and a dependency between units no queue joins (load -> store:
//    parameter rows) is proved through a command in between (a GEMM or a vector command that
//    declares the parameter rows it precedes). Tokens in flight are
//    kept within TokenDepth: when too many would be outstanding, a wait is moved to a later
//    signaller.
// 3. Timeline. A list schedule estimates when each command starts, from each command's cost
//    (CommandCost.h: costing reads it off the command as the command arrives).
// 4. Ring order. The per-unit streams are merged by estimated start, so that the controller
//    dispatches loads ahead of the GEMMs that need them, never popping a token before it is
//    pushed and never holding more than TokenDepth tokens in a queue. Executing the ring in
//    order is therefore a valid schedule (what the functional model checks) and the
//    hardware's run-ahead cannot deadlock.
// Barriers split a program into segments that are scheduled independently.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "PlannedCommand.h"
#include "weft/hw/config.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// A segment's bounds on its completion (Timeline::bounds): the units' timeline, the DRAM
// channel, the controller's fetch rate, the read port.
using TimelineBounds = std::array<double, 4>;

struct ScheduleResult {
  std::vector<PlannedCommand> commands;  // as given, token bits set
  // The ring: indices into `commands` in ring order (a large layer has millions of commands;
  // a second copy of them in ring order was a third of compiling's peak memory).
  std::vector<uint32_t> ring;
  double estimatedCycles = 0;  // makespan of the estimated timeline
};

// The commands are a program's (their addresses where the tensors lie: CostModel::placed).
// OP_FAILED on an internal inconsistency (a driver bug): a dependency tokens cannot express.
nn::Result<ScheduleResult> scheduleCommands(std::vector<PlannedCommand> commands, const hw::HwConfig& config);

struct CostModel;
struct CommandCost;

// The same scheduling as a program is generated: each segment (the commands up to a barrier) is
// scheduled and encoded when its barrier arrives, so that a program of millions of commands
// (a GNMT layer) never exists as PlannedCommands all at once, only its current segment. The
// bytes equal encoding scheduleCommands()'s ring.
struct ScheduledProgram {
  std::vector<uint8_t> program;  // hw::kCommandBytes per command, ring order
  size_t commands = 0;
  double estimatedCycles = 0;
};

// The most commands a segment holds: both sinks below end a segment with a barrier (no snapshot)
// when one more would exceed it. Scheduling keeps a segment's commands and their dependencies in
// memory, about 300 bytes each, and a high-resolution layer is tens of millions of commands: the
// bound keeps compiling it within a few tens of MB (GNMT's 36548-wide layers: 55 MB less peak
// memory than at 2^19). Draining the units every 131072 commands (millions of cycles) costs
// them a few hundred cycles: 9 of the baselines' 1276 layers moved, by 0.07 % at most.
inline constexpr size_t kMaxSegmentCommands = size_t{1} << 17;

class ProgramBuilder final : public CommandSink {
 public:
  explicit ProgramBuilder(const hw::HwConfig& config);
  ~ProgramBuilder() override;
  void add(PlannedCommand&& command) override;
  // Reserves the current segment for a layer's commands (up to a cap): growing it by doubling
  // copied every command again and faulted in fresh pages, a tenth of an 8x8 sweep point.
  void expect(size_t commands) override;
  void note(std::string choice) override { notes_.push_back(std::move(choice)); }
  // The notes since the last call, joined by ", ": the choices of the layer just emitted.
  std::string takeNotes();
  // Commands added so far; the watchdog's serial bound over all of them (each command's
  // completion, DRAM latency and fetch, one after the other).
  size_t size() const { return count_; }
  // The estimated timeline's end over the segments scheduled so far (each barrier schedules the
  // segment it closes): the difference across a layer and its barrier is the layer's estimate.
  double scheduledCycles() const { return t_; }
  // With a cycle-level DRAM the bound allows for its worst case (CommandScheduler.cpp).
  double serialCycles() const { return serial_ * dramSlack_; }
  // Schedules the last segment. OP_FAILED when scheduling any segment failed (a driver bug).
  nn::Result<ScheduledProgram> finish();

 private:
  void flush();
  void append(const PlannedCommand& command);

  std::unique_ptr<CostModel> cost_;
  unsigned tokenDepth_;
  std::vector<PlannedCommand> segment_;  // since the last barrier
  std::vector<CommandCost> costs_;        // of each command of the segment
  std::vector<uint8_t> program_;
  std::vector<uint32_t> ring_;
  std::vector<double> start_;
  std::vector<std::string> notes_;
  nn::Status status_;
  size_t count_ = 0;
  double serial_ = 0, t_ = 0;
  double dramSlack_ = 1;
};

// The estimatedCycles scheduleCommands() would report for the commands added so far, computed
// as they arrive: ranking candidate tilings needs the timeline, which depends on the
// dependencies and not on the tokens, and a candidate's commands need never be stored.
//
// With a GEMM budget the estimator sees only a prefix of the program: add() throws
// EstimateBudgetSpent once `gemmBudget` GEMM steps are in, and projectedCycles() extrapolates the
// timeline over the GEMM work still to come at the rate of the prefix's second half (the first
// holds the pipeline's fill). A large candidate is then ranked for the cost of a small one.
struct EstimateBudgetSpent {};

class ScheduleEstimator final : public CommandSink {
 public:
  // `placed`: the commands' addresses are where their tensors lie (CostModel::placed), as in a
  // program; else tensors at address 0, as the tiling search sees them.
  explicit ScheduleEstimator(const hw::HwConfig& config, uint64_t gemmBudget = 0, bool placed = false);
  ~ScheduleEstimator() override;
  void add(PlannedCommand&& command) override;
  double cycles() const;
  // The DRAM channel occupancy of every command added (its bursts, whoever waits for them, and
  // its own fetch): the compiler's measure of a tiling's DRAM traffic, which dominates the
  // device's energy.
  double channelCycles() const { return channel_; }

  // Whether the budget cut the program short.
  bool truncated() const { return truncated_; }
  // cycles() and channelCycles() for the whole program, whose GEMMs take `totalGemmBusy` busy
  // cycles (gemmWork()); the figures themselves when the program was not cut short.
  double projectedCycles(double totalGemmBusy) const;
  double projectedChannelCycles(double totalGemmBusy) const;

 private:
  struct Segment;
  struct Mark {
    double gemmBusy = 0;
    TimelineBounds bounds{};  // the timeline's (Timeline::bounds)
    double channel = 0;
  };
  double project(double now, double half, double totalGemmBusy) const;
  TimelineBounds bounds() const;

  std::unique_ptr<CostModel> cost_;
  std::unique_ptr<Segment> segment_;  // since the last barrier
  size_t segmentCommands_ = 0;
  double t_ = 0;                      // when that segment started
  double channel_ = 0;
  uint64_t budget_ = 0, gemms_ = 0;
  double gemmBusy_ = 0;
  Mark half_;  // after budget / 2 GEMMs
  bool truncated_ = false;
};

}  // namespace weft::accel
