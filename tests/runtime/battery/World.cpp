#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "Battery.h"

namespace weft::test::battery {
namespace {

constexpr uint32_t kLength = 4;
const std::vector<float> kA{1, 2, 3, 4};
const std::vector<float> kB{10, 20, 30, 40};
const std::vector<float> kSum{11, 22, 33, 44};

ANeuralNetworksOperandType tensorType(int32_t type, const uint32_t* dims, uint32_t rank) {
  return {type, rank, dims, 0.0f, 0};
}

// Adds the operands of out = a + b (0 a, 1 b, 2 act, 3 out) and the ADD.
void addSum(ANeuralNetworksModel* model) {
  static const uint32_t kDims[] = {kLength};
  const ANeuralNetworksOperandType tensor = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kDims, 1);
  const ANeuralNetworksOperandType scalar = tensorType(ANEURALNETWORKS_INT32, nullptr, 0);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &tensor), kOk);
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &scalar), kOk);
  const int32_t none = ANEURALNETWORKS_FUSED_NONE;
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model, 2, &none, sizeof(none)), kOk);
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &tensor), kOk);
  const uint32_t inputs[] = {0, 1, 2};
  const uint32_t outputs[] = {3};
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, inputs, 1, outputs), kOk);
}

int identifySum(ANeuralNetworksModel* model) {
  const uint32_t inputs[] = {0, 1};
  const uint32_t outputs[] = {3};
  return ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, inputs, 1, outputs);
}

// A memfd of `bytes` bytes whose first 16 hold kA, as an NNAPI memory.
ANeuralNetworksMemory* memoryHoldingA(size_t bytes) {
  const int fd = memfd_create("weft-battery", 0);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(ftruncate(fd, static_cast<off_t>(bytes)), 0);
  EXPECT_EQ(pwrite(fd, kA.data(), kA.size() * sizeof(float), 0), static_cast<ssize_t>(kA.size() * sizeof(float)));
  ANeuralNetworksMemory* memory = nullptr;
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(bytes, PROT_READ | PROT_WRITE, fd, 0, &memory), kOk);
  close(fd);  // the memory holds its own duplicate
  return memory;
}

// How input 0 of a computation is given.
enum class InputA { kPointer, kFdMemory, kMemory };

// Sets every argument of `execution` (input 0 as `source` says) and computes; the sum must be right.
void computeSum(ANeuralNetworksExecution* execution, InputA source, ANeuralNetworksMemory* memory = nullptr,
                ANeuralNetworksBurst* burst = nullptr) {
  std::vector<float> out(kLength, 0.0f);
  if (source == InputA::kPointer) {
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, kA.data(), 16), kOk);
  } else {
    const size_t length = source == InputA::kFdMemory ? 16 : 0;  // a descriptor's memory is used whole
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution, 0, nullptr, memory, 0, length), kOk);
  }
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution, 1, nullptr, kB.data(), 16), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out.data(), 16), kOk);
  if (burst != nullptr) {
    ASSERT_EQ(ANeuralNetworksExecution_burstCompute(execution, burst), kOk);
  } else {
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution), kOk);
  }
  EXPECT_EQ(out, kSum);
}

void computeSumOn(ANeuralNetworksCompilation* compilation, InputA source = InputA::kPointer,
                  ANeuralNetworksMemory* memory = nullptr, ANeuralNetworksBurst* burst = nullptr) {
  ANeuralNetworksExecution* execution = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_create(compilation, &execution), kOk);
  computeSum(execution, source, memory, burst);
  ANeuralNetworksExecution_free(execution);
}

void compileAndComputeSum(ANeuralNetworksModel* model) {
  ANeuralNetworksCompilation* compilation = nullptr;
  ASSERT_EQ(ANeuralNetworksCompilation_create(model, &compilation), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), kOk);
  computeSumOn(compilation);
  ANeuralNetworksCompilation_free(compilation);
}

}  // namespace

