// Moving a command program's DRAM addresses with the regions they lie in: a program restored from
// a cache into regions allocated anew (PreparedModelCache.h), or an execution whose input or
// output lives in a device buffer instead of the tensor's own region (DeviceBuffer.h). Only LOAD,
// STORE and snapshot BARRIER commands address DRAM; an address moves by its region's offset, so
// everything relative to it (strides, the halo) is unchanged.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "weft/nn/Result.h"

namespace weft::accel {

class ProgramRelocation {
 public:
  // [from, from + bytes) moves to [to, to + bytes).
  void add(uint64_t from, uint64_t bytes, uint64_t to) { regions_[from] = {bytes, to}; }
  bool empty() const { return regions_.empty(); }

  // Rewrites every DRAM address of `program` (ring-order commands) that lies in a region. With
  // everyAddressMoves, an address in no region is BAD_DATA (a restored program must not address
  // memory it does not own); otherwise it stays.
  nn::Status apply(std::vector<uint8_t>& program, bool everyAddressMoves) const;

 private:
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> regions_;  // from -> (bytes, to)
};

}  // namespace weft::accel
