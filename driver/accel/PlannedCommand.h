// A command before scheduling: the typed command, the on-chip buffers it reads and writes,
// and its estimated duration. The command generator says what each command touches; the
// scheduler (CommandScheduler.h) derives the dependencies, the tokens and the ring order.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "weft/hw/generated.h"

namespace weft::accel {

// An on-chip buffer: a scratchpad slot or region, an accumulator region, the parameter rows.
enum class BufferKind : uint8_t { kInput = 1, kWeight = 2, kAccumulator = 3, kParams = 4 };
constexpr uint32_t bufferId(BufferKind kind, uint32_t index) {
  return (static_cast<uint32_t>(kind) << 24) | (index & 0xFFFFFF);
}

struct BufferUse {
  uint32_t buffer = 0;
  bool write = false;
};

using TypedCommand = std::variant<hw::LoadCmd, hw::GemmCmd, hw::StoreCmd, hw::BarrierCmd>;

struct PlannedCommand {
  TypedCommand cmd;
  std::vector<BufferUse> uses;
  // Estimates (CostModel): cycles the unit is occupied, cycles until the command completes,
  // and cycles of DRAM channel time it needs.
  double busyCycles = 0;
  double doneCycles = 0;
  double channelCycles = 0;

  hw::Unit unit() const;
  hw::CommandHeader& header();
  const hw::CommandHeader& header() const;
  hw::CommandWord encode() const;
  bool isBarrier() const { return std::holds_alternative<hw::BarrierCmd>(cmd); }
};

inline hw::Unit PlannedCommand::unit() const {
  switch (cmd.index()) {
    case 0: return hw::Unit::kLoad;
    case 1: return hw::Unit::kCompute;
    case 2: return hw::Unit::kStore;
    default: return hw::Unit::kControl;
  }
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

}  // namespace weft::accel