struct World::Objects {
  std::vector<ANeuralNetworksModel*> models;
  std::vector<ANeuralNetworksCompilation*> compilations;
  std::vector<ANeuralNetworksExecution*> executions;
  std::vector<ANeuralNetworksMemory*> memories;
  std::vector<ANeuralNetworksMemoryDesc*> descs;
  std::vector<ANeuralNetworksEvent*> events;
  std::vector<ANeuralNetworksBurst*> bursts;
  ANeuralNetworksModel* model = nullptr;
  ANeuralNetworksModel* identifiedModel = nullptr;
  ANeuralNetworksModel* finishedModel = nullptr;
  ANeuralNetworksModel* invalidModel = nullptr;
  ANeuralNetworksCompilation* compilation = nullptr;
  ANeuralNetworksCompilation* cpuCompilation = nullptr;
  ANeuralNetworksCompilation* finishedCompilation = nullptr;
  ANeuralNetworksCompilation* finishedCpuCompilation = nullptr;
  ANeuralNetworksCompilation* failedCompilation = nullptr;
  ANeuralNetworksExecution* execution = nullptr;
  ANeuralNetworksExecution* cpuExecution = nullptr;
  ANeuralNetworksExecution* completedExecution = nullptr;
  ANeuralNetworksExecution* failedExecution = nullptr;
  ANeuralNetworksMemory* fdMemory = nullptr;
  ANeuralNetworksMemoryDesc* memoryDesc = nullptr;
  ANeuralNetworksMemoryDesc* finishedMemoryDesc = nullptr;
  ANeuralNetworksMemory* descMemory = nullptr;
  ANeuralNetworksEvent* event = nullptr;
  ANeuralNetworksBurst* burst = nullptr;
  std::vector<float> eventOutput = std::vector<float>(kLength, 0.0f);
  int bogus = 0;

  ANeuralNetworksModel* newModel() {
    ANeuralNetworksModel* m = nullptr;
    EXPECT_EQ(ANeuralNetworksModel_create(&m), kOk);
    models.push_back(m);
    return m;
  }
  ANeuralNetworksCompilation* newCompilation(ANeuralNetworksModel* m, const ANeuralNetworksDevice* device) {
    ANeuralNetworksCompilation* c = nullptr;
    if (device == nullptr) {
      EXPECT_EQ(ANeuralNetworksCompilation_create(m, &c), kOk);
    } else {
      EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(m, &device, 1, &c), kOk);
    }
    compilations.push_back(c);
    return c;
  }
  ANeuralNetworksExecution* newExecution(ANeuralNetworksCompilation* c) {
    ANeuralNetworksExecution* e = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(c, &e), kOk);
    executions.push_back(e);
    return e;
  }
  ANeuralNetworksMemoryDesc* newDesc(ANeuralNetworksCompilation* c) {
    ANeuralNetworksMemoryDesc* d = nullptr;
    EXPECT_EQ(ANeuralNetworksMemoryDesc_create(&d), kOk);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, c, 0, 1.0f), kOk);
    descs.push_back(d);
    return d;
  }
};

World::World() : objects_(std::make_unique<Objects>()) {}

World::~World() {
  Objects& o = *objects_;
  for (ANeuralNetworksEvent* e : o.events) ANeuralNetworksEvent_free(e);
  for (ANeuralNetworksBurst* b : o.bursts) ANeuralNetworksBurst_free(b);
  for (ANeuralNetworksExecution* e : o.executions) ANeuralNetworksExecution_free(e);
  for (ANeuralNetworksMemory* m : o.memories) ANeuralNetworksMemory_free(m);
  for (ANeuralNetworksMemoryDesc* d : o.descs) ANeuralNetworksMemoryDesc_free(d);
  for (ANeuralNetworksCompilation* c : o.compilations) ANeuralNetworksCompilation_free(c);
  for (ANeuralNetworksModel* m : o.models) ANeuralNetworksModel_free(m);
}

