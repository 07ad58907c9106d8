// LOAD: 3-level strided patterns, zero fill past row_bytes, parameter rows. The scratchpads
// are read back through the array (identity weights or identity inputs) and raw32 stores.
#include <gtest/gtest.h>

#include "session.h"

namespace weft::rtltest {
namespace {

class RtlLoad : public ::testing::TestWithParam<std::string> {};

// An identity tile: row k holds 1 in byte k.
std::vector<uint8_t> identity(unsigned rows, unsigned rowBytes) {
  std::vector<uint8_t> v(size_t{rows} * rowBytes, 0);
  for (unsigned k = 0; k < rows && k < rowBytes; ++k) v[size_t{k} * rowBytes + k] = 1;
  return v;
}

hw::StoreCmd raw32(uint32_t accAddr, uint32_t rows, unsigned cols, uint64_t dram,
                   hw::CommandHeader h = {}) {
  hw::StoreCmd s;
  s.header = h;
  s.mode = hw::StoreMode::kRaw32;
  s.rowBytes = cols;
  s.paramRow = 0;
  s.accAddr = accAddr;
  s.dramAddr = dram;
  s.stride0 = 4 * cols;
  s.count0 = rows;
  s.count1 = 1;
  return s;
}

hw::LoadCmd randomPattern(Session& s, hw::Mem dst, unsigned rowSize, uint32_t spad,
                          uint64_t base, uint32_t& rows) {
  hw::LoadCmd l;
  l.dst = dst;
  l.rowBytes = s.uniform(1, rowSize);
  l.spadAddr = spad;
  l.dramAddr = base + s.uniform(0, 63);
  l.count0 = s.uniform(1, 5);
  l.count1 = s.uniform(1, 3);
  l.count2 = s.uniform(1, 3);
  l.stride0 = s.uniform(0, 40);  // 0 and overlapping rows are legal
  l.stride1 = s.uniform(0, 300);
  l.stride2 = s.uniform(0, 2000);
  rows = l.count0 * l.count1 * l.count2;
  return l;
}

// Parameter row 0 with a zero bias (raw32 stores then write the accumulators) and identity
// weights, so that a GEMM copies input rows to the accumulator.
void loadIdentity(Session& s) {
  const unsigned R = s.dev.rows(), C = s.dev.cols();
  s.add(Session::load(hw::Mem::kParam, 0, s.put(std::vector<uint8_t>(9 * C, 0)), 9 * C, 1));
  s.add(Session::load(hw::Mem::kW, 0, s.put(identity(R, C)), C, R));
}

// Reads input rows [spad, spad + rows) back through the identity into accumulator rows from
// accAddr and stores them raw at `out` (advanced past them), after the LOAD before it (its
// load->compute token); the LOAD after it waits for the GEMM (compute->load), since it may
// overwrite rows the GEMM reads.
void readBack(Session& s, uint32_t spad, uint32_t rows, uint32_t accAddr, uint64_t& out) {
  const unsigned R = s.dev.rows(), C = s.dev.cols();
  hw::GemmCmd g;
  g.header = tokens(true, false, true, true);
  g.kRows = R;
  g.mRows = rows;
  g.inAddr = spad;
  g.accAddr = accAddr;
  s.add(g);
  s.add(raw32(accAddr, rows, C, out, tokens(true, false, false, false)));
  out += 4 * C * rows;
  s.add(Session::load(hw::Mem::kIn, 4000 % s.dev.config().inSpadRows(), s.put({0}), 1, 1,
                      tokens(false, true, false, false)));
}

// A random pattern into the input scratchpad at a random row, over 64 rows of old contents
// loaded first (so that zero fill, gaps and packing around it are visible), waiting on the
// load token like the reads it is checked by.
hw::LoadCmd patternOverOldRows(Session& s, uint32_t& spad, uint32_t& rows) {
  const unsigned R = s.dev.rows();
  spad = s.uniform(0, 100);
  s.add(Session::load(hw::Mem::kIn, spad, s.put(s.randomBytes(64 * R)), R, 64));
  hw::LoadCmd l = randomPattern(s, hw::Mem::kIn, R, spad, s.put(s.randomBytes(8192)), rows);
  l.header = tokens(false, false, false, true);
  return l;
}

TEST_P(RtlLoad, ThreeLevelPatternsIntoTheInputScratchpadWithZeroFill) {
  Session s(GetParam(), 11);
  loadIdentity(s);
  uint64_t out = Session::kOutputs;
  for (int t = 0; t < 6; ++t) {
    uint32_t spad = 0, rows = 0;
    s.add(patternOverOldRows(s, spad, rows));
    readBack(s, spad, rows, 0, out);
  }
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);
}

// Spread rows: each i0 run's rows pack_stride rows apart (row (i2,i1,i0) at spad + i0 *
// pack_stride + i2 * count1 + i1), half the runs whole contiguous rows the load unit merges into
// one request, strides that leave gaps (old contents kept) or overlap (the later row kept).
TEST_P(RtlLoad, SpreadRowsLandPackStrideApart) {
  Session s(GetParam(), 14);
  const unsigned R = s.dev.rows();
  loadIdentity(s);
  uint64_t out = Session::kOutputs;
  for (int t = 0; t < 8; ++t) {
    uint32_t spad = 0, rows = 0;
    hw::LoadCmd l = patternOverOldRows(s, spad, rows);
    l.spread = true;
    if (t % 2 == 0) l.rowBytes = l.stride0 = R;  // merged runs
    l.count0 = s.uniform(1, 6);
    l.packStride = l.count1 * l.count2 + s.uniform(0, 4) - (t % 3 == 0 ? 1 : 0);
    s.add(l);
    readBack(s, spad, 64, t * 64, out);  // its own accumulator rows (see above)
  }
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);
}

