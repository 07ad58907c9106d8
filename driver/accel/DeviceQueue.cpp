#include "DeviceQueue.h"

#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace weft::accel {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kReservedBytes = 4096;   // DRAM address 0 is never used
constexpr uint32_t kInitialRingCommands = 4096;

// Measures the time of a scope into an accumulator.
class ScopedMeter {
 public:
  explicit ScopedMeter(std::chrono::nanoseconds& into) : into_(into), start_(Clock::now()) {}
  ~ScopedMeter() { into_ += Clock::now() - start_; }

 private:
  std::chrono::nanoseconds& into_;
  Clock::time_point start_;
};

}  // namespace

nn::Result<std::unique_ptr<DeviceQueue>> DeviceQueue::create(std::unique_ptr<sim::IDeviceBackend> backend) {
  std::unique_ptr<DeviceQueue> q(new DeviceQueue(std::move(backend)));
  NN_TRY(q->checkIdentity());
  NN_TRY(q->ensureRing(kInitialRingCommands));
  q->setUpQueue();
  return q;
}

DeviceQueue::DeviceQueue(std::unique_ptr<sim::IDeviceBackend> backend) : backend_(std::move(backend)) {
  const uint64_t dram = backend_->dramBytes();
  // Regions start on a DRAM burst (at least 64 bytes), so that their placement, which depends on
  // what else is allocated, never changes the device's timing.
  const uint64_t burst = std::max<uint64_t>(64, config().get(hw::Param::kDramBurstBytes));
  allocator_ = DramAllocator::create(kReservedBytes, dram > kReservedBytes ? dram - kReservedBytes : 0, burst);
}

uint32_t DeviceQueue::readReg(uint32_t addr) {
  ScopedMeter m(backendTime_);
  ++registerAccesses_;
  return backend_->readReg(addr);
}

void DeviceQueue::writeReg(uint32_t addr, uint32_t value) {
  ScopedMeter m(backendTime_);
  ++registerAccesses_;
  backend_->writeReg(addr, value);
}

uint64_t DeviceQueue::readCounter(hw::Counter c) {
  const uint32_t lo = readReg(hw::counterAddr(c));  // latches the counter
  const uint32_t hi = readReg(hw::counterAddr(c) + 4);
  return (uint64_t{hi} << 32) | lo;
}

nn::Status DeviceQueue::checkIdentity() {
  const uint32_t id = readReg(hw::reg::kId);
  if (id != hw::reg::kIdValue) {
    return NN_ERROR(OP_FAILED) << fmt::format("the device ID register reads {:#x}, expected {:#x}", id,
                                              hw::reg::kIdValue);
  }
  const uint32_t version = readReg(hw::reg::kVersion);
  if ((version >> 16) != (hw::reg::kVersionValue >> 16)) {
    return NN_ERROR(OP_FAILED) << fmt::format("the device implements version {}.{}, the driver {}.{}",
                                              version >> 16, version & 0xFFFF, hw::reg::kVersionValue >> 16,
                                              hw::reg::kVersionValue & 0xFFFF);
  }
  for (const auto& r : hw::reg::kRegisters) {
    if (r.param < 0) continue;
    const uint32_t value = readReg(r.addr);
    const auto expected = static_cast<uint64_t>(config().get(static_cast<hw::Param>(r.param)));
    if (value != expected) {
      return NN_ERROR(OP_FAILED) << fmt::format("the device reports {} = {}, the configuration '{}' says {}",
                                                r.name, value, config().name(), expected);
    }
  }
  return {};
}

nn::Status DeviceQueue::ensureRing(uint64_t commands) {
  if (commands < ringSize_) return {};
  // Grow to the next power of two above the program (a ring must hold one more slot).
  uint64_t size = std::max<uint64_t>(kInitialRingCommands, ringSize_);
  while (size <= commands) size *= 2;
  if (size > 0xFFFFFFFFull) return NN_ERROR(OP_FAILED) << "program of " << commands << " commands is too long";
  auto region = allocator_->allocate(size * hw::kCommandBytes, kRegionAlignment, "the command ring");
  if (!region.ok()) return region.error();
  ring_ = std::move(region).value();
  ringSize_ = static_cast<uint32_t>(size);
  // Between programs the ring is empty (head == tail); keep the indexes, move the base.
  writeReg(hw::reg::kRingBaseLo, static_cast<uint32_t>(ring_->addr()));
  writeReg(hw::reg::kRingBaseHi, static_cast<uint32_t>(ring_->addr() >> 32));
  writeReg(hw::reg::kRingSize, ringSize_);
  return {};
}

void DeviceQueue::setUpQueue() {
  writeReg(hw::reg::kIrqMask, hw::reg::kIrqStatusDoneMask | hw::reg::kIrqStatusErrorMask);
  writeReg(hw::reg::kRingBaseLo, static_cast<uint32_t>(ring_->addr()));
  writeReg(hw::reg::kRingBaseHi, static_cast<uint32_t>(ring_->addr() >> 32));
  writeReg(hw::reg::kRingSize, ringSize_);
  tail_ = readReg(hw::reg::kRingHead);
  writeReg(hw::reg::kCtrl, hw::reg::kCtrlEnableMask);
}