ANeuralNetworksModel* World::model() {
  Objects& o = *objects_;
  if (o.model != nullptr) return o.model;
  o.model = o.newModel();
  addSum(o.model);
  static const uint32_t kDims[] = {kLength};
  static const uint32_t kPerChannelDims[] = {2, 3};
  static const uint32_t kUnspecified[] = {0};
  const ANeuralNetworksOperandType spare = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kDims, 1);
  const ANeuralNetworksOperandType perChannel =
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, kPerChannelDims, 2);
  const ANeuralNetworksOperandType reference = tensorType(ANEURALNETWORKS_MODEL, nullptr, 0);
  const ANeuralNetworksOperandType unspecified = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kUnspecified, 1);
  for (const ANeuralNetworksOperandType* type : {&spare, &perChannel, &reference, &unspecified}) {
    EXPECT_EQ(ANeuralNetworksModel_addOperand(o.model, type), kOk);
  }
  return o.model;
}

ANeuralNetworksModel* World::identifiedModel() {
  Objects& o = *objects_;
  if (o.identifiedModel != nullptr) return o.identifiedModel;
  o.identifiedModel = model();
  EXPECT_EQ(identifySum(o.identifiedModel), kOk);
  return o.identifiedModel;
}

ANeuralNetworksModel* World::finishedModel() {
  Objects& o = *objects_;
  if (o.finishedModel != nullptr) return o.finishedModel;
  o.finishedModel = o.newModel();
  addSum(o.finishedModel);
  EXPECT_EQ(identifySum(o.finishedModel), kOk);
  EXPECT_EQ(ANeuralNetworksModel_finish(o.finishedModel), kOk);
  return o.finishedModel;
}

ANeuralNetworksModel* World::invalidModel() {
  Objects& o = *objects_;
  if (o.invalidModel != nullptr) return o.invalidModel;
  o.invalidModel = o.newModel();
  addSum(o.invalidModel);
  // No inputs or outputs identified: finish fails and the model is invalid from then on.
  EXPECT_EQ(ANeuralNetworksModel_finish(o.invalidModel), kBadData);
  return o.invalidModel;
}

ANeuralNetworksCompilation* World::compilation() {
  Objects& o = *objects_;
  if (o.compilation == nullptr) o.compilation = o.newCompilation(finishedModel(), nullptr);
  return o.compilation;
}

ANeuralNetworksCompilation* World::cpuCompilation() {
  Objects& o = *objects_;
  if (o.cpuCompilation == nullptr) o.cpuCompilation = o.newCompilation(finishedModel(), cpu());
  return o.cpuCompilation;
}

ANeuralNetworksCompilation* World::finishedCompilation() {
  Objects& o = *objects_;
  if (o.finishedCompilation == nullptr) {
    o.finishedCompilation = o.newCompilation(finishedModel(), nullptr);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(o.finishedCompilation), kOk);
  }
  return o.finishedCompilation;
}

ANeuralNetworksCompilation* World::failedCompilation() {
  Objects& o = *objects_;
  if (o.failedCompilation == nullptr) {
    o.failedCompilation = o.newCompilation(finishedModel(), cpu());
    // A deadline 1 ns after finish starts has passed when the device prepares the model.
    EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(o.failedCompilation, 1), kOk);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(o.failedCompilation), ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT);
  }
  return o.failedCompilation;
}

ANeuralNetworksExecution* World::execution() {
  Objects& o = *objects_;
  if (o.execution == nullptr) o.execution = o.newExecution(finishedCompilation());
  return o.execution;
}

ANeuralNetworksExecution* World::cpuExecution() {
  Objects& o = *objects_;
  if (o.cpuExecution == nullptr) {
    if (o.finishedCpuCompilation == nullptr) {
      o.finishedCpuCompilation = o.newCompilation(finishedModel(), cpu());
      EXPECT_EQ(ANeuralNetworksCompilation_finish(o.finishedCpuCompilation), kOk);
    }
    o.cpuExecution = o.newExecution(o.finishedCpuCompilation);
  }
  return o.cpuExecution;
}

ANeuralNetworksExecution* World::completedExecution() {
  Objects& o = *objects_;
  if (o.completedExecution == nullptr) {
    o.completedExecution = o.newExecution(finishedCompilation());
    computeSum(o.completedExecution, InputA::kPointer);
  }
  return o.completedExecution;
}

