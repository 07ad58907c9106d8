// DRAMsim3's device description files (`configs/*.ini` of umd-memsys/DRAMsim3), read as DRAMsim3
// reads them: sections [dram_structure], [timing], [power], [system], [other] (and [hmc]; a
// [thermal] section is accepted and ignored), `name = value` lines, `;` and `#` comments,
// case-insensitive names. Fields DRAMsim3 gives a default keep that default (each one used is
// listed in DeviceSpec::notes), the per-protocol readings are DRAMsim3's (a burst occupies
// BL/2 cycles, BL/4 on GDDR5, BL/8 on GDDR5X, BL/16 on GDDR6; GDDR's columns count BL times,
// HBM's twice; tRC = tRAS + tRP; ranks = channel_size / rank capacity).
//
// Stricter than DRAMsim3 where it would go on with nonsense: a line that is neither a section,
// a pair nor a comment, a number with trailing text, a field given twice with different
// values, a missing structural or timing field, and every rule of validateDevice() are errors
// (DramInputError) naming the file, the line or field and the rule.
#pragma once

#include <string>

#include "weft/sim/dram/device.h"

namespace weft::sim::dram {

DeviceSpec readDramsim3Ini(const std::string& path);
// `fileName` names the text in messages.
DeviceSpec parseDramsim3Ini(const std::string& text, const std::string& fileName);

}  // namespace weft::sim::dram
