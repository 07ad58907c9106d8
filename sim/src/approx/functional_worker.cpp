#include "approx/functional_worker.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace weft::sim::approx {

bool FunctionalWorker::threadedByEnvironment() {
  const char* v = std::getenv("WEFT_APPROX_THREADS");
  if (v == nullptr || *v == '\0') return std::thread::hardware_concurrency() >= 2;
  const std::string s = v;
  if (s == "1") return false;
  if (s == "2") return true;
  throw std::invalid_argument("WEFT_APPROX_THREADS='" + s + "' is not 1 (data path inline) or 2 (on its own thread)");
}

FunctionalWorker::FunctionalWorker(FunctionalModel& model, DramStorage& dram, bool threaded, bool computesData)
    : model_(model), dram_(dram), queue_(kCapacity), snapshots_(kSnapshots) {
  threaded_ = threaded && computesData;  // snapshots alone are not worth a thread
  computesData_ = computesData;
  if (threaded) thread_ = std::thread([this] { loop(); });
}

FunctionalWorker::~FunctionalWorker() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_one();
  thread_.join();
}

void FunctionalWorker::run(const Entry& e) {
  if (faulted_) return;  // after a fault the device is undefined until a hard reset
  try {
    switch (e.kind) {
      case Kind::kCommand: model_.execute(e.word, dram_); break;
      case Kind::kSnapshot: model_.execute(e.word, dram_, snapshots_[e.snapshot % kSnapshots]); break;
      case Kind::kResetTokens: model_.resetTokens(); break;
    }
  } catch (...) {
    fault_ = std::current_exception();
    faulted_ = true;
  }
}

void FunctionalWorker::push(const Entry& e) {
  if (!threaded_) {
    run(e);
    return;
  }
  while (pushed_ - tail_.load(std::memory_order_acquire) >= kCapacity) {  // full: the worker catches up
    publish();
    _mm_pause();
  }
  queue_[pushed_ % kCapacity] = e;
  if (!running_.load(std::memory_order_relaxed)) running_.store(true, std::memory_order_relaxed);
  // Entries are published in batches: every store to head_ moves its cache line to the worker.
  if (++pushed_ - head_.load(std::memory_order_relaxed) >= kBatch) publish();
}

void FunctionalWorker::publish() {
  head_.store(pushed_, std::memory_order_release);
  // A wake-up missed here (the worker about to sleep) is made good by the next publish.
  if (sleeping_.load(std::memory_order_relaxed)) wakeWorker();
}

void FunctionalWorker::wakeWorker() {
  std::lock_guard<std::mutex> lock(mutex_);
  wake_.notify_one();
}

void FunctionalWorker::execute(const hw::CommandWord& word) {
  if (!computesData_) return;  // the timing backend: no command moves or computes data
  if (threaded_ && static_cast<hw::Opcode>(word.get(hw::field::kOpcode)) == hw::Opcode::kStore) {
    const auto c = hw::StoreCmd::decode(word);
    const uint64_t bytes = (uint64_t{c.tiles - 1} * model_.config().cols() + c.rowBytes) * hw::columnBytes(c.mode);
    noteWrite(c.dramAddr, c.dramAddr + uint64_t{c.count1 - 1} * c.stride1 + uint64_t{c.count0 - 1} * c.stride0 + bytes);
  }
  push({word, Kind::kCommand, 0});
}

void FunctionalWorker::noteWrite(uint64_t lo, uint64_t hi) {
  writtenLo_ = std::min(writtenLo_, lo);
  writtenHi_ = std::max(writtenHi_, hi);
}

bool FunctionalWorker::mayWrite(uint64_t addr, uint64_t bytes) const {
  return addr < writtenHi_ && addr + bytes > writtenLo_;
}

void FunctionalWorker::executeSnapshot(const hw::CommandWord& word, const CounterValues& counters) {
  // The slot is free: snapshots are at least kSnapshots entries apart in a full queue only if
  // the consumer ran them, so wait for the one that used it last.
  const uint64_t n = snapshotsPushed_++;
  if (n >= kSnapshots) drain();
  snapshots_[n % kSnapshots] = counters;
  const uint64_t addr = hw::BarrierCmd::decode(word).dramAddr;
  noteWrite(addr, addr + hw::kSnapshotBytes);
  push({word, Kind::kSnapshot, static_cast<uint32_t>(n % kSnapshots)});
}

void FunctionalWorker::resetTokens() { push({hw::CommandWord{}, Kind::kResetTokens, 0}); }

// Runs published entries from tail_ on, at most `limit` (the caller holds the execution lock).
void FunctionalWorker::runPublished(uint64_t limit) {
  uint64_t tail = tail_.load(std::memory_order_relaxed);
  const uint64_t head = std::min(head_.load(std::memory_order_acquire), tail + limit);
  for (; tail != head; ++tail) run(queue_[tail % kCapacity]);
  tail_.store(tail, std::memory_order_release);
}

void FunctionalWorker::drain() {
  if (threaded_) {
    publish();
    // Whoever is free runs the rest: when the worker is not running (asleep, or its core taken
    // by another process), this thread does, so a busy second core never makes the model slower
    // than running inline; while the worker is mid-batch, wait for it.
    for (unsigned spins = 0; tail_.load(std::memory_order_acquire) != pushed_; ++spins) {
      if (executing_.try_lock()) {
        runPublished(kCapacity);
        executing_.unlock();
        continue;
      }
      if (spins < 4096) {
        _mm_pause();
      } else {
        std::this_thread::yield();
      }
    }
  }
  running_.store(false, std::memory_order_relaxed);
  writtenLo_ = ~uint64_t{0};
  writtenHi_ = 0;
  if (fault_) {
    std::exception_ptr f = fault_;
    fault_ = nullptr;
    std::rethrow_exception(f);
  }
}

void FunctionalWorker::reset() {
  try {
    drain();
  } catch (...) {  // the fault of the commands before the reset: the reset clears it
  }
  faulted_ = false;  // the worker is idle after drain()
  fault_ = nullptr;
}

void FunctionalWorker::loop() {
  for (;;) {
    unsigned idle = 0;
    while (head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire)) {
      if (stop_.load(std::memory_order_relaxed)) return;
      // While the device runs, commands keep coming: wait for them awake (sleeping and waking per
      // batch would cost the producer a system call each). Between runs, sleep soon; a run the
      // host abandoned (a fault, a reset with no drain after it) sleeps after a few milliseconds.
      ++idle;
      if ((running_.load(std::memory_order_relaxed) && idle < kAwakeSpins) || idle < 2000) {
        _mm_pause();
        continue;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      sleeping_.store(true, std::memory_order_seq_cst);
      wake_.wait(lock, [&] {
        return stop_.load() || head_.load(std::memory_order_acquire) != tail_.load(std::memory_order_acquire);
      });
      sleeping_.store(false, std::memory_order_relaxed);
      if (stop_.load() && head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire)) return;
      idle = 0;
    }
    // Small batches under the execution lock, so that drain() can take over between them.
    std::lock_guard<std::mutex> lock(executing_);
    runPublished(16);
  }
}

}  // namespace weft::sim::approx