// Packed rows (im2col packing): pieces of random lengths at random byte offsets, straddling rows,
// over old contents that must survive around them; read back through identity weights.
TEST_P(RtlLoad, PackedRowsLandAtTheirBytesAndLeaveTheRestAlone) {
  Session s(GetParam(), 12);
  const unsigned R = s.dev.rows(), B = s.dev.config().busBytes();
  loadIdentity(s);
  uint64_t out = Session::kOutputs;
  for (uint32_t t = 0; t < 8; ++t) {
    uint32_t spad = 0, rows = 0;
    hw::LoadCmd l = patternOverOldRows(s, spad, rows);
    l.pack = true;
    l.packByte = s.uniform(0, R - 1);
    // Several beats when a beat fits in a row (up to four rows' worth), else at most a row; at
    // most 45 rows a row apart, so every piece lands within the 64 rows read back.
    l.rowBytes = s.uniform(1, B <= R ? 4 * R : R);
    l.packStride = s.uniform(0, 1);
    s.add(l);
    readBack(s, spad, 64, t * 64, out);  // its own accumulator rows: the next GEMM does not wait for this STORE
  }
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);
}

TEST_P(RtlLoad, ThreeLevelPatternsIntoTheWeightScratchpad) {
  Session s(GetParam(), 12);
  const unsigned R = s.dev.rows(), C = s.dev.cols();
  s.add(Session::load(hw::Mem::kParam, 0, s.put(std::vector<uint8_t>(9 * C, 0)), 9 * C, 1));
  s.add(Session::load(hw::Mem::kIn, 0, s.put(identity(R, R)), R, R));
  uint64_t out = Session::kOutputs;
  for (int t = 0; t < 6; ++t) {
    const uint32_t wAddr = s.uniform(0, 200);
    s.add(Session::load(hw::Mem::kW, wAddr, s.put(s.randomBytes(size_t{R} * C)), C, R));
    uint32_t rows = 0;
    hw::LoadCmd l = randomPattern(s, hw::Mem::kW, C, wAddr, s.put(s.randomBytes(8192)), rows);
    l.header = tokens(false, false, false, true);
    s.add(l);
    // Identity inputs read weight rows back: acc row m = weight row m (m < k).
    hw::GemmCmd g;
    g.header = tokens(true, false, true, true);
    g.kRows = R;
    g.wAddr = wAddr;
    g.mRows = R;
    g.inAddr = 0;
    g.accAddr = 0;
    s.add(g);
    s.add(raw32(0, R, C, out, tokens(true, false, false, false)));
    out += 4 * C * R;
    s.add(Session::load(hw::Mem::kW, 1000, s.put({0}), 1, 1, tokens(false, true, false, false)));
  }
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);
}

