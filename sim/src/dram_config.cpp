#include "weft/sim/dram_config.h"

#include <fmt/format.h>

#include "weft/sim/dram/dramsim3_ini.h"
#include "weft/sim/dram/errors.h"

namespace weft::sim {
namespace {

const char* presetOf(hw::Dram d) {
  switch (d) {
    case hw::Dram::kDdr4: return "ddr4-3200";
    case hw::Dram::kLpddr4: return "lpddr4-3200";
    case hw::Dram::kLpddr4x: return "lpddr4x-4266";
    case hw::Dram::kLpddr5: return "lpddr5-6400";
    case hw::Dram::kHbm2: return "hbm2";
    case hw::Dram::kGddr6: return "gddr6";
    default: return nullptr;
  }
}

}  // namespace

std::shared_ptr<const dram::DeviceSpec> dramDeviceFor(const hw::HwConfig& config) {
  const hw::Dram kind = config.getEnum<hw::Param::kDram>();
  if (kind == hw::Dram::kSimple) return nullptr;
  dram::DeviceSpec spec;
  std::string where;
  if (kind == hw::Dram::kIni) {
    spec = dram::readDramsim3Ini(config.dramIni());
    where = fmt::format("configuration '{}', Dram \"ini\" ({})", config.name(), config.dramIni());
  } else {
    spec = dram::preset(presetOf(kind));
    where = fmt::format("configuration '{}', Dram \"{}\" ({})", config.name(), config.text(hw::Param::kDram),
                        spec.name);
  }
  if (const auto channels = config.get(hw::Param::kDramChannels); channels != 0) {
    if ((channels & (channels - 1)) != 0) {
      throw dram::DramInputError(fmt::format(
          "{}: DramChannels = {} must be a power of two (the channel is a field of the address)", where, channels));
    }
    spec.org.channels = static_cast<uint32_t>(channels);
  }
  if (config.getEnum<hw::Param::kDramMapping>() != hw::DramMapping::kDevice) {
    spec.controller.addressMapping = config.text(hw::Param::kDramMapping);
  }
  dram::validateDevice(spec, where);
  const uint64_t capacity = spec.org.capacityBytes();
  if (capacity < config.dramBytes()) {
    throw dram::DramInputError(fmt::format(
        "{}: DramMiB = {} exceeds the device's capacity of {} MiB ({} channels of {} MiB): the DRAM device must hold "
        "DramMiB",
        where, config.get(hw::Param::kDramMiB), capacity >> 20, spec.org.channels, spec.org.channelBytes() >> 20));
  }
  return std::make_shared<const dram::DeviceSpec>(std::move(spec));
}

}  // namespace weft::sim
