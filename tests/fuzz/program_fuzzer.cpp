// libFuzzer target: command programs, as any bytes a driver (or a corrupted cache) could place in
// the ring. Each 32-byte slice of the input is one command word. They go two ways:
//   - through the functional model (sim/functional_model.h): check() every command, execute the
//     ones it accepts, in ring order, until the first refused one;
//   - through the approximate backend's whole device (registers, ring, fetch, units, tokens),
//     run until its interrupt or a cycle budget, then reset.
// Neither may crash, read or write outside its memories (AddressSanitizer), or hit undefined
// behaviour (UBSan), whatever the fields say; a device access outside DRAM must be the
// documented std::out_of_range, and a program that hangs (tokens never pushed) must stay inside
// the cycle budget and leave a device that a hard reset brings back.
//
// Seeds: with WEFT_FUZZ_SEED_DIR set, the target first writes the test suite's random programs
// (sim/testing/programs.h: GEMM tiles, vector commands) there, so the seeds follow the ISA.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/hw/config.h"
#include "weft/hw/generated.h"
#include "weft/sim/backend.h"
#include "weft/sim/dram_storage.h"
#include "weft/sim/functional_model.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace {

using weft::hw::CommandWord;
namespace sim = weft::sim;

constexpr size_t kMaxCommands = 256;
constexpr uint64_t kCycleBudget = 200000;

const weft::hw::HwConfig& config() {
  static const weft::hw::HwConfig c = weft::hw::HwConfig::load("weft8");
  return c;
}
const sim::testing::ProgramLayout kLayout;

// DRAM as the programs find it: the random-program inputs at their addresses.
const sim::testing::Program& dramImage() {
  static const sim::testing::Program p = sim::testing::randomProgram(config(), 1, 2, kLayout);
  return p;
}

struct Device {
  std::unique_ptr<sim::IDeviceBackend> backend = sim::createBackend(sim::BackendKind::kApprox, config());
  sim::testing::RingDriver ring{*backend, kLayout.ringBase, kLayout.ringSize};
  Device() {
    sim::testing::writeInputs(*backend, dramImage());
    ring.init();
  }
};
Device& device() {
  static Device d;
  return d;
}

std::vector<CommandWord> commandsOf(const uint8_t* data, size_t size) {
  std::vector<CommandWord> commands;
  for (size_t at = 0; at + weft::hw::kCommandBytes <= size && commands.size() < kMaxCommands;
       at += weft::hw::kCommandBytes) {
    commands.push_back(CommandWord::fromBytes(data + at));
  }
  return commands;
}

void runFunctional(const std::vector<CommandWord>& commands) {
  static sim::DramStorage dram(kLayout.ringBase);
  static sim::FunctionalModel model(config());
  model.reset();
  for (const auto& [addr, bytes] : dramImage().inputs) dram.write(addr, bytes.data(), bytes.size());
  for (const CommandWord& c : commands) {
    if (model.check(c) != weft::hw::Error::kNone) return;
    try {
      model.execute(c, dram);
    } catch (const std::out_of_range&) {
      return;  // the documented refusal of a DRAM access outside the memory
    }
  }
}

void runOnDevice(const std::vector<CommandWord>& commands) {
  Device& d = device();
  bool clean = true;
  try {
    sim::testing::writeInputs(*d.backend, dramImage());  // what earlier inputs' STOREs changed
    d.ring.submit(commands);
    const uint32_t status = d.ring.runToInterrupt(kCycleBudget);
    clean = status == weft::hw::reg::kIrqStatusDoneMask;
  } catch (const std::out_of_range&) {
    clean = false;  // a device access outside DRAM: the device state is undefined until a reset
  }
  if (!clean) {
    // What the driver does after a timeout or an error: reset, then program the ring again.
    d.backend->hardReset();
  }
  d.ring.init();
}

void writeSeeds(const char* dir) {
  std::vector<sim::testing::Program> programs;
  for (uint32_t seed = 1; seed <= 4; ++seed) programs.push_back(sim::testing::randomProgram(config(), seed, 1, kLayout));
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    programs.push_back(sim::testing::randomVectorProgram(config(), seed, 12, seed % 2 == 0, kLayout));
  }
  for (size_t i = 0; i < programs.size(); ++i) {
    std::ofstream out(std::string(dir) + "/generated_" + std::to_string(i), std::ios::binary);
    for (const CommandWord& c : programs[i].commands) {
      uint8_t bytes[weft::hw::kCommandBytes];
      c.toBytes(bytes);
      out.write(reinterpret_cast<const char*>(bytes), sizeof bytes);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("WEFT_FUZZ_SEED_DIR")) writeSeeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<CommandWord> commands = commandsOf(data, size);
  if (commands.empty()) return 0;
  runFunctional(commands);
  runOnDevice(commands);
  return 0;
}
