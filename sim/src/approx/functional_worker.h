// The approx engine's data path on a second thread. The timing never depends on data, so the
// engine hands each command, in ring order, to the functional model through a single-producer
// single-consumer queue and goes on; the host sees DRAM only after drain(), which waits for
// the queue to empty. On one core (WEFT_APPROX_THREADS=1, or a one-CPU machine) commands run at
// once, in the caller's thread, exactly as before.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "weft/sim/dram_storage.h"
#include "weft/sim/functional_model.h"

namespace weft::sim::approx {

class FunctionalWorker {
 public:
  // WEFT_APPROX_THREADS: 1 runs the data path inline, 2 on its own thread (the default when the
  // machine has two CPUs or more); another value is an error naming these.
  static bool threadedByEnvironment();

  // computesData false (the timing backend): execute() drops its command, so nothing moves or
  // computes data; snapshots and token resets still run, in order.
  FunctionalWorker(FunctionalModel& model, DramStorage& dram, bool threaded, bool computesData = true);
  ~FunctionalWorker();
  FunctionalWorker(const FunctionalWorker&) = delete;
  FunctionalWorker& operator=(const FunctionalWorker&) = delete;

  void execute(const hw::CommandWord& word);
  void executeSnapshot(const hw::CommandWord& word, const CounterValues& counters);
  void resetTokens();  // CTRL.soft_reset's effect on the model, in order with the commands
  // Waits until every command handed over has run; rethrows the first DRAM fault they hit
  // (once). Everything the host reads or writes in DRAM, and reads of the model, come after it.
  void drain();
  // A hardware reset: drains, drops a pending fault, and runs commands again.
  void reset();
  bool threaded() const { return threaded_; }
  bool computesData() const { return computesData_; }
  // Whether commands handed over since the last drain() may still write [addr, addr + bytes):
  // the controller's own reads of DRAM (the command ring) wait for them then.
  bool mayWrite(uint64_t addr, uint64_t bytes) const;

 private:
  enum class Kind : uint8_t { kCommand, kSnapshot, kResetTokens };
  struct Entry {
    hw::CommandWord word;
    Kind kind;
    uint32_t snapshot;  // index into snapshots_
  };
  void push(const Entry& e);
  void publish();
  void runPublished(uint64_t limit);
  void wakeWorker();
  void noteWrite(uint64_t lo, uint64_t hi);
  void run(const Entry& e);
  void loop();

  // Fields are grouped by the thread that writes them, each group on its own cache lines: a
  // line written by one thread and read by the other on every command costs more than the rest
  // of a command's handover.
  FunctionalModel& model_;
  DramStorage& dram_;
  static constexpr size_t kCapacity = 4096, kSnapshots = 64, kBatch = 32;
  static constexpr unsigned kAwakeSpins = 1u << 20;  // pauses (~ms) the worker waits awake during a run
  std::vector<Entry> queue_;
  std::vector<CounterValues> snapshots_;
  bool threaded_ = false;
  bool computesData_ = true;
  // producer only
  alignas(64) uint64_t pushed_ = 0;  // entries written, published or not
  uint64_t snapshotsPushed_ = 0;
  uint64_t writtenLo_ = ~uint64_t{0}, writtenHi_ = 0;  // DRAM stores and snapshots may write, since the last drain
  // the queue's two ends
  alignas(64) std::atomic<uint64_t> head_{0};  // entries published (producer)
  alignas(64) std::atomic<uint64_t> tail_{0};  // entries run (whoever runs them)
  // the worker's state
  alignas(64) std::atomic<bool> sleeping_{false};
  std::atomic<bool> running_{false};  // commands handed over since the last drain()
  std::atomic<bool> stop_{false};
  alignas(64) std::mutex executing_;  // held by whichever thread runs entries (one at a time, in order)
  std::exception_ptr fault_;          // of the commands run, until drain() reports it
  bool faulted_ = false;
  alignas(64) std::mutex mutex_;  // for sleeping and waking the worker
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace weft::sim::approx
