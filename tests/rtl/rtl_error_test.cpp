// Errors: every error code halts the controller with STATUS.error and IRQ_STATUS.error
// without executing the bad command or anything after it; CTRL.soft_reset recovers, also in
// the middle of DRAM traffic, and the next program runs correctly.
#include <gtest/gtest.h>

#include <functional>

#include "session.h"

namespace weft::rtltest {
namespace {

struct BadCase {
  const char* name;
  hw::Error error;
  std::function<hw::CommandWord(const hw::HwConfig&)> make;
};

hw::LoadCmd goodLoad() { return Session::load(hw::Mem::kIn, 0, Session::kData, 4, 2); }
hw::GemmCmd goodGemm() {
  hw::GemmCmd g;
  g.kRows = 2;
  g.mRows = 2;
  return g;
}
// A store that would write into the output region: bad versions must leave it untouched.
hw::StoreCmd goodStore() {
  hw::StoreCmd s;
  s.mode = hw::StoreMode::kRaw32;
  s.rowBytes = 2;
  s.dramAddr = Session::kOutputs + 0x800;
  s.stride0 = 8;
  s.count0 = 2;
  s.count1 = 1;
  return s;
}

std::vector<BadCase> badCases() {
  using E = hw::Error;
  return {
      {"opcode15", E::kBadOpcode, [](const hw::HwConfig&) { hw::CommandWord c = goodStore().encode(); c.set(hw::field::kOpcode, 15); return c; }},
      {"opcode9", E::kBadOpcode, [](const hw::HwConfig&) { hw::CommandWord c; c.set(hw::field::kOpcode, 9); return c; }},
      {"load_dst5", E::kBadValue, [](const hw::HwConfig&) { auto l = goodLoad(); l.dst = static_cast<hw::Mem>(5); return l.encode(); }},
      {"gemm_in_zp", E::kBadValue, [](const hw::HwConfig&) { auto g = goodGemm(); g.inZp = 256; return g.encode(); }},
      {"gemm_signed_w_zp", E::kBadValue, [](const hw::HwConfig&) { auto g = goodGemm(); g.wSigned = true; g.wZp = 128; return g.encode(); }},
      {"store_fp16_affine_without_fp16", E::kBadValue, [](const hw::HwConfig& c) {
         // (Every store mode is valid with Fp16: there, a layer norm's output fraction past 20.)
         if (c.fp16()) { hw::LayerNormCmd n; n.count = 1; n.lastLanes = 1; n.outShift = 21; return n.encode(); }
         auto s = goodStore(); s.mode = hw::StoreMode::kFp16Affine; return s.encode(); }},
      {"load_count2_zero", E::kBadLength, [](const hw::HwConfig&) { auto l = goodLoad(); l.count2 = 0; return l.encode(); }},
      {"load_row_bytes", E::kBadLength, [](const hw::HwConfig& c) { auto l = goodLoad(); l.rowBytes = c.rows() + 1; return l.encode(); }},
      {"load_param_row_bytes", E::kBadLength, [](const hw::HwConfig& c) { auto l = goodLoad(); l.dst = hw::Mem::kParam; l.count0 = 1; l.rowBytes = c.paramRowBytes() + 1; return l.encode(); }},
      {"gemm_k_rows", E::kBadLength, [](const hw::HwConfig& c) { auto g = goodGemm(); g.kRows = c.rows() + 1; return g.encode(); }},
      {"gemm_m_rows_zero", E::kBadLength, [](const hw::HwConfig&) { auto g = goodGemm(); g.mRows = 0; return g.encode(); }},
      {"store_row_bytes", E::kBadLength, [](const hw::HwConfig& c) { auto s = goodStore(); s.rowBytes = c.cols() + 1; return s.encode(); }},
      {"store_count_zero", E::kBadLength, [](const hw::HwConfig&) { auto s = goodStore(); s.count1 = 0; return s.encode(); }},
      {"store_tiles_zero", E::kBadLength, [](const hw::HwConfig&) { auto s = goodStore(); s.tiles = 0; return s.encode(); }},
      {"store_tiles_past_row_buffer", E::kBadLength, [](const hw::HwConfig& c) { auto s = goodStore(); s.tiles = hw::micro::kStoreFifoDepth + 1; s.stride0 = 4 * c.cols() * s.tiles; return s.encode(); }},
      {"gemm_groups_zero", E::kBadLength, [](const hw::HwConfig&) { auto g = goodGemm(); g.mGroups = 0; return g.encode(); }},
      {"load_pack_dst_w", E::kBadValue, [](const hw::HwConfig&) { auto l = goodLoad(); l.pack = true; l.dst = hw::Mem::kW; return l.encode(); }},
      {"load_pack_byte", E::kBadValue, [](const hw::HwConfig& c) { auto l = goodLoad(); l.pack = true; l.packByte = c.rows(); return l.encode(); }},
      {"load_pack_row_bytes", E::kBadLength, [](const hw::HwConfig&) { auto l = goodLoad(); l.pack = true; l.rowBytes = hw::micro::kLoadMaxReqBytes + 1; return l.encode(); }},
      {"load_pack_range", E::kBadAddress, [](const hw::HwConfig& c) { auto l = goodLoad(); l.pack = true; l.count0 = 2; l.packStride = 3; l.spadAddr = c.inSpadRows() - 4; l.packByte = c.rows() - 1; l.rowBytes = 2; return l.encode(); }},
      {"load_pack_rows_in_place", E::kBadAddress, [](const hw::HwConfig& c) { auto l = goodLoad(); l.pack = true; l.count0 = 1; l.count1 = c.inSpadRows() + 1; l.packStride = 0; return l.encode(); }},
      {"load_pack_huge_counts", E::kBadAddress, [](const hw::HwConfig&) { auto l = goodLoad(); l.pack = true; l.count0 = l.count1 = l.count2 = 0xFFFF; l.packStride = 0xFFFF; return l.encode(); }},
      {"load_range", E::kBadAddress, [](const hw::HwConfig& c) { auto l = goodLoad(); l.spadAddr = c.inSpadRows() - 1; return l.encode(); }},
      {"load_w_range", E::kBadAddress, [](const hw::HwConfig& c) { auto l = goodLoad(); l.dst = hw::Mem::kW; l.count0 = 3; l.count1 = 5; l.count2 = 7; l.spadAddr = c.wSpadRows() - 104; return l.encode(); }},
      {"gemm_acc_range", E::kBadAddress, [](const hw::HwConfig& c) { auto g = goodGemm(); g.accAddr = c.accRows() - 1; return g.encode(); }},
      {"gemm_w_range", E::kBadAddress, [](const hw::HwConfig& c) { auto g = goodGemm(); g.wAddr = c.wSpadRows() - 1; return g.encode(); }},
      {"store_param_row", E::kBadAddress, [](const hw::HwConfig& c) { auto s = goodStore(); s.paramRow = c.paramRows(); return s.encode(); }},
      {"store_acc_range", E::kBadAddress, [](const hw::HwConfig& c) { auto s = goodStore(); s.accAddr = c.accRows() - 1; return s.encode(); }},
      {"store_tile_acc_range", E::kBadAddress, [](const hw::HwConfig& c) { auto s = goodStore(); s.tiles = 2; s.stride0 = 8 * c.cols(); s.tileAccStride = c.accRows() - 1; return s.encode(); }},
      {"store_tiles_past_params", E::kBadAddress, [](const hw::HwConfig& c) { auto s = goodStore(); s.tiles = 2; s.stride0 = 8 * c.cols(); s.paramRow = c.paramRows() - 1; return s.encode(); }},
      {"gemm_strided_in_range", E::kBadAddress, [](const hw::HwConfig& c) { auto g = goodGemm(); g.mGroups = 2; g.inStride1 = c.inSpadRows() - 1; return g.encode(); }},
  };
}

class RtlError : public ::testing::TestWithParam<std::string> {};

// Runs a valid tile, the bad command, then a store that must not run; checks the halt, then
// soft-resets and checks that a fresh program runs.
TEST_P(RtlError, EveryErrorCodeHaltsWithoutExecutingAndSoftResetRecovers) {
  const hw::HwConfig config = hw::HwConfig::load(GetParam());
  Session s(GetParam(), 31);
  const unsigned C = s.dev.cols();
  s.add(Session::load(hw::Mem::kParam, 0, s.put(std::vector<uint8_t>(9 * C, 0)), 9 * C, 1));
  for (const auto& bad : badCases()) {
    SCOPED_TRACE(bad.name);
    // Before: a store that runs. The bad command. After: a store that must not.
    hw::StoreCmd before = goodStore();
    before.dramAddr = Session::kOutputs;
    s.add(before);
    s.add(bad.make(config));
    hw::StoreCmd after = goodStore();
    after.dramAddr = Session::kOutputs + 0x400;
    after.rowBytes = 1;
    s.dev.place(s.cmds);
    s.cmds.clear();
    s.dev.place({after.encode(), barrier(true)});
    s.dev.ring();
    ASSERT_EQ(s.dev.waitIrq(100000), hw::reg::kIrqStatusErrorMask);
    s.dev.stepper().step(200);  // let anything that was wrongly dispatched show
    const Status st = s.dev.status();
    EXPECT_TRUE(st.halted);
    EXPECT_EQ(st.error, static_cast<uint32_t>(bad.error));
    EXPECT_FALSE(st.busy) << "the halted controller fetches nothing";
    EXPECT_EQ(s.firstMismatch(), -1) << "exactly the commands before the bad one ran";
    // Soft reset: status and pointers clear, counters keep counting.
    const uint64_t retired = s.dev.stepper().readCounter(hw::Counter::kCmdsRetired);
    s.dev.softReset();
    s.dev.stepper().step(2);
    const Status clean = s.dev.status();
    EXPECT_FALSE(clean.halted);
    EXPECT_EQ(clean.error, 0u);
    EXPECT_EQ(s.dev.stepper().readReg(hw::reg::kRingHead), 0u);
    EXPECT_EQ(s.dev.stepper().readReg(hw::reg::kRingTail), 0u);
    EXPECT_EQ(s.dev.stepper().readReg(hw::reg::kIrqStatus), 0u);
    EXPECT_GE(s.dev.stepper().readCounter(hw::Counter::kCmdsRetired), retired);
    if (HasFailure()) return;
  }
  // The next program after the last recovery runs correctly.
  hw::StoreCmd last = goodStore();
  last.dramAddr = Session::kOutputs + 0x1000;
  s.add(last);
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);
}

TEST_P(RtlError, BadRingHalts) {
  RtlDevice dev(GetParam());
  auto& st = dev.stepper();
  st.writeReg(hw::reg::kIrqMask, 3);
  st.writeReg(hw::reg::kCtrl, hw::reg::kCtrlEnableMask);
  st.step(50);
  EXPECT_FALSE(dev.status().halted) << "an empty ring of size 0 is not an error";
  st.writeReg(hw::reg::kRingTail, 1);  // RING_SIZE is 0
  ASSERT_EQ(dev.waitIrq(1000), hw::reg::kIrqStatusErrorMask);
  EXPECT_EQ(dev.status().error, static_cast<uint32_t>(hw::Error::kBadRing));
  EXPECT_EQ(dev.stepper().readCounter(hw::Counter::kDmaRdReqs), 0u) << "nothing fetched";
  dev.softReset();
  st.writeReg(hw::reg::kRingSize, 4);
  st.writeReg(hw::reg::kRingTail, 4);  // not below RING_SIZE
  ASSERT_EQ(dev.waitIrq(1000), hw::reg::kIrqStatusErrorMask);
  EXPECT_EQ(dev.status().error, static_cast<uint32_t>(hw::Error::kBadRing));
  dev.softReset();
  dev.initRing();
  ASSERT_EQ(dev.run({barrier(true)}), hw::reg::kIrqStatusDoneMask);
  EXPECT_FALSE(dev.status().halted);
}

// A soft reset in the middle of loads and stores with reads and writes in flight: their
// beats and acknowledgements are absorbed, and the next program runs correctly.
TEST_P(RtlError, SoftResetDuringDramTrafficRecovers) {
  const unsigned latency = 40;
  int inFlight = 0;  // resets that happened with DRAM transactions in flight
  for (uint64_t resetAt : {30u, 75u, 140u, 260u}) {
    SCOPED_TRACE(resetAt);
    RtlDevice dev(GetParam(), latency, latency);
    const unsigned R = dev.rows(), C = dev.cols();
    dev.initRing();
    // A busy program writing outside the compared region.
    std::vector<hw::CommandWord> busy;
    busy.push_back(Session::load(hw::Mem::kIn, 0, Session::kData, R, 64).encode());
    busy.push_back(Session::load(hw::Mem::kW, 0, Session::kData, C, R, tokens(false, false, false, true)).encode());
    hw::GemmCmd g;
    g.header = tokens(true, false, false, true);
    g.kRows = R;
    g.mRows = 64;
    busy.push_back(g.encode());
    hw::StoreCmd st;
    st.header = tokens(true, false, false, false);
    st.mode = hw::StoreMode::kRaw32;
    st.rowBytes = C;
    st.dramAddr = 0x700000;
    st.stride0 = 4 * C;
    st.count0 = 64;
    st.count1 = 1;
    busy.push_back(st.encode());
    busy.push_back(barrier(false, true, 1, 0x780000));
    busy.push_back(barrier(true));
    dev.place(busy);
    dev.ring();
    dev.stepper().step(resetAt);
    inFlight += dev.stepper().dramIdle() ? 0 : 1;
    dev.softReset();
    dev.stepper().step(3 * latency);  // the owed beats and acknowledgements drain

    // A fresh, checked program on the same device.
    dev.initRing();
    std::vector<uint8_t> x(size_t{4} * R), w(size_t{R} * C);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i * 7 + 1);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>(i * 13 + 5);
    dev.dram().put(0x200000, x);
    dev.dram().put(0x210000, w);
    dev.dram().put(0x220000, std::vector<uint8_t>(9 * C, 0));
    Reference ref(dev.config());
    std::vector<uint8_t> expected(0x1000, 0);
    dev.dram().put(Session::kOutputs, expected);
    std::vector<hw::CommandWord> prog;
    auto add = [&](auto cmd) { prog.push_back(cmd.encode()); };
    const auto l1 = Session::load(hw::Mem::kIn, 8, 0x200000, R, 4);
    const auto l2 = Session::load(hw::Mem::kW, 8, 0x210000, C, R);
    auto l3 = Session::load(hw::Mem::kParam, 1, 0x220000, 9 * C, 1, tokens(false, false, false, true));
    ref.load(l1, dev.dram().at(0));
    ref.load(l2, dev.dram().at(0));
    ref.load(l3, dev.dram().at(0));
    add(l1);
    add(l2);
    add(l3);
    hw::GemmCmd g2;
    g2.header = tokens(true, false, false, true);
    g2.kRows = R;
    g2.wAddr = 8;
    g2.inAddr = 8;
    g2.mRows = 4;
    g2.accAddr = 3;
    ref.gemm(g2);
    add(g2);
    hw::StoreCmd s2;
    s2.header = tokens(true, false, false, false);
    s2.mode = hw::StoreMode::kRaw32;
    s2.rowBytes = C;
    s2.paramRow = 1;
    s2.accAddr = 3;
    s2.dramAddr = Session::kOutputs;
    s2.stride0 = 4 * C;
    s2.count0 = 4;
    s2.count1 = 1;
    ref.store(s2, expected.data() - Session::kOutputs);
    add(s2);
    prog.push_back(barrier(true));
    ASSERT_EQ(dev.run(prog), hw::reg::kIrqStatusDoneMask);
    EXPECT_EQ(dev.dram().get(Session::kOutputs, expected.size()), expected);
    EXPECT_FALSE(dev.status().halted);
  }
  EXPECT_GE(inFlight, 3);
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlError, ::testing::Values("weft8", "weft16", "weft8os", "weft16os", "weft16fp"), configName);

}  // namespace
}  // namespace weft::rtltest
