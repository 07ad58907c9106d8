#include <gtest/gtest.h>

#include <random>

#include "weft/hw/generated.h"

namespace weft::hw {
namespace {

TEST(CommandWord, FieldsRoundTripAcrossWordBoundaries) {
  CommandWord c;
  const Field straddle{60, 10, false};
  c.set(straddle, 0x3A5);
  EXPECT_EQ(c.get(straddle), 0x3A5u);
  EXPECT_EQ(c.words()[0] >> 60, 0x5u);
  EXPECT_EQ(c.words()[1] & 0x3F, 0x3Au);
  const Field s16{128, 16, true};
  c.set(s16, static_cast<uint64_t>(-300));
  EXPECT_EQ(c.getSigned(s16), -300);
  EXPECT_TRUE(CommandWord::fits(s16, -32768));
  EXPECT_FALSE(CommandWord::fits(s16, 32768));
  EXPECT_FALSE(CommandWord::fits(Field{0, 4, false}, -1));
}

TEST(Commands, LoadEncodeDecode) {
  LoadCmd l;
  l.header.signal1 = true;
  l.dst = Mem::kW;
  l.rowBytes = 4095;
  l.spadAddr = 0xBEEF;
  l.dramAddr = 0xFF'1234'5678;
  l.stride0 = 0xABCDEF;
  l.count0 = 3;
  l.count1 = 65535;
  l.count2 = 7;
  l.stride1 = 0xDEADBEEF;
  l.stride2 = 0x12345678;
  const CommandWord w = l.encode();
  EXPECT_EQ(w.get(field::kOpcode), static_cast<uint64_t>(Opcode::kLoad));
  const LoadCmd d = LoadCmd::decode(w);
  EXPECT_TRUE(d.header.signal1);
  EXPECT_FALSE(d.header.wait0);
  EXPECT_EQ(d.dst, Mem::kW);
  EXPECT_EQ(d.rowBytes, 4095u);
  EXPECT_EQ(d.spadAddr, 0xBEEFu);
  EXPECT_EQ(d.dramAddr, 0xFF'1234'5678u);
  EXPECT_EQ(d.stride0, 0xABCDEFu);
  EXPECT_EQ(d.count1, 65535u);
  EXPECT_EQ(d.stride1, 0xDEADBEEFu);
  EXPECT_EQ(d.stride2, 0x12345678u);
}

TEST(Commands, SignedFieldsOfGemmAndStore) {
  GemmCmd g;
  g.inZp = -128;
  g.wZp = 255;
  g.kRows = 16;
  const GemmCmd gd = GemmCmd::decode(g.encode());
  EXPECT_EQ(gd.inZp, -128);
  EXPECT_EQ(gd.wZp, 255);
  StoreCmd s;
  s.clampMin = -128;
  s.clampMax = 127;
  s.outZp = -5;
  s.mode = StoreMode::kRaw32;
  const StoreCmd sd = StoreCmd::decode(s.encode());
  EXPECT_EQ(sd.clampMin, -128);
  EXPECT_EQ(sd.clampMax, 127);
  EXPECT_EQ(sd.outZp, -5);
  EXPECT_EQ(sd.mode, StoreMode::kRaw32);
}

TEST(Commands, OpcodesAndUnits) {
  EXPECT_EQ(unitOf(Opcode::kLoad), Unit::kLoad);
  EXPECT_EQ(unitOf(Opcode::kGemm), Unit::kCompute);
  EXPECT_EQ(unitOf(Opcode::kStore), Unit::kStore);
  EXPECT_EQ(unitOf(Opcode::kBarrier), Unit::kControl);
  EXPECT_TRUE(isOpcode(4));
  EXPECT_FALSE(isOpcode(15));
  EXPECT_EQ(opcodeName(Opcode::kGemm), "gemm");
}

TEST(Registers, CounterBlockFollowsTheSpec) {
  EXPECT_EQ(counterAddr(Counter::kCycles), kCounterBase);
  EXPECT_EQ(counterAddr(Counter::kBusy), kCounterBase + 8);
  EXPECT_EQ(kCounterNames.size(), kNumCounters);
  EXPECT_EQ(kSnapshotBytes, 8 * (kNumCounters + 1));
  for (const auto& r : reg::kRegisters) {
    EXPECT_EQ(r.addr % 4, 0u) << r.name;
    EXPECT_LT(r.addr, kCounterBase) << r.name;
  }
}

}  // namespace
}  // namespace weft::hw

namespace weft::hw {
namespace {

// get/set against the definition, bit by bit, for every position and width (word boundaries
// included) over random words: the shift-and-mask access must read and write exactly those bits.
TEST(CommandWord, FieldAccessMatchesBitByBitDefinition) {
  std::mt19937_64 rng(5);
  for (uint16_t lsb = 0; lsb < 256; ++lsb) {
    for (uint16_t width = 1; width <= 64 && lsb + width <= 256; ++width) {
      CommandWord c;
      for (auto& w : c.words()) w = rng();
      const CommandWord before = c;
      const Field f{lsb, width, false};
      uint64_t want = 0;
      for (unsigned i = 0; i < width; ++i) want |= ((before.words()[(lsb + i) / 64] >> ((lsb + i) % 64)) & 1u) << i;
      ASSERT_EQ(c.get(f), want) << "lsb " << lsb << " width " << width;
      const uint64_t value = rng();
      c.set(f, value);
      for (unsigned bit = 0; bit < 256; ++bit) {
        const bool inField = bit >= lsb && bit < unsigned{lsb} + width;
        const uint64_t expected = inField ? (value >> (bit - lsb)) & 1u : (before.words()[bit / 64] >> (bit % 64)) & 1u;
        ASSERT_EQ((c.words()[bit / 64] >> (bit % 64)) & 1u, expected) << "lsb " << lsb << " width " << width << " bit " << bit;
      }
    }
  }
}

}  // namespace
}  // namespace weft::hw
