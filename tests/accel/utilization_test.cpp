// Utilization of large layers on the default configuration (approx backend, which follows the
// RTL cycle for cycle), from the device's counters: cycles against the ideal MACs / (Rows x
// Cols). The figures are printed for the report; the assertions are the physical bounds and a
// floor that catches tiling regressions. ACCEL_COUNTERS=1 prints every counter.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>

#include "../../driver/accel/PreparedModel.h"
#include "AccelTestUtil.h"
#include "weft/hw/config.h"

namespace weft::accel::test {
namespace {

struct Measured {
  uint64_t cycles = 0, macs = 0, arrayRows = 0, dmaRead = 0, dmaWrite = 0, stallDram = 0;
  double ideal = 0;
  double utilization() const { return ideal / static_cast<double>(cycles); }
};

uint64_t counter(const hal::OperationProfile& p, const char* name) {
  for (const auto& [n, v] : p.counters) {
    if (n == name) return v;
  }
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

Measured measure(const OpModel& m, const std::string& config, const std::string& label,
                 int64_t maxOutstanding = 0) {
  auto hw = hw::HwConfig::load(config);
  if (maxOutstanding > 0) hw = hw.with(hw::Param::kMaxOutstanding, maxOutstanding);
  auto device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw));
  auto prepared = prepare(*device, m.model);
  EXPECT_TRUE(prepared.ok()) << prepared.error().message;
  if (!prepared.ok()) return {};
  auto run = runOnPrepared(*prepared.value(), m);
  EXPECT_TRUE(run.ok()) << run.error().message;
  if (!run.ok()) return {};
  const auto& op = run.value().execution->profile.operations.at(0);
  const auto& compiled = dynamic_cast<const PreparedModel&>(*prepared.value()).compiled();
  std::printf("[tiling] %s: %s; %llu commands\n", label.c_str(), compiled.operations.at(0).tiling.c_str(),
              static_cast<unsigned long long>(compiled.operations.at(0).commands));
  Measured r;
  r.cycles = op.cycles;
  r.macs = op.macs;
  r.ideal = static_cast<double>(op.macs) / (hw.rows() * hw.cols());
  r.arrayRows = counter(op, "ARRAY_ROWS");
  r.dmaRead = op.dramReadBytes;
  r.dmaWrite = op.dramWriteBytes;
  r.stallDram = counter(op, "STALL_DRAM_RD");
  if (std::getenv("ACCEL_COUNTERS") != nullptr) {
    for (const auto& [n, v] : op.counters) std::printf("    %-20s %llu\n", n.c_str(), static_cast<unsigned long long>(v));
  }
  std::printf("%s\n", fmt::format("[utilization] {} on {} (MaxOutstanding {}): {} cycles, ideal {:.0f} (MACs {} / {}x{}), "
                                  "utilization {:.1f}%, array rows {}, DRAM read {} B, written {} B, "
                                  "load DRAM stalls {} cycles",
                                  label, config, hw.get(hw::Param::kMaxOutstanding), r.cycles, r.ideal, r.macs, hw.rows(), hw.cols(),
                                  100 * r.utilization(), r.arrayRows, r.dmaRead, r.dmaWrite, r.stallDram)
                          .c_str());
  // Physical bounds: no faster than the array, and every MAC went through an array row.
  EXPECT_GE(static_cast<double>(r.cycles), r.ideal);
  EXPECT_GE(r.arrayRows * hw.rows() * hw.cols(), r.macs);
  return r;
}

ConvCase conv(uint32_t hw, uint32_t cin, uint32_t cout, uint32_t f) {
  ConvCase c;
  c.height = c.width = hw;
  c.inChannels = cin;
  c.outChannels = cout;
  c.filterH = c.filterW = f;
  c.implicitPadding = true;
  c.paddingScheme = 1;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 127};
  c.filter = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.01f, 130};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 4.0f, 120};
  c.activation = 3;
  return c;
}

TEST(Utilization, Conv3x3With128ChannelsOn28x28) {
  std::mt19937 rng(1);
  const OpModel m = makeConvModel(conv(28, 128, 128, 3), rng);
  const Measured r = measure(m, "weft16", "CONV_2D 28x28x128 -> 128, 3x3");
  EXPECT_GT(r.utilization(), 0.90);
  // The same layer when the DMA has four times the requests in flight.
  const Measured fast = measure(m, "weft16", "CONV_2D 28x28x128 -> 128, 3x3", 64);
  EXPECT_GT(fast.utilization(), 0.90);
}

TEST(Utilization, Pointwise256ChannelsOn14x14) {
  std::mt19937 rng(2);
  const Measured r = measure(makeConvModel(conv(14, 256, 256, 1), rng), "weft16", "CONV_2D 14x14x256 -> 256, 1x1");
  // One box of 196 pixels: the first tile group waits for the im2col rows, one DMA request each.
  EXPECT_GT(r.utilization(), 0.70);
}

TEST(Utilization, FullyConnected1024Batch256) {
  std::mt19937 rng(3);
  FcCase c;
  c.inputDims = {256, 1024};
  c.units = 1024;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  c.weights = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.01f, 120};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 4.0f, 100};
  const Measured r = measure(makeFcModel(c, rng), "weft16", "FULLY_CONNECTED 256x1024 -> 1024");
  EXPECT_GT(r.utilization(), 0.90);
}

}  // namespace
}  // namespace weft::accel::test
