// Device cycles <-> SystemC time. The clock is not an sc_clock: nothing toggles, the harness
// advances the device itself and this map translates its cycle counts into the simulated
// times that TLM annotated delays carry, exactly (integer ticks of the time resolution).
#pragma once

#include <systemc>

#include <cstdint>

namespace weft::sim {

class ClockMap {
 public:
  // The clock period rounded to the time resolution (1 ps by default: exact for every clock
  // that divides 1 THz; durations the driver reports come from cycle counts, not from here).
  static sc_core::sc_time periodOf(double clockMHz) {
    return sc_core::sc_time(1e6 / clockMHz, sc_core::SC_PS);
  }

  // From now on cycle `cycle` happens at `time`, one period per cycle.
  void rebase(sc_core::sc_time time, uint64_t cycle, sc_core::sc_time period) {
    originTicks_ = time.value();
    originCycle_ = cycle;
    periodTicks_ = period.value();
  }

  sc_core::sc_time period() const { return sc_core::sc_time::from_value(periodTicks_); }
  sc_core::sc_time timeOf(uint64_t cycle) const {
    return sc_core::sc_time::from_value(originTicks_ + (cycle - originCycle_) * periodTicks_);
  }
  // The cycle in progress at `t` (the last cycle that started at or before t).
  uint64_t cycleAt(sc_core::sc_time t) const {
    return originCycle_ + (t.value() - originTicks_) / periodTicks_;
  }
  // Delay from `now` to the start of `cycle`, never negative.
  sc_core::sc_time delayTo(uint64_t cycle, sc_core::sc_time now) const {
    const sc_core::sc_time t = timeOf(cycle);
    return t > now ? t - now : sc_core::SC_ZERO_TIME;
  }

 private:
  uint64_t originTicks_ = 0;
  uint64_t originCycle_ = 0;
  uint64_t periodTicks_ = 1;
};

}  // namespace weft::sim
