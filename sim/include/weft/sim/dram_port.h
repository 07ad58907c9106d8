// The memory side of the accelerator's DRAM ports, as the RTL stepper (and the approximate
// model) sees it: one call per request, TLM-2.0 blocking-transport style. The call performs
// the access at once (functionally) and answers, like an annotated delay, the cycle at which
// the hardware observes its completion. Implementations: the DRAM model (storage + timing),
// the TLM initiator inside the SystemC harness, and simple fixed-latency memories in tests.
#pragma once

#include <cstdint>

namespace weft::sim {

class IDramPort {
 public:
  virtual ~IDramPort() = default;

  // Reads `bytes` bytes at `addr` into dst for a request issued at cycle `issueCycle`.
  // Returns the cycle at which the first beat may be delivered to the RTL; the following beats
  // follow one per cycle. Out-of-range addresses throw std::out_of_range.
  virtual uint64_t read(uint64_t addr, uint8_t* dst, uint32_t bytes, uint64_t issueCycle) = 0;

  // Writes `bytes` bytes at `addr`, whose last data beat was accepted at `issueCycle`.
  // Returns the cycle at which the write is acknowledged (mem_wr_ack_i).
  virtual uint64_t write(uint64_t addr, const uint8_t* src, uint32_t bytes, uint64_t issueCycle) = 0;
};

}  // namespace weft::sim
