// An NNAPI generated test case (AOSP test_helper::TestModel) as weft's tests hold it: the model's
// operands with their data, the expected outputs, and the flags the checks need. Independent of
// how a case is executed (reference kernels, the NNAPI C API, the accelerator).
#pragma once

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "weft/nn/Types.h"

namespace weft::test {

// The bytes of one operand's values, in the element type its operand type implies.
class TestBuffer {
 public:
  TestBuffer() = default;
  explicit TestBuffer(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  TestBuffer(const void* data, size_t size)
      : bytes_(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size) {}
  template <typename T>
  static TestBuffer fromVector(const std::vector<T>& values) {
    return TestBuffer(values.data(), values.size() * sizeof(T));
  }

  size_t size() const { return bytes_.size(); }
  bool empty() const { return bytes_.empty(); }
  const uint8_t* data() const { return bytes_.data(); }
  uint8_t* data() { return bytes_.data(); }
  // Element `i` read with memcpy (the buffer carries no alignment promise beyond new's).
  template <typename T>
  T at(size_t i) const {
    T v;
    std::memcpy(&v, bytes_.data() + i * sizeof(T), sizeof(T));
    return v;
  }

 private:
  std::vector<uint8_t> bytes_;
};

struct TestOperand {
  std::string name;  // informational (the generator's comment)
  nn::OperandType type = nn::OperandType::FLOAT32;
  nn::Dimensions dimensions;
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  nn::Operand::LifeTime lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
  TestBuffer data;         // inputs, constants, expected outputs; empty = no value
  bool isIgnored = false;  // a main output whose values are not checked
  nn::SymmPerChannelQuantParams channelQuant;  // TENSOR_QUANT8_SYMM_PER_CHANNEL only
};

struct TestOperation {
  nn::OperationType type = nn::OperationType::ADD;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
};

struct TestSubgraph {
  std::vector<TestOperand> operands;
  std::vector<TestOperation> operations;
  std::vector<uint32_t> inputIndexes;
  std::vector<uint32_t> outputIndexes;
};

struct TestModel {
  std::string name;     // the test name (e.g. "conv2d_nchw_quant8")
  std::string version;  // spec directory of the corpus (e.g. "V1_2"); empty when not from a file
  std::string source;   // the .example.cpp it came from
  TestSubgraph main;
  std::vector<TestSubgraph> referenced;  // IF/WHILE bodies; SUBGRAPH operands index this list
  bool isRelaxed = false;
  // The extensions whose operand and operation types the subgraphs use, each type holding its
  // extension's prefix in its high bits as nn::Model's do (the NNAPI C API gives the real prefix
  // when the model is built).
  std::vector<nn::ExtensionNameAndPrefix> extensionNameToPrefix;
  bool expectFailure = false;
  std::string minSupportedVersion;  // empty = UNKNOWN
  float expectedMultinomialDistributionTolerance = 0.0f;

  // How reports name an operation type of this model: NNAPI's name, org.weft.accel's
  // (WEFT_GELU), or "<extension>:<code>" for another extension's.
  std::string operationName(nn::OperationType type) const;
  // Every operation type in the main and referenced subgraphs.
  std::set<nn::OperationType> operationTypes() const;
  // True when any operand of any subgraph has `type`.
  bool hasOperandOfType(nn::OperandType type) const;
  // The infinite-loop WHILE validation case (CTS isInfiniteLoopTimeoutTest()).
  bool isInfiniteLoopTimeoutTest() const;
};

// Bytes of one element of `type` as the test data stores it (bool8 = 1, SUBGRAPH index = 4).
size_t testElementSize(nn::OperandType type);

}  // namespace weft::test