DeviceQueue::WaitEnd DeviceQueue::waitForInterrupt(uint64_t maxCycles, const ProgressFn& onProgress,
                                                   const Deadline& deadline) {
  bool irq = false;
  if (!onProgress && !deadline) {
    ScopedMeter m(backendTime_);
    irq = backend_->runUntilInterrupt(maxCycles);
  } else {
    // Slices: the progress interval, and with a deadline short enough in host time that the
    // deadline is seen promptly. The simulators' speeds differ by two orders of magnitude, so the
    // slice adapts to the measured cycles per second, aiming at kDeadlineSlice of wall time.
    constexpr auto kDeadlineSlice = std::chrono::milliseconds(2);
    constexpr uint64_t kMinSliceCycles = 256;
    uint64_t slice = deadline ? kMinSliceCycles : kProgressIntervalCycles;
    uint64_t nextProgress = kProgressIntervalCycles;
    const uint64_t start = backend_->cycle();
    for (uint64_t elapsed = 0; !irq && elapsed < maxCycles; elapsed = backend_->cycle() - start) {
      if (deadline && Clock::now() >= *deadline) return WaitEnd::kDeadline;
      const uint64_t cycles = std::min({slice, maxCycles - elapsed, onProgress ? nextProgress - elapsed : maxCycles});
      const auto t0 = Clock::now();
      {
        ScopedMeter m(backendTime_);
        irq = backend_->runUntilInterrupt(cycles);
      }
      if (deadline) {
        const double took = std::chrono::duration<double>(Clock::now() - t0).count();
        const double wanted = std::chrono::duration<double>(kDeadlineSlice).count();
        const double scaled = took > 0 ? static_cast<double>(cycles) * wanted / took : 4.0 * static_cast<double>(slice);
        slice = std::clamp<uint64_t>(static_cast<uint64_t>(std::min(scaled, 4.0 * static_cast<double>(slice))),
                                     kMinSliceCycles, kProgressIntervalCycles);
      }
      const uint64_t now = backend_->cycle() - start;
      if (onProgress && (now >= nextProgress || irq)) {
        ScopedMeter m(observerTime_);
        onProgress(now);
        nextProgress = now + kProgressIntervalCycles;
      }
    }
  }
  if (!irq) return WaitEnd::kWatchdog;
  ++interrupts_;
  return WaitEnd::kInterrupt;
}

nn::Result<DeviceQueue::ExecutionTurn> DeviceQueue::waitForTurn(nn::Priority priority, const Deadline& deadline) {
  std::unique_lock<std::mutex> line(lineMutex_);
  const std::pair<int32_t, uint64_t> place{-static_cast<int32_t>(priority), arrivals_++};
  line_.insert(place);
  auto myTurn = [&] { return !executing_ && *line_.begin() == place; };
  const bool turn = deadline ? lineChanged_.wait_until(line, *deadline, myTurn) : (lineChanged_.wait(line, myTurn), true);
  line_.erase(place);
  if (!turn) {
    lineChanged_.notify_all();  // the next in line may be first now
    return NN_ERROR(MISSED_DEADLINE_TRANSIENT) << "the execution deadline passed while waiting for the device";
  }
  executing_ = true;
  line.unlock();
  return ExecutionTurn(this, std::unique_lock<std::mutex>(mutex_));
}

DeviceQueue::ExecutionTurn::~ExecutionTurn() {
  if (queue_ == nullptr) return;
  if (device_.owns_lock()) device_.unlock();
  {
    std::lock_guard<std::mutex> line(queue_->lineMutex_);
    queue_->executing_ = false;
  }
  queue_->lineChanged_.notify_all();
}

void DeviceQueue::softReset() {
  writeReg(hw::reg::kCtrl, hw::reg::kCtrlSoftResetMask);
  setUpQueue();
}

void DeviceQueue::resetAfterFault() {
  std::lock_guard<std::mutex> lock(mutex_);
  hardReset();
}

void DeviceQueue::hardReset() {
  {
    ScopedMeter m(backendTime_);
    backend_->hardReset();
  }
  setUpQueue();
}

std::string DeviceQueue::refusedCommand(uint32_t start, uint64_t n, hw::Error code) {
  std::optional<std::string> any;
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t bytes[hw::kCommandBytes];
    backend_->readDram(ring_->addr() + (start + i) % ringSize_ * hw::kCommandBytes, bytes, sizeof(bytes));
    const auto word = hw::CommandWord::fromBytes(bytes);
    const hw::Error e = hw::checkCommand(word, config());
    if (e == hw::Error::kNone) continue;
    const uint64_t opcode = word.get(hw::field::kOpcode);
    std::string name = "a command of undefined opcode " + std::to_string(opcode);
    if (hw::isOpcode(opcode)) {
      name = std::string(hw::opcodeName(static_cast<hw::Opcode>(opcode)));
      std::transform(name.begin(), name.end(), name.begin(), ::toupper);
      name = "a " + name;
    }
    std::string at = fmt::format(" at command {} of the program ({}, which breaks the rule for {})", i, name,
                                 hw::toString(e));
    if (e == code) return at;
    if (!any) any = std::move(at);
  }
  return any.value_or("");
}