ANeuralNetworksExecution* World::failedExecution() {
  Objects& o = *objects_;
  if (o.failedExecution == nullptr) {
    o.failedExecution = cpuExecution();
    o.cpuExecution = nullptr;  // a later cpuExecution() is a fresh one
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(o.failedExecution, 1), kOk);
    std::vector<float> out(kLength);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(o.failedExecution, 0, nullptr, kA.data(), 16), kOk);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(o.failedExecution, 1, nullptr, kB.data(), 16), kOk);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(o.failedExecution, 0, nullptr, out.data(), 16), kOk);
    const int result = ANeuralNetworksExecution_compute(o.failedExecution);
    EXPECT_TRUE(result == ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT ||
                result == ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT)
        << result;
  }
  return o.failedExecution;
}

ANeuralNetworksMemory* World::fdMemory() {
  Objects& o = *objects_;
  if (o.fdMemory == nullptr) {
    o.fdMemory = memoryHoldingA(64);
    o.memories.push_back(o.fdMemory);
  }
  return o.fdMemory;
}

ANeuralNetworksMemoryDesc* World::memoryDesc() {
  Objects& o = *objects_;
  if (o.memoryDesc == nullptr) o.memoryDesc = o.newDesc(finishedCompilation());
  return o.memoryDesc;
}

ANeuralNetworksMemoryDesc* World::finishedMemoryDesc() {
  Objects& o = *objects_;
  if (o.finishedMemoryDesc == nullptr) {
    o.finishedMemoryDesc = o.newDesc(finishedCompilation());
    EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(o.finishedMemoryDesc), kOk);
  }
  return o.finishedMemoryDesc;
}

ANeuralNetworksMemory* World::descMemory() {
  Objects& o = *objects_;
  if (o.descMemory == nullptr) {
    EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(finishedMemoryDesc(), &o.descMemory), kOk);
    o.memories.push_back(o.descMemory);
  }
  return o.descMemory;
}

ANeuralNetworksEvent* World::event() {
  Objects& o = *objects_;
  if (o.event == nullptr) {
    ANeuralNetworksExecution* e = o.newExecution(finishedCompilation());
    EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 0, nullptr, kA.data(), 16), kOk);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 1, nullptr, kB.data(), 16), kOk);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(e, 0, nullptr, o.eventOutput.data(), 16), kOk);
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(e, &o.event), kOk);
    o.events.push_back(o.event);
    EXPECT_EQ(ANeuralNetworksEvent_wait(o.event), kOk);
    EXPECT_EQ(o.eventOutput, kSum);
  }
  return o.event;
}

ANeuralNetworksBurst* World::burst() {
  Objects& o = *objects_;
  if (o.burst == nullptr) {
    EXPECT_EQ(ANeuralNetworksBurst_create(finishedCompilation(), &o.burst), kOk);
    o.bursts.push_back(o.burst);
  }
  return o.burst;
}

const ANeuralNetworksDevice* World::cpu() {
  uint32_t count = 0;
  EXPECT_EQ(ANeuralNetworks_getDeviceCount(&count), kOk);
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    int32_t type = 0;
    EXPECT_EQ(ANeuralNetworks_getDevice(i, &device), kOk);
    EXPECT_EQ(ANeuralNetworksDevice_getType(device, &type), kOk);
    if (type == ANEURALNETWORKS_DEVICE_CPU) return device;
  }
  ADD_FAILURE() << "no CPU device";
  return nullptr;
}

const ANeuralNetworksDevice* World::bogusDevice() {
  return reinterpret_cast<const ANeuralNetworksDevice*>(&objects_->bogus);
}

