// A log of everything a driver asks of an approx backend (register accesses, DRAM writes and
// reads, runs), written when WEFT_APPROX_CAPTURE names a file: replaying it (sim/bench/
// approx_replay) runs the model on real driver programs with nothing else around it, for
// profiling and for timing the model alone.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "weft/hw/config.h"

namespace weft::sim::approx {

enum class CaptureOp : uint8_t { kWriteDram = 'W', kReadDram = 'R', kWriteReg = 'w', kReadReg = 'r', kRun = 'x', kHardReset = 'h' };

class CaptureWriter {
 public:
  // Starts the log with the configuration; nullptr when WEFT_APPROX_CAPTURE is not set.
  static std::unique_ptr<CaptureWriter> fromEnvironment(const hw::HwConfig& config);
  ~CaptureWriter();
  void record(CaptureOp op, uint64_t a, uint64_t b, const void* data = nullptr, size_t bytes = 0);

 private:
  explicit CaptureWriter(std::FILE* f) : file_(f) {}
  std::FILE* file_;
};

struct CaptureRecord {
  CaptureOp op;
  uint64_t a = 0, b = 0;
  std::vector<uint8_t> data;
};

struct Capture {
  std::string configJson;
  std::vector<CaptureRecord> records;
};

// Throws std::runtime_error for a file that is not a capture.
Capture readCapture(const std::string& path);

}  // namespace weft::sim::approx
