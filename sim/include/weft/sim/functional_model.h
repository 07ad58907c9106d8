// The command set's meaning with no notion of time: executes commands one at a time, in ring
// order, exactly as hw/spec/isa.json defines them (bit-exact with the RTL). It is the data path
// of the cycle-approximate backend and the oracle of the RTL and driver tests.
//
// Executing in ring order is a valid schedule of every correct program: a program's tokens only
// order commands that ring order already orders. The model checks that property (a token popped
// before any was pushed is a program error), which catches driver bugs the hardware would turn
// into deadlocks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "weft/hw/config.h"
#include "weft/hw/generated.h"
#include "weft/hw/postproc.h"
#include "weft/sim/dram_storage.h"
#include "weft/sim/gemm_rows.h"

namespace weft::sim {

using CounterValues = std::array<uint64_t, hw::kNumCounters>;

class FunctionalModel {
 public:
  explicit FunctionalModel(const hw::HwConfig& config);
  const hw::HwConfig& config() const { return config_; }

  // The error the controller raises for `cmd` before executing it (hw::Error::kNone if valid).
  hw::Error check(const hw::CommandWord& cmd) const;

  // Executes a command that check() accepted. `counters` are written by a snapshot barrier.
  // Throws std::out_of_range for DRAM accesses outside the memory (the hardware would read
  // garbage or fault; the model refuses).
  void execute(const hw::CommandWord& cmd, DramStorage& dram, const CounterValues& counters = {});

  // Token protocol errors found so far (e.g. "gemm waits for a load->compute token that no
  // earlier command pushed"); empty for a well-formed program.
  const std::vector<std::string>& protocolErrors() const { return protocolErrors_; }

  // Returns every memory and token queue to its reset state.
  void reset();
  // Returns the token queues (and the protocol check's state) to reset, keeping the memories:
  // what CTRL.soft_reset does to the hardware.
  void resetTokens();

  // State inspection for tests.
  const uint8_t* inRow(uint32_t row) const { return &in_[size_t{row} * rows_]; }
  const uint8_t* wRow(uint32_t row) const { return &w_[size_t{row} * cols_]; }
  const int32_t* accRow(uint32_t row) const { return &acc_[size_t{row} * cols_]; }
  const uint8_t* vecRow(uint32_t row) const { return &vec_[size_t{row} * cols_]; }
  int32_t lutEntry(uint32_t e) const { return lut_[e]; }
  // Number of tokens waiting in each queue (hw::TokenQueue order).
  std::array<int64_t, hw::kNumTokenQueues> tokens() const { return tokens_; }

 private:
  void popTokens(const hw::CommandWord& cmd, hw::Unit unit);
  void pushTokens(const hw::CommandWord& cmd, hw::Unit unit);
  void load(const hw::LoadCmd& c, const DramStorage& dram);
  void loadRows(const hw::LoadCmd& c, const DramStorage& dram, uint8_t* base, uint32_t rowSize);
  void gemm(const hw::GemmCmd& c);
  void gemmStep(const hw::GemmCmd& c);  // one step over K of a GEMM
  void store(const hw::StoreCmd& c, DramStorage& dram);
  void window(const hw::WindowCmd& c);
  void windowFp16(const hw::WindowCmd& c);
  void eltwise(const hw::EltwiseCmd& c);
  void softmax(const hw::SoftmaxCmd& c);
  void softmaxFp16(const hw::SoftmaxCmd& c);
  void layerNorm(const hw::LayerNormCmd& c);
  void layerNormFp16(const hw::LayerNormCmd& c);

  hw::HwConfig config_;
  unsigned rows_, cols_;
  std::vector<uint8_t> gathered_;  // a strided GEMM's input rows, in stream order
  std::vector<uint8_t> transposed_;  // a w_transposed GEMM's weight tile, as the PEs hold it
  std::vector<uint8_t> in_, w_, param_;  // in_ has GemmEngine::kInputPadding bytes past its rows
  std::vector<uint8_t> vec_;             // the vector scratchpad
  std::array<int32_t, hw::micro::kLutEntries> lut_{};
  std::vector<int32_t> acc_;
  GemmEngine engine_;  // the PE weights and the array's arithmetic
  bool vectorCopies_ = false;  // LOAD rows as masked AVX-512 moves
  // The store's parameter row, decoded once per STORE (postproc_row.h).
  std::vector<int32_t> bias_, multiplier_, left_, right_;
  std::array<int64_t, hw::kNumTokenQueues> tokens_{};
  std::vector<std::string> protocolErrors_;
  uint64_t commandIndex_ = 0;
};

}  // namespace weft::sim
