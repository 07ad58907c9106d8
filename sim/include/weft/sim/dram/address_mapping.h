// Physical address -> (channel, rank, bank group, bank, row, column), by a named interleaving.
//
// Names list the six fields from the most significant bits to the least, as DRAMsim3 writes
// them: `rochrababgco` is row | channel | rank | bank | bank group | column | (offset). Each
// field is a two-letter code (ro, ch, ra, bg, ba, co), case-insensitive, so gem5's and
// Ramulator's names (`RoRaBaChCo`, `RoBaRaCoCh`) read too; a name may leave out `bg`, which then
// sits just below `ba` (consecutive bank numbers alternate bank groups). Words separated by
// dashes work as well: `row-bank-rank-column-channel`. The low log2(request bytes) bits are
// the offset within one transaction and select nothing. Widths: log2 of each count; columns
// count bursts (columns / BL), as DRAMsim3 does.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace weft::sim::dram {

struct Organization;

struct Coordinates {
  uint32_t channel = 0, rank = 0, bankGroup = 0, bank = 0, row = 0, column = 0;
};

class AddressMapping {
 public:
  enum Field { kChannel, kRank, kBankGroup, kBank, kRow, kColumn, kFields };

  // Throws DramInputError naming the scheme and the rule (an unknown field, a field twice,
  // one missing, a count that is not a power of two).
  AddressMapping(const std::string& scheme, const Organization& org);

  Coordinates decode(uint64_t addr) const {
    addr >>= offsetBits_;
    Coordinates c;
    c.channel = field(addr, kChannel);
    c.rank = field(addr, kRank);
    c.bankGroup = field(addr, kBankGroup);
    c.bank = field(addr, kBank);
    c.row = field(addr, kRow);
    c.column = field(addr, kColumn);
    return c;
  }
  uint32_t channelOf(uint64_t addr) const { return field(addr >> offsetBits_, kChannel); }
  // The first byte address of the transaction at `c` (fields beyond their widths are dropped):
  // the inverse of decode(), for laying data out on rows and banks.
  uint64_t encode(const Coordinates& c) const {
    const uint64_t v[kFields] = {c.channel, c.rank, c.bankGroup, c.bank, c.row, c.column};
    uint64_t a = 0;
    for (int f = 0; f < kFields; ++f) a |= (v[f] & mask_[f]) << pos_[f];
    return a << offsetBits_;
  }

  // The order, most significant first, in DRAMsim3's spelling (e.g. "rochrababgco").
  const std::string& canonical() const { return canonical_; }
  uint32_t offsetBits() const { return offsetBits_; }
  uint32_t totalBits() const { return totalBits_; }  // addresses below 2^totalBits are on the device

 private:
  uint32_t field(uint64_t shifted, Field f) const {
    return static_cast<uint32_t>((shifted >> pos_[f]) & mask_[f]);
  }
  std::array<uint32_t, kFields> pos_{};
  std::array<uint64_t, kFields> mask_{};
  uint32_t offsetBits_ = 0;
  uint32_t totalBits_ = 0;
  std::string canonical_;
};

// log2 of a power of two; -1 if `v` is not one.
int log2Exact(uint64_t v);

}  // namespace weft::sim::dram
