// Command programs for the backend tests and the harness benchmark, with the DRAM contents
// they read. Every program is token-balanced (it leaves no token behind, so programs can run
// back to back) and ends with a snapshot barrier that raises the interrupt.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/hw/config.h"
#include "weft/hw/generated.h"
#include "weft/sim/backend.h"

namespace weft::sim::testing {

// Where the programs put things in device DRAM; everything fits the smallest DRAM (16 MiB).
struct ProgramLayout {
  uint64_t ringBase = 8 << 20;
  uint32_t ringSize = 65536;  // commands: 2 MiB
  uint64_t inputs = 1 << 20;
  uint64_t weights = 2 << 20;
  uint64_t params = 3 << 20;
  uint64_t outputs = 4 << 20;
  uint64_t snapshot = 7 << 20;
  uint64_t regionBytes = 1 << 20;  // each of inputs, weights, params, outputs
};

struct Program {
  std::vector<hw::CommandWord> commands;
  // DRAM contents the program reads, and its output region zeroed: (address, bytes).
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> inputs;
  // The bytes the program may write, to compare between backends (snapshot excluded).
  uint64_t outputBase = 0, outputBytes = 0;
  uint64_t snapshotAddr = 0;
  uint32_t tag = 0;
};

// Random tiles of GEMM work: multi-level strided input loads, weight loads, K-split GEMMs
// accumulating into the accumulator, keep_weights reuse, requant8 and raw32 stores with random
// parameters, zero points, clamps and strides, nops with ignored token bits. `tiles` tiles.
Program randomProgram(const hw::HwConfig& config, uint32_t seed, unsigned tiles,
                      const ProgramLayout& layout = {});

// A long, double-buffered GEMM stream: per tile, load `rowsPerTile` input rows and a full
// weight tile, GEMM them (k = Rows), store requantized rows; loads overlap compute and stores.
Program gemmStreamProgram(const hw::HwConfig& config, unsigned tiles, unsigned rowsPerTile,
                          const ProgramLayout& layout = {});

// Short GEMMs, each handing its own accumulator rows to a store of `rows` rows: the stores
// outrun their acknowledgements (DRAM latency), so StoreCmdsInFlight of them wait and each
// further store starts when a slot frees. At most TokenDepth stores.
Program storeBoundProgram(const hw::HwConfig& config, unsigned stores, unsigned rows,
                          const ProgramLayout& layout = {});

// Random vector-unit work: the vector scratchpad and lookup table loaded with random bytes, then
// `commands` WINDOW, ELTWISE and SOFTMAX commands with random fields (every kind, signedness,
// broadcast, lane mapping, tile edge and zero point the encoding allows, within small sizes),
// each stored raw (int32) to DRAM. With `withGemms`, a GEMM stream runs alongside in the other
// half of the accumulator, so the array and the vector unit share the machine.
Program randomVectorProgram(const hw::HwConfig& config, uint32_t seed, unsigned commands, bool withGemms = false,
                            const ProgramLayout& layout = {});

// Writes the program's inputs into device DRAM.
void writeInputs(IDeviceBackend& device, const Program& program);

// The program's output region after running it on the functional model alone, in ring
// order: what every backend must produce.
std::vector<uint8_t> functionalOutputs(const hw::HwConfig& config, const Program& program);

// The program's output region as a device holds it.
std::vector<uint8_t> deviceOutputs(IDeviceBackend& device, const Program& program);

}  // namespace weft::sim::testing