// Contiguous full rows of one i0 run are fetched with merged requests of up to 1024 bytes.
TEST_P(RtlLoad, ContiguousFullRowsMergeIntoLargeRequests) {
  Session s(GetParam(), 14);
  const unsigned R = s.dev.rows(), C = s.dev.cols();
  loadIdentity(s);
  hw::LoadCmd l;
  l.header = tokens(false, false, false, true);
  l.dst = hw::Mem::kIn;
  l.rowBytes = R;
  l.spadAddr = 5;
  l.dramAddr = s.put(s.randomBytes(20000));
  l.stride0 = R;
  l.count0 = 75;
  l.count1 = 2;
  l.count2 = 2;
  l.stride1 = 75 * R + 48;
  l.stride2 = 2 * l.stride1 + 1000;
  s.add(l);
  hw::GemmCmd g;
  g.header = tokens(true, false, false, true);
  g.kRows = R;
  g.mRows = 300;
  g.inAddr = 5;
  s.add(g);
  s.add(raw32(0, 300, C, Session::kOutputs, tokens(true, false, false, false)));
  const uint64_t reqsBefore = s.dev.stepper().readCounter(hw::Counter::kDmaRdReqs);
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);
  const uint64_t perRun = (75 * R + 1023) / 1024;
  const uint64_t loads = 1 + 1 + 4 * perRun;  // param row, weights, the four i0 runs
  const uint64_t fetches = s.dev.stepper().readCounter(hw::Counter::kDmaRdReqs) - reqsBefore - loads;
  EXPECT_GE(fetches, 1u);
  EXPECT_LE(fetches, 2u) << "7 commands fetched in one or two requests";
}

TEST_P(RtlLoad, ParameterRowsWithPartialLoadsAndZeroFill) {
  Session s(GetParam(), 13);
  const unsigned R = s.dev.rows(), C = s.dev.cols();
  const unsigned P = s.dev.config().paramRowBytes();
  const unsigned paramRows = s.dev.config().paramRows();
  // Accumulators with known contents.
  s.add(Session::load(hw::Mem::kIn, 0, s.put(s.randomBytes(size_t{8} * R)), R, 8));
  s.add(Session::load(hw::Mem::kW, 0, s.put(s.randomBytes(size_t{R} * C)), C, R,
                      tokens(false, false, false, true)));
  hw::GemmCmd g;
  g.header = tokens(true, false, false, true);
  g.kRows = R;
  g.mRows = 8;
  s.add(g);
  // Every parameter row fully, then some partially (the rest of the row becomes zero).
  s.add(Session::load(hw::Mem::kParam, 0, s.put(s.randomBytes(size_t{paramRows} * P)), P, paramRows));
  uint64_t out = Session::kOutputs;
  for (int t = 0; t < 8; ++t) {
    const uint32_t row = s.uniform(0, paramRows - 1);
    hw::LoadCmd l = Session::load(hw::Mem::kParam, row, s.put(s.randomBytes(P)), s.uniform(1, P), 1);
    s.add(l);
    s.add(barrier(false));  // loads and stores run in different units: order them
    hw::StoreCmd st = raw32(0, 8, C, out, tokens(t == 0, false, false, false));
    st.paramRow = row;
    s.add(st);
    out += 4 * C * 8;
    hw::StoreCmd q = st;
    q.header = {};
    q.mode = hw::StoreMode::kRequant8;
    q.stride0 = C;
    q.dramAddr = out;
    q.clampMin = -128;
    q.clampMax = 255;
    s.add(q);
    out += C * 8;
    s.add(barrier(false));
  }
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1);
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlLoad, ::testing::Values("weft8", "weft16", "weft8os", "weft16os"), configName);

}  // namespace
}  // namespace weft::rtltest
