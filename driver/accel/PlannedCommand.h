// A command before scheduling: the typed command and the on-chip buffers it reads and writes.
// The command generator says what each command is and touches; costing (CommandCost.h) derives
// what it costs from the command; the scheduler (CommandScheduler.h) derives the dependencies,
// the tokens and the ring order.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <type_traits>
#include <variant>
#include <string>
#include <vector>

#include "weft/hw/generated.h"

namespace weft::accel {

// An on-chip buffer: a scratchpad slot or region, an accumulator region, the parameter rows,
// the vector scratchpad's regions, the lookup table; kWeightRange: a range of weight rows loaded
// at once apart from the plain weight buffers (a ramped plan's first chunks, a range of
// streamed slots). Indices are small: the scheduler keeps a table entry per index up to the
// largest.
enum class BufferKind : uint8_t {
  kInput = 1,
  kWeight = 2,
  kAccumulator = 3,
  kParams = 4,
  kVector = 5,
  kLut = 6,
  kWeightRange = 7
};
constexpr uint32_t bufferId(BufferKind kind, uint32_t index) {
  return (static_cast<uint32_t>(kind) << 24) | (index & 0xFFFFFF);
}

struct BufferUse {
  uint32_t buffer = 0;
  bool write = false;
};

// The buffers of one command, held inline: a GEMM, the widest, reads inputs, weights and (first
// of an epoch) the parameters and writes an accumulator. A large layer has a million commands;
// a heap vector each made allocation the largest cost of compiling it.
class BufferUses {
 public:
  static constexpr size_t kCapacity = 4;
  BufferUses() = default;
  BufferUses(std::initializer_list<BufferUse> uses) {
    for (const BufferUse& u : uses) push_back(u);
  }
  void push_back(BufferUse use) {
    if (size_ == kCapacity) throw std::logic_error("a planned command uses more than four buffers");
    items_[size_++] = use;
  }
  const BufferUse* begin() const { return items_.data(); }
  const BufferUse* end() const { return items_.data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  std::array<BufferUse, kCapacity> items_{};
  uint8_t size_ = 0;
};

// How costing (CommandCost.h) counts a LOAD's DRAM requests. kByFields: as the load unit merges
// them, read off the command. The other two are what the command generator's estimates have
// always said where that rule says otherwise; the tiling search's choices and every baseline rest
// on them, so they are kept, named, until a change that moves cycles retires them:
// - kPerRow: an im2col box load (a chunk of K for every pixel of a box) is a request a row, even
//   where the chunk is Rows bytes at stride Rows and the unit merges it (16-channel 3x3 layers at
//   weft16: yolo_tiny's);
// - kMergedRuns: a pixel-major load of several chunks a pixel is merged runs of them, even where
//   Rows is not whole beats (BusBytes > Rows) and the unit does not merge.
enum class LoadPricing : uint8_t { kByFields, kPerRow, kMergedRuns };

using TypedCommand = std::variant<hw::LoadCmd, hw::GemmCmd, hw::StoreCmd, hw::BarrierCmd, hw::WindowCmd,
                                  hw::EltwiseCmd, hw::SoftmaxCmd, hw::LayerNormCmd>;

struct PlannedCommand {
  TypedCommand cmd;
  BufferUses uses;
  LoadPricing pricing = LoadPricing::kByFields;

  hw::Unit unit() const;
  hw::CommandHeader& header();
  const hw::CommandHeader& header() const;
  hw::CommandWord encode() const;
  bool isBarrier() const { return std::holds_alternative<hw::BarrierCmd>(cmd); }
};

inline hw::Unit PlannedCommand::unit() const {
  return std::visit([](const auto& c) { return hw::unitOf(std::decay_t<decltype(c)>::kOpcode); }, cmd);
}

inline hw::CommandHeader& PlannedCommand::header() {
  return std::visit([](auto& c) -> hw::CommandHeader& { return c.header; }, cmd);
}
inline const hw::CommandHeader& PlannedCommand::header() const {
  return std::visit([](const auto& c) -> const hw::CommandHeader& { return c.header; }, cmd);
}
inline hw::CommandWord PlannedCommand::encode() const {
  return std::visit([](const auto& c) { return c.encode(); }, cmd);
}

// Receives commands in program order: a vector to run them, an estimator to rank them.
class CommandSink {
 public:
  virtual ~CommandSink() = default;
  virtual void add(PlannedCommand&& command) = 0;
  // How many commands are coming, roughly: a hint.
  virtual void expect(size_t /*commands*/) {}
  // The commands only prove that a layer fits the hardware (nothing runs or is timed): a layer
  // with a choice among tilings that fit alike may emit any one of them.
  virtual bool provesFitOnly() const { return false; }
  // A choice the layer made where its tensors lie (its tiles' layout, its buffers' parts), for
  // its mapping in the reports (CompiledOperation::tiling). Sinks that only estimate or prove a
  // fit ignore it; a program keeps it (ProgramBuilder::takeNotes).
  virtual void note(std::string /*choice*/) {}
};

// Appends to a vector.
class CommandVector final : public CommandSink {
 public:
  explicit CommandVector(std::vector<PlannedCommand>& commands) : commands_(commands) {}
  void add(PlannedCommand&& command) override { commands_.push_back(std::move(command)); }
  void expect(size_t commands) override { commands_.reserve(commands_.size() + commands); }

 private:
  std::vector<PlannedCommand>& commands_;
};

}  // namespace weft::accel