nn::Result<SubmissionReport> DeviceQueue::run(const std::vector<uint8_t>& program, uint64_t watchdogCycles,
                                              const ProgressFn& onProgress, const Deadline& deadline) {
  const uint64_t n = program.size() / hw::kCommandBytes;
  if (n == 0 || program.size() % hw::kCommandBytes != 0) {
    return NN_ERROR(BAD_DATA) << "a program is a non-empty sequence of 32-byte commands";
  }
  const uint64_t accesses0 = registerAccesses_, interrupts0 = interrupts_;
  const auto backend0 = backendTime_;
  const auto observer0 = observerTime_;
  // Every program starts at command 0 of the ring, from the reset state of every unit: the device
  // is idle between programs, and a soft reset rewinds the ring. Otherwise a program starts where
  // the previous one left the ring, and where it wraps and how its fetches align would make its
  // cycles depend on what ran before it (2 % for a small fetch-bound layer).
  if (tail_ != 0) softReset();
  NN_TRY(ensureRing(n));
  // The program goes behind the tail, wrapping at the end of the ring.
  const uint64_t first = std::min<uint64_t>(n, ringSize_ - tail_);
  backend_->writeDram(ring_->addr() + uint64_t{tail_} * hw::kCommandBytes, program.data(),
                      first * hw::kCommandBytes);
  if (first < n) {
    backend_->writeDram(ring_->addr(), program.data() + first * hw::kCommandBytes,
                        (n - first) * hw::kCommandBytes);
  }
  // Per-command timelines, opt-in: the backend records from the doorbell on.
  const char* traceEnv = std::getenv("WEFT_COMMAND_TRACE");
  const bool traceCommands = traceEnv != nullptr && std::string_view(traceEnv) == "1";
  if (traceCommands != recordingCommands_) {
    backend_->recordCommands(traceCommands);
    recordingCommands_ = traceCommands;
  }
  if (traceCommands) {  // whatever an earlier run left
    backend_->takeCommandEvents();
    backend_->takeDramEvents();
  }
  const uint64_t busy0 = readCounter(hw::Counter::kBusy);
  const uint32_t programStart = tail_;
  tail_ = static_cast<uint32_t>((tail_ + n) % ringSize_);
  writeReg(hw::reg::kRingTail, tail_);  // the doorbell

  const WaitEnd end = waitForInterrupt(watchdogCycles, onProgress, deadline);
  if (end == WaitEnd::kDeadline) {
    // The device is stopped the way the watchdog stops it: nothing of this program runs on.
    const uint32_t head = readReg(hw::reg::kRingHead);
    hardReset();
    return NN_ERROR(MISSED_DEADLINE_TRANSIENT) << fmt::format(
               "the execution deadline passed while the device ran; the controller was at command {} of "
               "the ring; the device was reset",
               head);
  }
  if (end == WaitEnd::kWatchdog) {
    const uint32_t head = readReg(hw::reg::kRingHead);
    hardReset();
    return NN_ERROR(OP_FAILED) << fmt::format(
               "device watchdog: no interrupt within {} cycles (the program's budget); the "
               "controller was at command {} of the ring; the device was reset",
               watchdogCycles, head);
  }
  const uint32_t irqStatus = readReg(hw::reg::kIrqStatus);
  if (irqStatus & hw::reg::kIrqStatusErrorMask) {
    const uint32_t status = readReg(hw::reg::kStatus);
    const uint32_t head = readReg(hw::reg::kRingHead);
    const auto code = static_cast<hw::Error>((status & hw::reg::kStatusErrorMask) >> hw::reg::kStatusErrorLsb);
    softReset();
    const std::string what = refusedCommand(programStart, n, code);
    return NN_ERROR(OP_FAILED) << fmt::format(
               "the device halted with error {} ({}){}; the controller's ring head was at {}; the device was reset",
               hw::toString(code), static_cast<int>(code), what, head);
  }
  if (!(irqStatus & hw::reg::kIrqStatusDoneMask)) {
    softReset();
    return NN_ERROR(OP_FAILED) << fmt::format("the device interrupted with IRQ_STATUS {:#x} and no done bit; "
                                              "the device was reset", irqStatus);
  }
  writeReg(hw::reg::kIrqStatus, hw::reg::kIrqStatusDoneMask);  // write 1 to clear
  SubmissionReport r;
  r.busyCycles = readCounter(hw::Counter::kBusy) - busy0;
  r.registerAccesses = registerAccesses_ - accesses0;
  r.interrupts = interrupts_ - interrupts0;
  r.backendTime = backendTime_ - backend0;
  r.observerTime = observerTime_ - observer0;
  if (traceCommands) {
    r.commands = backend_->takeCommandEvents();
    if (r.commands.size() > n) r.commands.resize(n);
    r.dram = backend_->takeDramEvents();
    r.dramCommands = backend_->takeDramCommands();
  }
  return r;
}

}  // namespace weft::accel