void World::expectIntact(Subject subject) {
  Objects& o = *objects_;
  switch (subject) {
    case Subject::kNothing:
      return;
    case Subject::kModelUnderConstruction:
    case Subject::kIdentifiedModel: {
      // Finish what the fixture left open; every step fails if the call changed an operand,
      // added one (an unwritten temporary fails finish) or identified inputs.
      ANeuralNetworksModel* m = subject == Subject::kIdentifiedModel ? o.identifiedModel : o.model;
      if (subject == Subject::kModelUnderConstruction) {
        ASSERT_EQ(identifySum(m), kOk);
      }
      const std::vector<float> spare(kLength, 0.0f);
      ASSERT_EQ(ANeuralNetworksModel_setOperandValue(m, 4, spare.data(), 16), kOk);
      const float scales[] = {0.5f, 0.25f};
      const ANeuralNetworksSymmPerChannelQuantParams params{0, 2, scales};
      ASSERT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(m, 5, &params), kOk);
      const int8_t weights[6] = {1, 2, 3, 4, 5, 6};
      ASSERT_EQ(ANeuralNetworksModel_setOperandValue(m, 5, weights, sizeof(weights)), kOk);
      ASSERT_EQ(ANeuralNetworksModel_setOperandValueFromModel(m, 6, finishedModel()), kOk);
      ASSERT_EQ(ANeuralNetworksModel_setOperandValue(m, 7, nullptr, 0), kOk);
      ASSERT_EQ(ANeuralNetworksModel_finish(m), kOk);
      compileAndComputeSum(m);
      return;
    }
    case Subject::kFinishedModel:
      compileAndComputeSum(o.finishedModel);
      return;
    case Subject::kInvalidModel: {
      EXPECT_EQ(ANeuralNetworksModel_finish(o.invalidModel), kBadState);
      ANeuralNetworksCompilation* c = nullptr;
      EXPECT_EQ(ANeuralNetworksCompilation_create(o.invalidModel, &c), kBadState);
      return;
    }
    case Subject::kCompilation:
    case Subject::kCpuCompilation: {
      ANeuralNetworksCompilation* c = subject == Subject::kCompilation ? o.compilation : o.cpuCompilation;
      // Still modifiable: nothing finished it.
      ASSERT_EQ(ANeuralNetworksCompilation_setPreference(c, ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER), kOk);
      ASSERT_EQ(ANeuralNetworksCompilation_finish(c), kOk);
      computeSumOn(c);
      return;
    }
    case Subject::kFinishedCompilation:
      computeSumOn(o.finishedCompilation);
      return;
    case Subject::kFailedCompilation: {
      ANeuralNetworksExecution* e = nullptr;
      EXPECT_EQ(ANeuralNetworksExecution_create(o.failedCompilation, &e), kBadState);
      return;
    }
    case Subject::kExecution:
      computeSum(o.execution, InputA::kPointer);
      return;
    case Subject::kCpuExecution:
      computeSum(o.cpuExecution, InputA::kPointer);
      return;
    case Subject::kCompletedExecution: {
      uint32_t rank = 0;
      EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(o.completedExecution, 0, &rank), kOk);
      EXPECT_EQ(rank, 1u);
      EXPECT_EQ(ANeuralNetworksExecution_compute(o.completedExecution), kBadState);  // still not reusable
      return;
    }
    case Subject::kFailedExecution: {
      uint32_t rank = 0;
      EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(o.failedExecution, 0, &rank), kBadState);
      return;
    }
    case Subject::kFdMemory:
      computeSumOn(finishedCompilation(), InputA::kFdMemory, o.fdMemory);
      return;
    case Subject::kMemoryDesc: {
      ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(o.memoryDesc), kOk);
      ANeuralNetworksMemory* memory = nullptr;
      EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(o.memoryDesc, &memory), kOk);
      ANeuralNetworksMemory_free(memory);
      return;
    }
    case Subject::kFinishedMemoryDesc: {
      ANeuralNetworksMemory* memory = nullptr;
      EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(o.finishedMemoryDesc, &memory), kOk);
      ANeuralNetworksMemory_free(memory);
      return;
    }
    case Subject::kDescMemory: {
      ANeuralNetworksMemory* source = memoryHoldingA(16);
      EXPECT_EQ(ANeuralNetworksMemory_copy(source, o.descMemory), kOk);
      ANeuralNetworksMemory_free(source);
      computeSumOn(finishedCompilation(), InputA::kMemory, o.descMemory);
      return;
    }
    case Subject::kEvent:
      EXPECT_EQ(ANeuralNetworksEvent_wait(o.event), kOk);
      return;
    case Subject::kBurst:
      computeSumOn(finishedCompilation(), InputA::kPointer, nullptr, o.burst);
      return;
  }
}

}  // namespace weft::test::battery
