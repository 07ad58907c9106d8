#include "NnapiTestUtils.h"

#include <gtest/gtest.h>

#include <cstring>

namespace weft::test {

Model::Model() { EXPECT_EQ(ANeuralNetworksModel_create(&model_), ANEURALNETWORKS_NO_ERROR); }

Model::~Model() { ANeuralNetworksModel_free(model_); }

uint32_t Model::addOperand(int32_t type, const std::vector<uint32_t>& dimensions, float scale, int32_t zeroPoint) {
  const ANeuralNetworksOperandType operandType{type, static_cast<uint32_t>(dimensions.size()),
                                               dimensions.empty() ? nullptr : dimensions.data(), scale, zeroPoint};
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model_, &operandType), ANEURALNETWORKS_NO_ERROR);
  return operandCount_++;
}

uint32_t Model::addInt32Constant(int32_t value) {
  const uint32_t index = addOperand(ANEURALNETWORKS_INT32);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, static_cast<int32_t>(index), &value, sizeof(value)),
            ANEURALNETWORKS_NO_ERROR);
  return index;
}

uint32_t Model::addFloatTensorConstant(const std::vector<uint32_t>& dimensions, const std::vector<float>& values) {
  const uint32_t index = addTensor(dimensions);
  keptValues_.push_back(std::make_unique<std::vector<float>>(values));
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, static_cast<int32_t>(index), keptValues_.back()->data(),
                                                 values.size() * sizeof(float)),
            ANEURALNETWORKS_NO_ERROR);
  return index;
}

int Model::addOperation(int32_t type, const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& outputs) {
  return ANeuralNetworksModel_addOperation(model_, type, static_cast<uint32_t>(inputs.size()), inputs.data(),
                                           static_cast<uint32_t>(outputs.size()), outputs.data());
}

int Model::identify(const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& outputs) {
  return ANeuralNetworksModel_identifyInputsAndOutputs(model_, static_cast<uint32_t>(inputs.size()), inputs.data(),
                                                       static_cast<uint32_t>(outputs.size()), outputs.data());
}

std::unique_ptr<Model> makeAddModel(uint32_t n, bool unspecifiedOutput) {
  auto model = std::make_unique<Model>();
  const uint32_t a = model->addTensor({n});
  const uint32_t b = model->addTensor({n});
  const uint32_t act = model->addInt32Constant(ANEURALNETWORKS_FUSED_NONE);
  const uint32_t out = model->addTensor({unspecifiedOutput ? 0u : n});
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {out}), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(model->identify({a, b}, {out}), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(model->finish(), ANEURALNETWORKS_NO_ERROR);
  return model;
}

std::unique_ptr<Model> makeAddMulModel(uint32_t n, bool unspecifiedTemporary) {
  auto model = std::make_unique<Model>();
  const uint32_t a = model->addTensor({n});
  const uint32_t b = model->addTensor({n});
  const uint32_t c = model->addTensor({n});
  const uint32_t act = model->addInt32Constant(ANEURALNETWORKS_FUSED_NONE);
  const uint32_t sum = model->addTensor({unspecifiedTemporary ? 0u : n});
  const uint32_t out = model->addTensor({n});
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {sum}), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_MUL, {sum, c, act}, {out}), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(model->identify({a, b, c}, {out}), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(model->finish(), ANEURALNETWORKS_NO_ERROR);
  return model;
}

Compilation::Compilation(const Model& model, const std::vector<const ANeuralNetworksDevice*>& devices) {
  createResult_ = devices.empty()
                      ? ANeuralNetworksCompilation_create(model.get(), &compilation_)
                      : ANeuralNetworksCompilation_createForDevices(model.get(), devices.data(),
                                                                    static_cast<uint32_t>(devices.size()),
                                                                    &compilation_);
}

Compilation::~Compilation() { ANeuralNetworksCompilation_free(compilation_); }

Execution::Execution(const Compilation& compilation) {
  EXPECT_EQ(ANeuralNetworksExecution_create(compilation.get(), &execution_), ANEURALNETWORKS_NO_ERROR);
}

Execution::~Execution() { ANeuralNetworksExecution_free(execution_); }

const ANeuralNetworksDevice* findDevice(const std::string& name) {
  uint32_t count = 0;
  if (ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    const char* deviceName = nullptr;
    if (ANeuralNetworks_getDevice(i, &device) == ANEURALNETWORKS_NO_ERROR &&
        ANeuralNetworksDevice_getName(device, &deviceName) == ANEURALNETWORKS_NO_ERROR && name == deviceName) {
      return device;
    }
  }
  return nullptr;
}

const ANeuralNetworksDevice* cpuDevice() { return findDevice("weft-cpu"); }

}  // namespace weft::test
