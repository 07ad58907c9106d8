// Programs: a double-buffered load/compute/store pipeline ordered by tokens, barrier
// snapshot records, ring wrap-around and a doorbell rung in pieces.
#include <gtest/gtest.h>

#include "session.h"

namespace weft::rtltest {
namespace {

class RtlProgram : public ::testing::TestWithParam<std::string> {};

uint64_t counterOf(const std::vector<uint8_t>& rec, hw::Counter c) {
  uint64_t v;
  std::memcpy(&v, &rec[8 * (1 + static_cast<size_t>(c))], 8);
  return v;
}

// One tile of work for the pipeline test: `rows` input rows against one weight tile.
struct Tile {
  uint32_t inAddr, accAddr;
  uint64_t src, dst;
};

TEST_P(RtlProgram, DoubleBufferedPipelineOverlapsLoadComputeAndStore) {
  Session s(GetParam(), 21);
  const unsigned R = s.dev.rows(), C = s.dev.cols();
  const uint32_t rows = 48;
  const int tiles = 8;
  // Weights and parameters, then tiles alternating between two input and two accumulator
  // buffers. Load i waits for GEMM i-2 to free its input buffer (compute->load); GEMM i waits
  // for its load (load->compute) and for store i-2 to free its accumulators (store->compute).
  s.add(Session::load(hw::Mem::kW, 0, s.put(s.randomBytes(size_t{R} * C)), C, R));
  std::vector<uint8_t> prow = s.randomBytes(9 * C);
  for (unsigned n = 0; n < C; ++n) prow[8 * C + n] = static_cast<uint8_t>(s.uniform(-12, 0));
  s.add(Session::load(hw::Mem::kParam, 0, s.put(prow), 9 * C, 1));
  uint64_t loadBytes = size_t{R} * C + 9 * C, storeBytes = 0;
  for (int i = 0; i < tiles; ++i) {
    const uint32_t inAddr = (i % 2) * 64, accAddr = (i % 2) * 64;
    s.add(Session::load(hw::Mem::kIn, inAddr, s.put(s.randomBytes(size_t{rows} * R)), R, rows,
                        tokens(false, i >= 2, false, true)));
    loadBytes += size_t{rows} * R;
    hw::GemmCmd g;
    g.header = tokens(true, i >= 2, true, true);
    g.keepWeights = i > 0;
    g.kRows = R;
    g.mRows = rows;
    g.inAddr = inAddr;
    g.accAddr = accAddr;
    g.inZp = 7;
    g.wZp = 3;
    s.add(g);
    hw::StoreCmd st;
    st.header = tokens(true, false, true, false);
    st.mode = hw::StoreMode::kRequant8;
    st.rowBytes = C;
    st.accAddr = accAddr;
    st.dramAddr = Session::kOutputs + static_cast<uint64_t>(i) * rows * C;
    st.stride0 = C;
    st.count0 = rows;
    st.count1 = 1;
    st.clampMin = 0;
    st.clampMax = 255;
    s.add(st);
    storeBytes += size_t{rows} * C;
  }
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);

