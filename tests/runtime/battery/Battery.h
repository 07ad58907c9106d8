// The invalid-call battery: every NNAPI C function called with each invalid argument a client can
// pass, one table row per distinct call. A row names the call, the object it is made on (its
// subject), the call itself and the result code Android's runtime gives (which is also what the
// NNAPI documentation says, except where a row's comment says otherwise). After the call, the
// subject must be exactly as it was: each subject has a check that finishes what the call
// interrupted (identifies, finishes, compiles, computes) and compares the results, so a call
// that half-changed its object fails its row.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "android/NeuralNetworks.h"

namespace weft::test::battery {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;
constexpr int kBadState = ANEURALNETWORKS_BAD_STATE;
constexpr int kOpFailed = ANEURALNETWORKS_OP_FAILED;

// The objects a row can be made on; World builds each on demand.
enum class Subject {
  kNothing,                 // calls that need no object (NULL arguments, device queries)
  kModelUnderConstruction,  // see World::model(): operands and the ADD, not identified yet
  kIdentifiedModel,         // the same, inputs and outputs identified
  kFinishedModel,           // out = a + b, finished
  kInvalidModel,            // a model whose finish failed
  kCompilation,             // of the finished model, by ANeuralNetworksCompilation_create, not finished
  kCpuCompilation,          // by createForDevices with the CPU device only, not finished
  kFinishedCompilation,     // kCompilation, finished
  kFailedCompilation,       // a createForDevices compilation whose finish failed (deadline)
  kExecution,               // of kFinishedCompilation, no argument set
  kCpuExecution,            // of a finished kCpuCompilation, no argument set
  kCompletedExecution,      // kExecution computed successfully (not reusable)
  kFailedExecution,         // a kCpuExecution whose computation missed its deadline
  kFdMemory,                // 64 bytes of a memfd, readable and writable
  kMemoryDesc,              // a descriptor with input 0 of kFinishedCompilation, not finished
  kFinishedMemoryDesc,      // the same, finished
  kDescMemory,              // a memory from kFinishedMemoryDesc, uninitialized
  kEvent,                   // the event of a completed startCompute
  kBurst,                   // a burst of kFinishedCompilation
};

class World;

struct Case {
  std::string name;  // unique; the test's name
  Subject subject;
  std::function<int(World&)> call;
  int expected;
};

// Everything a row can call on, built lazily and freed at the end of the row.
class World {
 public:
  World();
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // The model under construction: 0 a, 1 b (TENSOR_FLOAT32 [4]), 2 act (INT32 constant 0),
  // 3 out (TENSOR_FLOAT32 [4], written by ADD(a, b, act)), 4 spare (TENSOR_FLOAT32 [4], no value
  // yet), 5 perChannel (TENSOR_QUANT8_SYMM_PER_CHANNEL [2, 3], no parameters yet), 6 reference
  // (ANEURALNETWORKS_MODEL, no model yet), 7 unspecified (TENSOR_FLOAT32 [0]).
  ANeuralNetworksModel* model();
  ANeuralNetworksModel* identifiedModel();
  ANeuralNetworksModel* finishedModel();
  ANeuralNetworksModel* invalidModel();
  ANeuralNetworksCompilation* compilation();
  ANeuralNetworksCompilation* cpuCompilation();
  ANeuralNetworksCompilation* finishedCompilation();
  ANeuralNetworksCompilation* failedCompilation();
  ANeuralNetworksExecution* execution();
  ANeuralNetworksExecution* cpuExecution();
  ANeuralNetworksExecution* completedExecution();
  ANeuralNetworksExecution* failedExecution();
  ANeuralNetworksMemory* fdMemory();
  ANeuralNetworksMemoryDesc* memoryDesc();
  ANeuralNetworksMemoryDesc* finishedMemoryDesc();
  ANeuralNetworksMemory* descMemory();
  ANeuralNetworksEvent* event();
  ANeuralNetworksBurst* burst();
  const ANeuralNetworksDevice* cpu();
  // A pointer that is not an object of the runtime (for the device checks).
  const ANeuralNetworksDevice* bogusDevice();
  // Keeps `value` alive until the row ends and returns its address.
  template <typename T>
  T* keep(T value) {
    auto holder = std::make_shared<T>(std::move(value));
    kept_.push_back(holder);
    return holder.get();
  }

  // Fails the current test unless `subject` is as the row found it (see Subject).
  void expectIntact(Subject subject);

 private:
  struct Objects;
  std::unique_ptr<Objects> objects_;
  std::vector<std::shared_ptr<void>> kept_;
};

// The rows, one function per object kind (each in its own file).
std::vector<Case> modelCases();
std::vector<Case> compilationCases();
std::vector<Case> executionCases();
std::vector<Case> memoryCases();
std::vector<Case> eventBurstAndDeviceCases();

}  // namespace weft::test::battery
