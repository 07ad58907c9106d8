// Helpers for the runtime tests: models, compilations and executions built through the NNAPI C
// API, owned RAII-style so that a failing test does not leak.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "android/NeuralNetworks.h"

namespace weft::test {

class Model {
 public:
  Model();
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  ANeuralNetworksModel* get() const { return model_; }
  // Adds an operand (failing the test if the runtime refuses it) and returns its index.
  uint32_t addOperand(int32_t type, const std::vector<uint32_t>& dimensions = {}, float scale = 0.0f,
                      int32_t zeroPoint = 0);
  uint32_t addTensor(const std::vector<uint32_t>& dimensions) {
    return addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, dimensions);
  }
  uint32_t addInt32Constant(int32_t value);
  uint32_t addFloatTensorConstant(const std::vector<uint32_t>& dimensions, const std::vector<float>& values);
  int addOperation(int32_t type, const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& outputs);
  int identify(const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& outputs);
  int finish() { return ANeuralNetworksModel_finish(model_); }
  uint32_t operandCount() const { return operandCount_; }

 private:
  ANeuralNetworksModel* model_ = nullptr;
  uint32_t operandCount_ = 0;
  std::vector<std::unique_ptr<std::vector<float>>> keptValues_;  // large constants outlive the model
};

// out = a + b on TENSOR_FLOAT32 [n]; inputs a, b; output out (dimensions left unspecified when
// `unspecifiedOutput`). Finished.
std::unique_ptr<Model> makeAddModel(uint32_t n = 4, bool unspecifiedOutput = false);
// out = (a + b) * c: ADD then MUL, inputs a, b, c. The temporary a + b has unspecified
// dimensions when `unspecifiedTemporary`. Finished.
std::unique_ptr<Model> makeAddMulModel(uint32_t n = 4, bool unspecifiedTemporary = false);

class Compilation {
 public:
  // ANeuralNetworksCompilation_create (no devices) or createForDevices.
  explicit Compilation(const Model& model, const std::vector<const ANeuralNetworksDevice*>& devices = {});
  ~Compilation();
  Compilation(const Compilation&) = delete;
  Compilation& operator=(const Compilation&) = delete;
  ANeuralNetworksCompilation* get() const { return compilation_; }
  int createResult() const { return createResult_; }
  int finish() { return ANeuralNetworksCompilation_finish(compilation_); }

 private:
  ANeuralNetworksCompilation* compilation_ = nullptr;
  int createResult_;
};

class Execution {
 public:
  explicit Execution(const Compilation& compilation);
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;
  ANeuralNetworksExecution* get() const { return execution_; }
  int setInput(int32_t index, const std::vector<float>& values) {
    return ANeuralNetworksExecution_setInput(execution_, index, nullptr, values.data(), values.size() * sizeof(float));
  }
  int setOutput(int32_t index, std::vector<float>& values) {
    return ANeuralNetworksExecution_setOutput(execution_, index, nullptr, values.data(), values.size() * sizeof(float));
  }
  int compute() { return ANeuralNetworksExecution_compute(execution_); }

 private:
  ANeuralNetworksExecution* execution_ = nullptr;
};

// The device called `name`, or nullptr.
const ANeuralNetworksDevice* findDevice(const std::string& name);
// The CPU reference device (it always exists).
const ANeuralNetworksDevice* cpuDevice();

}  // namespace weft::test
