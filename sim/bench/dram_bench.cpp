// dram_bench: the DRAM model's speed in trace replay (transactions per second of host time),
// on traces generated in memory (no file parsing): streams, a read/write mix, random addresses,
// on the presets. The replay_file cases time what `weft dram replay` does: the same traces
// written as DRAMsim3 trace files, read and replayed (issue 32 asks 10 M transactions a second).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "weft/sim/dram/device.h"
#include "weft/sim/dram/trace_replay.h"

namespace {

using weft::sim::dram::DeviceSpec;
using weft::sim::dram::TraceRecord;

enum Pattern { kSequentialReads, kSequentialWrites, kStreamAdd, kRandom, kRandom7030 };

// One transaction offered a cycle, as the comparison script's traces (scripts/dramsim3_compare.py).
std::vector<TraceRecord> makeTrace(const DeviceSpec& spec, Pattern p, size_t n) {
  const uint64_t bytes = spec.org.requestBytes(), capacity = spec.org.capacityBytes();
  std::mt19937_64 rng(1);
  std::vector<TraceRecord> t(n);
  for (size_t i = 0; i < n; ++i) {
    t[i].cycle = i;
    switch (p) {
      case kSequentialReads: t[i].addr = i * bytes; break;
      case kSequentialWrites: t[i].addr = i * bytes, t[i].isWrite = true; break;
      case kStreamAdd:  // a[i] + b[i] -> c[i]
        t[i].addr = (i % 3) * (capacity / 4 / bytes * bytes) + (i / 3) * bytes;
        t[i].isWrite = i % 3 == 2;
        break;
      case kRandom:
        t[i].addr = rng() % (capacity / bytes) * bytes;
        t[i].isWrite = rng() % 3 == 0;
        break;
      case kRandom7030:  // all offered at once: the controller's queues stay full
        t[i].cycle = 0;
        t[i].addr = rng() % (capacity / bytes) * bytes;
        t[i].isWrite = rng() % 10 < 3;
        break;
    }
  }
  return t;
}

void replay(benchmark::State& state, const char* device, Pattern pattern) {
  const DeviceSpec spec = weft::sim::dram::preset(device);
  const auto trace = makeTrace(spec, pattern, 200000);
  uint64_t cycles = 0;
  for (auto _ : state) {
    const auto result = weft::sim::dram::replayTrace(spec, trace);
    cycles = result.dramCycles;
    benchmark::DoNotOptimize(cycles);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * trace.size()));
  state.counters["dram_cycles"] = static_cast<double>(cycles);
}

// The trace as a file in DRAMsim3's format, for the lifetime of the benchmark.
class TraceFile {
 public:
  explicit TraceFile(const std::vector<TraceRecord>& trace)
      : path_((std::filesystem::temp_directory_path() / "dram_bench_XXXXXX").string()) {
    ::close(::mkstemp(path_.data()));
    std::ofstream out(path_);
    for (const TraceRecord& r : trace) {
      out << "0x" << std::hex << r.addr << std::dec << (r.isWrite ? " WRITE " : " READ ") << r.cycle << '\n';
    }
  }
  ~TraceFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void replayFile(benchmark::State& state, const char* device, Pattern pattern) {
  const DeviceSpec spec = weft::sim::dram::preset(device);
  const auto trace = makeTrace(spec, pattern, 1000000);
  const TraceFile file(trace);
  uint64_t cycles = 0;
  for (auto _ : state) {
    cycles = weft::sim::dram::replayTraceFile(spec, file.path()).dramCycles;
    benchmark::DoNotOptimize(cycles);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * trace.size()));
  state.counters["dram_cycles"] = static_cast<double>(cycles);
}

}  // namespace

BENCHMARK_CAPTURE(replay, ddr4_sequential_reads, "ddr4-3200", kSequentialReads)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, ddr4_sequential_writes, "ddr4-3200", kSequentialWrites)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, ddr4_stream_add, "ddr4-3200", kStreamAdd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, ddr4_random, "ddr4-3200", kRandom)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, lpddr4_sequential_reads, "lpddr4-3200", kSequentialReads)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, lpddr4_random, "lpddr4-3200", kRandom)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, lpddr4_random_7030, "lpddr4-3200", kRandom7030)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, hbm2_sequential_reads, "hbm2", kSequentialReads)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, hbm2_stream_add, "hbm2", kStreamAdd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replay, hbm2_random, "hbm2", kRandom)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replayFile, lpddr4_sequential_reads, "lpddr4-3200", kSequentialReads)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replayFile, lpddr4_random_7030, "lpddr4-3200", kRandom7030)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
