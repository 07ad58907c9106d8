// The DRAM a hardware configuration names (hw/spec/params.json: Dram, DramChannels, DramMapping,
// and the configuration's "dram_ini" file), as the cycle-level model's device description.
// A library of its own (weft_dram_config: weft_dram and weft_hw, no backend) so that the weft
// tool can check a configuration before anything runs.
#pragma once

#include <memory>

#include "weft/hw/config.h"
#include "weft/sim/dram/device.h"

namespace weft::sim {

// The device, checked: nullptr for Dram "simple". Throws dram::DramInputError naming the
// configuration, the parameter or file and the rule (a bad .ini file, DramChannels not a power
// of two, a mapping the device cannot take, a device smaller than DramMiB).
std::shared_ptr<const dram::DeviceSpec> dramDeviceFor(const hw::HwConfig& config);

}  // namespace weft::sim
