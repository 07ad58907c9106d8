#include "ProgramRelocation.h"

#include <fmt/format.h>

#include <optional>

#include "weft/hw/command_word.h"
#include "weft/hw/generated.h"

namespace weft::accel {

nn::Status ProgramRelocation::apply(std::vector<uint8_t>& program, bool everyAddressMoves) const {
  for (size_t at = 0; at + hw::kCommandBytes <= program.size(); at += hw::kCommandBytes) {
    hw::CommandWord word = hw::CommandWord::fromBytes(&program[at]);
    const auto opcode = static_cast<hw::Opcode>(word.get(hw::field::kOpcode));
    std::optional<hw::Field> field;
    if (opcode == hw::Opcode::kLoad) field = hw::field::load::kDramAddr;
    if (opcode == hw::Opcode::kStore) field = hw::field::store::kDramAddr;
    if (opcode == hw::Opcode::kBarrier && word.get(hw::field::barrier::kSnapshot) != 0) {
      field = hw::field::barrier::kDramAddr;
    }
    if (!field) continue;
    const uint64_t addr = word.get(*field);
    auto it = regions_.upper_bound(addr);
    const bool inside = it != regions_.begin() && addr - std::prev(it)->first < std::prev(it)->second.first;
    if (!inside) {
      if (everyAddressMoves) {
        return NN_ERROR(BAD_DATA) << fmt::format("command {}: address {:#x} lies in no region", at / hw::kCommandBytes,
                                                 addr);
      }
      continue;
    }
    --it;
    word.set(*field, it->second.second + (addr - it->first));
    word.toBytes(&program[at]);
  }
  return {};
}

}  // namespace weft::accel
