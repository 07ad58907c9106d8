// libFuzzer target: the DRAM model's readers of user files (sim/include/weft/sim/dram/): DRAMsim3
// .ini device descriptions and DRAMsim3 traces, and a short replay of what parsed. Any bytes must
// read as a device or a trace or be refused with a DramInputError; never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "weft/sim/dram/device.h"
#include "weft/sim/dram/dramsim3_ini.h"
#include "weft/sim/dram/errors.h"
#include "weft/sim/dram/trace_replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the reader; the rest is the file.
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  using namespace weft::sim::dram;
  try {
    if (data[0] % 2 == 0) {
      (void)parseDramsim3Ini(text, "fuzz.ini");
    } else {
      const DeviceSpec spec = preset("ddr4-3200");
      auto trace = parseTrace(text, "fuzz.trace", spec.org.capacityBytes());
      if (trace.size() > 256) trace.resize(256);  // a short replay: the fuzzer's time is the parsers'
      // Refresh runs every tREFI however idle the device: a trace reaching far cycles replays in
      // time proportional to them, which is the fuzzer's timeout, not a finding.
      for (const TraceRecord& r : trace) {
        if (r.cycle > 1000000) return 0;
      }
      (void)replayTrace(spec, trace);
    }
  } catch (const DramInputError&) {
  }
  return 0;
}
