#include "Energy.h"

#include <algorithm>
#include <cmath>

namespace weft::codesign {
namespace {

uint64_t counter(const Counters& counters, const char* name) {
  for (const auto& [n, v] : counters) {
    if (n == name) return v;
  }
  return 0;
}

constexpr uint64_t kCommandBytes = 32;  // hw/spec/isa.json: a command is 256 bits

}  // namespace

std::vector<Memory> memories(const hw::HwConfig& hw) {
  const uint64_t rows = hw.rows(), cols = hw.cols();
  return {
      {"input scratchpad", uint64_t{hw.inSpadRows()} * rows, 1},
      {"weight scratchpad", uint64_t{hw.wSpadRows()} * cols, 1},
      {"accumulator", uint64_t{hw.accRows()} * cols * 4, 1},
      {"vector scratchpad", uint64_t{hw.vecSpadRows()} * cols, 2},
      {"parameter memory", uint64_t{hw.paramRows()} * hw.paramRowBytes(), 1},
      {"lookup table", uint64_t{hw.lutRows()} * cols * 4, 1},
  };
}

double sramPjPerByte(const EnergyModel& model, uint64_t bytes) {
  return model.get(Coefficient::kSramPjPerByteAt8KiB) * std::sqrt(static_cast<double>(bytes) / 8192.0);
}

EnergyBreakdown& EnergyBreakdown::operator+=(const EnergyBreakdown& o) {
  macPj += o.macPj, vectorPj += o.vectorPj, scratchpadPj += o.scratchpadPj, accumulatorPj += o.accumulatorPj;
  dramPj += o.dramPj, registerPj += o.registerPj, leakagePj += o.leakagePj;
  return *this;
}

EnergyBreakdown estimateEnergy(const EnergyModel& model, const hw::HwConfig& hw, const Counters& counters,
                               uint64_t registerAccesses, double areaUm2) {
  const double rows = hw.rows(), cols = hw.cols();
  const double arrayRows = static_cast<double>(counter(counters, "ARRAY_ROWS"));
  const double fp16Rows = static_cast<double>(counter(counters, "FP16_ROWS"));
  const double slots = static_cast<double>(counter(counters, "VECTOR_SLOTS"));
  const double weightRows = static_cast<double>(counter(counters, "WSPAD_RD_ROWS"));
  const uint64_t readBytes = counter(counters, "DMA_RD_BYTES"), writeBytes = counter(counters, "DMA_WR_BYTES");
  // Command fetches are DRAM reads too but land in the fetch buffer, not a scratchpad.
  const uint64_t fetched = counter(counters, "CMDS_RETIRED") * kCommandBytes;
  const double loadedBytes = static_cast<double>(readBytes - std::min(readBytes, fetched));
  const auto mems = memories(hw);
  const double inSpad = sramPjPerByte(model, mems[0].bytes), acc = sramPjPerByte(model, mems[2].bytes);
  const double vecSpad = sramPjPerByte(model, mems[3].bytes);
  const double wSpad = sramPjPerByte(model, mems[1].bytes);

  EnergyBreakdown e;
  // Every row that enters the array keeps all Rows x Cols PEs busy once (padding lanes too); a
  // GEMM fp16 row does one binary16 multiply-accumulate per pair of PE rows and column instead.
  e.macPj = (arrayRows - fp16Rows) * rows * cols * model.get(Coefficient::kMacPj) +
            fp16Rows * std::floor(rows / 2) * cols * model.get(Coefficient::kFp16MacPj);
  e.vectorPj = slots * cols * model.get(Coefficient::kVectorLaneOpPj);
  // A streamed row reads Rows bytes of the input scratchpad; a weight row read (a WS preload's,
  // or an OS block's) Cols bytes of the weight scratchpad; a vector slot reads a row of each
  // vector-scratchpad copy; every loaded byte is written once, costed as an input-scratchpad byte.
  e.scratchpadPj = arrayRows * rows * inSpad + weightRows * cols * wSpad + slots * 2 * cols * vecSpad +
                   loadedBytes * inSpad;
  // A row leaving the array reads and writes Cols int32 words; a vector slot writes a row; a
  // store reads four accumulator bytes per byte it writes (quant8 outputs).
  e.accumulatorPj = (arrayRows * cols * 8 + slots * cols * 4 + static_cast<double>(writeBytes) * 4) * acc;
  // A cycle-level DRAM (Dram other than simple) reports its own energy, from its commands and
  // background (sim/dram/README.md, "Energy"); the simple pipe costs a fixed energy per byte.
  e.dramPj = hw.get(hw::Param::kDram) != 0
                 ? static_cast<double>(counter(counters, "DRAM_ENERGY_PJ"))
                 : static_cast<double>(readBytes + writeBytes) * model.get(Coefficient::kDramPjPerByte);
  e.registerPj = static_cast<double>(registerAccesses) * model.get(Coefficient::kRegisterAccessPj);
  // mW/mm^2 x mm^2 x ns = pJ.
  const double ns = static_cast<double>(counter(counters, "CYCLES")) * hw.cyclePeriodNs();
  e.leakagePj = model.get(Coefficient::kLeakageMwPerMm2) * (areaUm2 * 1e-6) * ns;
  return e;
}

}  // namespace weft::codesign
