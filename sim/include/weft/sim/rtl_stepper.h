// Drives one verilated weft_top (a plugin, sim/include/weft/sim/rtl_plugin_abi.h) cycle by
// cycle, kernel-free: reset, register accesses as real bus cycles, and the DRAM ports served
// through an IDramPort exactly as dram_port.h specifies. The SystemC harness calls it in
// batches from one thread; the RTL tests and benchmarks call it directly.
//
// Cycle convention: cycle() counts rising clock edges since construction. Inputs set "in
// cycle n" are sampled by edge n+1; a handshake seen at that edge has issueCycle n.
//  - read request accepted in cycle n: IDramPort::read(..., n) is called at once; its beats
//    are driven one per cycle from cycle max(returned, n + 1, previous request's last beat + 1).
//  - write: the request's beats are collected; when its last beat is accepted in cycle n,
//    IDramPort::write(..., n) is called and mem_wr_ack_i is pulsed in cycle
//    max(returned, n + 1, previous acknowledgement + 1).
// Requests and beats are always accepted (the ready inputs stay high): the DRAM model
// expresses back-pressure as latency.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/hw/config.h"
#include "weft/sim/command_events.h"
#include "weft/sim/dram_port.h"
#include "weft/sim/rtl_plugin_abi.h"

namespace weft::sim {

class RtlPluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A loaded plugin. Plugins stay loaded for the life of the process (Verilator's runtime keeps
// thread-local state that must not be unloaded), so loading the same file twice is free.
class RtlPlugin {
 public:
  // Finds weft_rtl_<config.rtlKey()>_<RTL digest>[_trace].so in the build's RTL directory (an
  // installed module: its lib/weft/rtl), then in each directory of the colon-separated env
  // WEFT_RTL_DIR (installed: then the user's cache; sim/src/rtl/plugin_locations.h),
  // and checks its ABI version, key and bus width. Throws RtlPluginError naming every path
  // searched when it is missing or does not match.
  static const RtlPlugin& load(const hw::HwConfig& config, bool trace = false);

  // The file name the configuration's plugin has, e.g. "weft_rtl_Rows16_..._TokenDepth16_3f9c0a1b2c4d.so":
  // the RTL parameters and a digest of the RTL sources (cmake/WeftRtl.cmake).
  static std::string fileName(const hw::HwConfig& config, bool trace = false);
  // The directories searched, in order.
  static std::vector<std::string> searchDirs();

  const WeftRtlPlugin& api() const { return *api_; }
  const std::string& path() const { return path_; }

  RtlPlugin(const WeftRtlPlugin* api, std::string path) : api_(api), path_(std::move(path)) {}

 private:
  const WeftRtlPlugin* api_;
  std::string path_;
};

struct RtlStepperOptions {
  // When set, the tracing build of the plugin is loaded and an FST waveform written here.
  std::string tracePath;
  int traceDepth = 0;  // 0 = every level
};

class RtlStepper {
 public:
  // Loads the configuration's plugin, creates the model and applies the hardware reset.
  RtlStepper(const hw::HwConfig& config, IDramPort& dram, const RtlStepperOptions& options = {});
  ~RtlStepper();
  RtlStepper(const RtlStepper&) = delete;
  RtlStepper& operator=(const RtlStepper&) = delete;

  // Holds rst_ni low for `cycles` clock cycles. DRAM transactions in flight are abandoned.
  void reset(unsigned cycles = 2);

  // One register access on the register bus: one clock cycle each (DRAM is served meanwhile).
  uint32_t readReg(uint32_t addr);
  void writeReg(uint32_t addr, uint32_t value);
  // A 64-bit counter: LO then HI (two accesses; LO latches HI).
  uint64_t readCounter(hw::Counter counter);

  // Steps until irq_o is high (checked before every cycle, so it returns 0 when the line is
  // already high) or maxCycles have passed. Returns the cycles stepped.
  uint64_t run(uint64_t maxCycles);
  // Steps exactly `cycles` cycles whatever the interrupt line does.
  void step(uint64_t cycles);

  bool irq() const { return *ports_.irq_o != 0; }
  uint64_t cycle() const { return cycle_; }
  const hw::HwConfig& config() const { return config_; }
  const std::string& pluginPath() const { return plugin_->path(); }
  // DRAM transactions the RTL has started and not finished (reads with beats to deliver,
  // writes not yet acknowledged).
  bool dramIdle() const { return reads_.empty() && writes_.empty() && acks_.empty(); }
  // Per-command timelines from weft_top's observation signal, on the cycle() scale; recorded
  // while enabled (one branch per cycle otherwise).
  CommandLog& commandLog() { return log_; }

 private:
  struct Read {
    std::vector<uint8_t> data;  // capacity kept between uses: no allocation per request
    uint32_t beats = 0, next = 0;
    uint64_t firstCycle = 0;
  };
  struct Write {
    std::vector<uint8_t> data;
    uint64_t addr = 0, issue = 0;
    uint32_t bytes = 0, filled = 0;
  };
  // A ring of reusable slots that grows (rarely) instead of allocating per element.
  template <typename T>
  class Ring {
   public:
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }
    T& front() { return slots_[head_]; }
    T& at(size_t i) { return slots_[(head_ + i) % slots_.size()]; }
    T& back() { return at(size_ - 1); }
    T& pushBack();
    void popFront() { head_ = (head_ + 1) % slots_.size(); --size_; }
    void clear() { head_ = size_ = 0; }

   private:
    std::vector<T> slots_;
    size_t head_ = 0, size_ = 0;
  };

  void cycleOnce();
  void edge();
  void serveRequests();
  void observe(uint32_t events);

  hw::HwConfig config_;
  IDramPort& dram_;
  const RtlPlugin* plugin_;
  void* model_ = nullptr;
  WeftRtlPorts ports_{};
  uint32_t busBytes_;
  uint64_t cycle_ = 0;
  uint64_t lastReadBeat_ = 0;  // cycle of the last beat scheduled so far
  uint64_t lastAck_ = 0;
  bool tracing_ = false;
  uint64_t periodPs_;
  Ring<Read> reads_;
  Ring<Write> writes_;   // accepted requests whose beats are not all in
  Ring<uint64_t> acks_;  // cycles of acknowledgements to pulse, in order
  CommandLog log_;
};

}  // namespace weft::sim