  auto& st = s.dev.stepper();
  const uint64_t load = st.readCounter(hw::Counter::kLoadActive);
  const uint64_t compute = st.readCounter(hw::Counter::kComputeActive);
  const uint64_t store = st.readCounter(hw::Counter::kStoreActive);
  const uint64_t busy = st.readCounter(hw::Counter::kBusy);
  EXPECT_LT(busy, load + compute + store) << "the units overlap";
  EXPECT_EQ(st.readCounter(hw::Counter::kArrayRows), uint64_t{tiles} * rows);
  EXPECT_EQ(st.readCounter(hw::Counter::kDmaRdBytes), loadBytes + 32 * (3 * tiles + 3));
  EXPECT_EQ(st.readCounter(hw::Counter::kDmaWrBytes), storeBytes);
  EXPECT_EQ(st.readCounter(hw::Counter::kDmaWrReqs), uint64_t{tiles} * rows);
  EXPECT_EQ(st.readCounter(hw::Counter::kCmdsRetired), uint64_t{3 * tiles + 3});
  EXPECT_GT(st.readCounter(hw::Counter::kStallComputeToken), 0u) << "GEMMs wait for their loads";
}

TEST_P(RtlProgram, SnapshotRecordsTagAndExactCounters) {
  Session s(GetParam(), 22);
  const unsigned R = s.dev.rows();
  const uint64_t snap1 = 0x700000, snap2 = 0x700400;
  // Part 1: two loads and a snapshot barrier with irq. The doorbell covers exactly part 1,
  // so the fetched bytes at the snapshot are known.
  s.add(Session::load(hw::Mem::kIn, 0, s.put(s.randomBytes(size_t{5} * R)), R, 5));
  s.add(Session::load(hw::Mem::kIn, 10, s.put(s.randomBytes(size_t{3} * 2)), 2, 3));
  s.add(barrier(true, true, 0xabc00001u, snap1));
  ASSERT_EQ(s.dev.run(s.cmds), hw::reg::kIrqStatusDoneMask);
  s.cmds.clear();
  // Part 2: a store of 4 raw32 rows (16 bytes each at Cols >= 4) and a second snapshot.
  s.add(Session::load(hw::Mem::kIn, 20, s.put(s.randomBytes(7)), 7, 1));
  hw::StoreCmd st;
  st.mode = hw::StoreMode::kRaw32;
  st.rowBytes = 2;
  st.dramAddr = Session::kOutputs;
  st.stride0 = 8;
  st.count0 = 4;
  st.count1 = 1;
  s.add(st);
  s.add(barrier(true, true, 0xabc00002u, snap2));
  ASSERT_EQ(s.dev.run(s.cmds), hw::reg::kIrqStatusDoneMask);

  const auto r1 = s.dev.dram().get(snap1, hw::kSnapshotBytes);
  const auto r2 = s.dev.dram().get(snap2, hw::kSnapshotBytes);
  EXPECT_EQ(s.dev.dram().load64(snap1), 0xabc00001u);
  EXPECT_EQ(s.dev.dram().load64(snap2), 0xabc00002u);
  EXPECT_EQ(counterOf(r1, hw::Counter::kDmaRdBytes), 3 * 32 + 5 * R + 3 * 2);
  // The 5 contiguous full rows merge into one request; the 2-byte rows take one each.
  EXPECT_EQ(counterOf(r1, hw::Counter::kDmaRdReqs), 1 + 3 + 1u) << "one fetch of 3 commands";
  EXPECT_EQ(counterOf(r1, hw::Counter::kDmaWrBytes), 0u);
  EXPECT_EQ(counterOf(r1, hw::Counter::kCmdsRetired), 2u);
  EXPECT_EQ(counterOf(r2, hw::Counter::kDmaRdBytes), 6 * 32 + 5 * R + 3 * 2 + 7);
  EXPECT_EQ(counterOf(r2, hw::Counter::kDmaWrBytes), hw::kSnapshotBytes + 4 * 8);
  EXPECT_EQ(counterOf(r2, hw::Counter::kDmaWrReqs), 1 + 4u);
  EXPECT_EQ(counterOf(r2, hw::Counter::kCmdsRetired), 2u + 1 + 2);
  EXPECT_GT(counterOf(r1, hw::Counter::kCycles), 0u);
  EXPECT_GT(counterOf(r2, hw::Counter::kCycles), counterOf(r1, hw::Counter::kCycles));
  EXPECT_GE(counterOf(r2, hw::Counter::kBusy), counterOf(r1, hw::Counter::kBusy));
  EXPECT_LE(counterOf(r2, hw::Counter::kCycles), s.dev.stepper().readCounter(hw::Counter::kCycles));
  EXPECT_GT(counterOf(r1, hw::Counter::kLoadActive), 0u);
  EXPECT_EQ(counterOf(r1, hw::Counter::kStoreActive), 0u);
}

// A small tile checked through the reference: a load, a GEMM and a raw32 store.
void addTile(Session& s, uint64_t out) {
  const unsigned R = s.dev.rows(), C = s.dev.cols();
  s.add(Session::load(hw::Mem::kIn, 0, s.put(s.randomBytes(size_t{4} * R)), R, 4));
  s.add(Session::load(hw::Mem::kW, 0, s.put(s.randomBytes(size_t{R} * C)), C, R,
                      tokens(false, false, false, true)));
  hw::GemmCmd g;
  g.header = tokens(true, false, false, true);
  g.kRows = R;
  g.mRows = 4;
  s.add(g);
  hw::StoreCmd st;
  st.header = tokens(true, false, false, false);
  st.mode = hw::StoreMode::kRaw32;
  st.rowBytes = C;
  st.dramAddr = out;
  st.stride0 = 4 * C;
  st.count0 = 4;
  st.count1 = 1;
  s.add(st);
}

TEST_P(RtlProgram, RingWrapsAroundPastRingSize) {
  Session s(GetParam(), 23);
  const uint32_t ringSize = 7;
  s.dev.initRing(ringSize);
  const unsigned C = s.dev.cols();
  s.add(Session::load(hw::Mem::kParam, 0, s.put(std::vector<uint8_t>(9 * C, 0)), 9 * C, 1));
  s.add(hw::NopCmd{}.encode());
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  uint32_t head = 3;
  for (int round = 0; round < 5; ++round) {
    // 4 tile commands and the barrier: 5 of the ring's 7 slots, wrapping every round or two.
    addTile(s, Session::kOutputs + 0x1000 * round);
    ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask) << "round " << round;
    head = (head + 5) % ringSize;
    EXPECT_EQ(s.dev.stepper().readReg(hw::reg::kRingHead), head);
  }
  EXPECT_EQ(s.firstMismatch(), -1);
  const Status st = s.dev.status();
  EXPECT_FALSE(st.halted);
  EXPECT_FALSE(st.busy);
}

TEST_P(RtlProgram, DoorbellRungInPieces) {
  Session s(GetParam(), 24);
  const unsigned C = s.dev.cols();
  s.add(Session::load(hw::Mem::kParam, 0, s.put(std::vector<uint8_t>(9 * C, 0)), 9 * C, 1));
  addTile(s, Session::kOutputs);
  s.add(barrier(false));
  addTile(s, Session::kOutputs + 0x1000);
  s.add(barrier(true));
  const int total = static_cast<int>(s.cmds.size());
  s.dev.place(s.cmds);
  auto& st = s.dev.stepper();
  int rung = 0;
  for (int piece : {1, 3, 4, 2}) {
    s.dev.ring(piece);
    rung += piece;
    st.step(300);
    EXPECT_FALSE(st.irq());
    EXPECT_EQ(st.readReg(hw::reg::kRingHead), static_cast<uint32_t>(rung)) << "fetched up to the tail";
  }
  s.dev.ring(total - rung);
  ASSERT_EQ(s.dev.waitIrq(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlProgram, ::testing::Values("weft8", "weft16", "weft8os", "weft16os", "weft16fp"), configName);

}  // namespace
}  // namespace weft::rtltest
