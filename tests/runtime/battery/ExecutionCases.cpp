// ANeuralNetworksExecution_* and ANeuralNetworksBurst_*: the invalid calls. Every execution is
// of out = a + b (inputs 0 a, 1 b, output 0 out; TENSOR_FLOAT32 [4]).
#include <array>

#include "Battery.h"

namespace weft::test::battery {
namespace {

constexpr size_t kBytes = 16;

float* buffer(World& w) { return w.keep(std::array<float, 8>{})->data(); }

const ANeuralNetworksOperandType* type(World& w, int32_t code, std::vector<uint32_t> dims, float scale = 0.0f) {
  const std::vector<uint32_t>* kept = w.keep(std::move(dims));
  return w.keep(ANeuralNetworksOperandType{code, static_cast<uint32_t>(kept->size()),
                                           kept->empty() ? nullptr : kept->data(), scale, 0});
}

// Sets every argument of `execution` (all valid).
void setAll(World& w, ANeuralNetworksExecution* execution) {
  ANeuralNetworksExecution_setInput(execution, 0, nullptr, buffer(w), kBytes);
  ANeuralNetworksExecution_setInput(execution, 1, nullptr, buffer(w), kBytes);
  ANeuralNetworksExecution_setOutput(execution, 0, nullptr, buffer(w), kBytes);
}

// A fresh execution of the finished compilation, computed once (so that it is completed).
ANeuralNetworksExecution* computedExecution(World& w) { return w.completedExecution(); }

std::vector<Case> argumentCases(bool input) {
  using S = Subject;
  const std::string prefix = input ? "setInput" : "setOutput";
  const auto set = [input](ANeuralNetworksExecution* e, int32_t index, const ANeuralNetworksOperandType* t, float* data,
                           size_t length) {
    return input ? ANeuralNetworksExecution_setInput(e, index, t, data, length)
                 : ANeuralNetworksExecution_setOutput(e, index, t, data, length);
  };
  const auto setMemory = [input](ANeuralNetworksExecution* e, int32_t index, const ANeuralNetworksOperandType* t,
                                 const ANeuralNetworksMemory* m, size_t offset, size_t length) {
    return input ? ANeuralNetworksExecution_setInputFromMemory(e, index, t, m, offset, length)
                 : ANeuralNetworksExecution_setOutputFromMemory(e, index, t, m, offset, length);
  };
  const int32_t pastLast = input ? 2 : 1;
  const std::string memoryPrefix = prefix + "FromMemory";
  std::vector<Case> cases = {
      {prefix + "_nullExecution", S::kNothing, [set](World& w) { return set(nullptr, 0, nullptr, buffer(w), kBytes); },
       kNull},
      {prefix + "_nullBufferWithLength", S::kExecution,
       [set](World& w) { return set(w.execution(), 0, nullptr, nullptr, kBytes); }, kNull},
      {prefix + "_negativeIndex", S::kExecution,
       [set](World& w) { return set(w.execution(), -1, nullptr, buffer(w), kBytes); }, kBadData},
      {prefix + "_indexOutOfRange", S::kExecution,
       [set, pastLast](World& w) { return set(w.execution(), pastLast, nullptr, buffer(w), kBytes); }, kBadData},
      {prefix + "_lengthTooShort", S::kExecution,
       [set](World& w) { return set(w.execution(), 0, nullptr, buffer(w), kBytes - 4); }, kBadData},
      {prefix + "_lengthTooLongWithoutPadding", S::kExecution,
       [set](World& w) { return set(w.execution(), 0, nullptr, buffer(w), kBytes + 4); }, kBadData},
      {prefix + "_lengthBeyond4GiB", S::kExecution,
       [set](World& w) { return set(w.execution(), 0, nullptr, buffer(w), (size_t{1} << 32) + kBytes); }, kBadData},
      {prefix + "_bufferWithZeroLength", S::kExecution,
       [set](World& w) { return set(w.execution(), 0, nullptr, buffer(w), 0); }, kBadData},
      {prefix + "_otherOperandType", S::kExecution,
       [set](World& w) { return set(w.execution(), 0, type(w, ANEURALNETWORKS_TENSOR_INT32, {4}), buffer(w), kBytes); },
       kBadData},
      {prefix + "_otherQuantization", S::kExecution,
       [set](World& w) {
         return set(w.execution(), 0, type(w, ANEURALNETWORKS_TENSOR_FLOAT32, {4}, 0.5f), buffer(w), kBytes);
       },
       kBadData},
      {prefix + "_otherRank", S::kExecution,
       [set](World& w) {
         return set(w.execution(), 0, type(w, ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2}), buffer(w), kBytes);
       },
       kBadData},
      {prefix + "_overridesSpecifiedDimension", S::kExecution,
       [set](World& w) { return set(w.execution(), 0, type(w, ANEURALNETWORKS_TENSOR_FLOAT32, {5}), buffer(w), 20); },
       kBadData},
      {prefix + "_unknownTypeCode", S::kExecution,
       [set](World& w) { return set(w.execution(), 0, type(w, 99, {4}), buffer(w), kBytes); }, kBadData},
      {prefix + "_typeDimensionsOverflow32Bits", S::kExecution,
       [set](World& w) {
         return set(w.execution(), 0, type(w, ANEURALNETWORKS_TENSOR_FLOAT32, {65536, 16384}), buffer(w), kBytes);
       },
       kBadData},
      {prefix + "_twice", S::kNothing,
       [set](World& w) {
         ANeuralNetworksExecution* e = w.cpuExecution();
         set(e, 0, nullptr, buffer(w), kBytes);
         return set(e, 0, nullptr, buffer(w), kBytes);
       },
       kBadState},
      {prefix + "_afterComputation", S::kCompletedExecution,
       [set](World& w) { return set(computedExecution(w), 0, nullptr, buffer(w), kBytes); }, kBadState},

      {memoryPrefix + "_nullExecution", S::kNothing,
       [setMemory](World& w) { return setMemory(nullptr, 0, nullptr, w.fdMemory(), 0, kBytes); }, kNull},
      {memoryPrefix + "_nullMemory", S::kExecution,
       [setMemory](World& w) { return setMemory(w.execution(), 0, nullptr, nullptr, 0, kBytes); }, kNull},
      {memoryPrefix + "_indexOutOfRange", S::kExecution,
       [setMemory, pastLast](World& w) { return setMemory(w.execution(), pastLast, nullptr, w.fdMemory(), 0, kBytes); },
       kBadData},
      {memoryPrefix + "_regionBeyondMemory", S::kExecution,
       [setMemory](World& w) { return setMemory(w.execution(), 0, nullptr, w.fdMemory(), 56, kBytes); }, kBadData},
      {memoryPrefix + "_offsetWrapsAround", S::kExecution,
       [setMemory](World& w) { return setMemory(w.execution(), 0, nullptr, w.fdMemory(), SIZE_MAX - 7, kBytes); },
       kBadData},
      {memoryPrefix + "_zeroLengthOfFdMemory", S::kExecution,
       [setMemory](World& w) { return setMemory(w.execution(), 0, nullptr, w.fdMemory(), 0, 0); }, kBadData},
      {memoryPrefix + "_lengthTooShort", S::kExecution,
       [setMemory](World& w) { return setMemory(w.execution(), 0, nullptr, w.fdMemory(), 0, 8); }, kBadData},
      {memoryPrefix + "_otherOperandType", S::kExecution,
       [setMemory](World& w) {
         return setMemory(w.execution(), 0, type(w, ANEURALNETWORKS_TENSOR_INT32, {4}), w.fdMemory(), 0, kBytes);
       },
       kBadData},
      {memoryPrefix + "_descriptorMemoryWithOffset", S::kExecution,
       [setMemory](World& w) { return setMemory(w.execution(), 0, nullptr, w.descMemory(), 4, 0); }, kBadData},
      {memoryPrefix + "_afterComputation", S::kCompletedExecution,
       [setMemory](World& w) { return setMemory(computedExecution(w), 0, nullptr, w.fdMemory(), 0, kBytes); },
       kBadState},
  };
  if (input) {
    // The descriptor was made for input 0 of the compilation: input 1 is not one of its roles.
    cases.push_back({memoryPrefix + "_descriptorMemoryOfAnotherRole", S::kExecution,
                     [setMemory](World& w) { return setMemory(w.execution(), 1, nullptr, w.descMemory(), 0, 0); },
                     kBadData});
  } else {
    cases.push_back({memoryPrefix + "_descriptorMemoryOfAnInputRole", S::kExecution,
                     [setMemory](World& w) { return setMemory(w.execution(), 0, nullptr, w.descMemory(), 0, 0); },
                     kBadData});
  }
  return cases;
}

std::vector<Case> settingCases() {
  using S = Subject;
  return {
      {"create_nullCompilation", S::kNothing,
       [](World&) {
         ANeuralNetworksExecution* e;
         return ANeuralNetworksExecution_create(nullptr, &e);
       },
       kNull},
      {"create_nullResult", S::kFinishedCompilation,
       [](World& w) { return ANeuralNetworksExecution_create(w.finishedCompilation(), nullptr); }, kNull},
      {"create_unfinishedCompilation", S::kCompilation,
       [](World& w) {
         ANeuralNetworksExecution* e = nullptr;
         return ANeuralNetworksExecution_create(w.compilation(), &e);
       },
       kBadState},
      {"create_failedCompilation", S::kFailedCompilation,
       [](World& w) {
         ANeuralNetworksExecution* e = nullptr;
         return ANeuralNetworksExecution_create(w.failedCompilation(), &e);
       },
       kBadState},
      {"setMeasureTiming_nullExecution", S::kNothing,
       [](World&) { return ANeuralNetworksExecution_setMeasureTiming(nullptr, true); }, kNull},
      {"setMeasureTiming_notCreatedForOneDevice", S::kExecution,
       [](World& w) { return ANeuralNetworksExecution_setMeasureTiming(w.execution(), true); }, kBadData},
      {"setMeasureTiming_afterComputation", S::kNothing,
       [](World& w) {
         ANeuralNetworksExecution* e = w.cpuExecution();
         setAll(w, e);
         ANeuralNetworksExecution_compute(e);
         return ANeuralNetworksExecution_setMeasureTiming(e, true);
       },
       kBadState},
      {"setTimeout_nullExecution", S::kNothing,
       [](World&) { return ANeuralNetworksExecution_setTimeout(nullptr, 1000); }, kNull},
      {"setTimeout_notCreatedForOneDevice", S::kExecution,
       [](World& w) { return ANeuralNetworksExecution_setTimeout(w.execution(), 1000); }, kBadData},
      {"setTimeout_afterComputation", S::kNothing,
       [](World& w) {
         ANeuralNetworksExecution* e = w.cpuExecution();
         setAll(w, e);
         ANeuralNetworksExecution_compute(e);
         return ANeuralNetworksExecution_setTimeout(e, 1000);
       },
       kBadState},
      {"setLoopTimeout_nullExecution", S::kNothing,
       [](World&) { return ANeuralNetworksExecution_setLoopTimeout(nullptr, 1000); }, kNull},
      {"setLoopTimeout_afterComputation", S::kCompletedExecution,
       [](World& w) { return ANeuralNetworksExecution_setLoopTimeout(computedExecution(w), 1000); }, kBadState},
      {"enableInputAndOutputPadding_nullExecution", S::kNothing,
       [](World&) { return ANeuralNetworksExecution_enableInputAndOutputPadding(nullptr, true); }, kNull},
      {"enableInputAndOutputPadding_afterAnArgument", S::kNothing,
       [](World& w) {
         ANeuralNetworksExecution* e = w.cpuExecution();
         ANeuralNetworksExecution_setInput(e, 0, nullptr, buffer(w), kBytes);
         return ANeuralNetworksExecution_enableInputAndOutputPadding(e, true);
       },
       kBadState},
      {"enableInputAndOutputPadding_afterComputation", S::kCompletedExecution,
       [](World& w) { return ANeuralNetworksExecution_enableInputAndOutputPadding(computedExecution(w), true); },
       kBadState},
      {"setReusable_nullExecution", S::kNothing,
       [](World&) { return ANeuralNetworksExecution_setReusable(nullptr, true); }, kNull},
      {"setReusable_afterComputation", S::kCompletedExecution,
       [](World& w) { return ANeuralNetworksExecution_setReusable(computedExecution(w), true); }, kBadState},
  };
}

std::vector<Case> computeCases() {
  using S = Subject;
  const auto startCompute = [](ANeuralNetworksExecution* e) {
    ANeuralNetworksEvent* event = nullptr;
    const int result = ANeuralNetworksExecution_startCompute(e, &event);
    if (event != nullptr) {
      ANeuralNetworksEvent_wait(event);
      ANeuralNetworksEvent_free(event);
    }
    return result;
  };
  const auto withDependencies = [](ANeuralNetworksExecution* e, const ANeuralNetworksEvent* const* deps, uint32_t n,
                                   uint64_t duration) {
    ANeuralNetworksEvent* event = nullptr;
    const int result = ANeuralNetworksExecution_startComputeWithDependencies(e, deps, n, duration, &event);
    if (event != nullptr) {
      ANeuralNetworksEvent_wait(event);
      ANeuralNetworksEvent_free(event);
    }
    return result;
  };
  return {
      {"compute_nullExecution", S::kNothing, [](World&) { return ANeuralNetworksExecution_compute(nullptr); }, kNull},
      // These two check themselves that the execution stayed in preparation with what was set:
      // setting the missing argument then lets it compute (-1 otherwise).
      {"compute_inputNotSet", S::kNothing,
       [](World& w) {
         ANeuralNetworksExecution* e = w.cpuExecution();
         ANeuralNetworksExecution_setInput(e, 1, nullptr, buffer(w), kBytes);
         ANeuralNetworksExecution_setOutput(e, 0, nullptr, buffer(w), kBytes);
         const int result = ANeuralNetworksExecution_compute(e);
         if (ANeuralNetworksExecution_setInput(e, 0, nullptr, buffer(w), kBytes) != kOk) return -1;
         return ANeuralNetworksExecution_compute(e) == kOk ? result : -1;
       },
       kBadData},
      {"compute_outputNotSet", S::kNothing,
       [](World& w) {
         ANeuralNetworksExecution* e = w.cpuExecution();
         ANeuralNetworksExecution_setInput(e, 0, nullptr, buffer(w), kBytes);
         ANeuralNetworksExecution_setInput(e, 1, nullptr, buffer(w), kBytes);
         const int result = ANeuralNetworksExecution_compute(e);
         if (ANeuralNetworksExecution_setOutput(e, 0, nullptr, buffer(w), kBytes) != kOk) return -1;
         return ANeuralNetworksExecution_compute(e) == kOk ? result : -1;
       },
       kBadData},
      {"compute_nothingSet", S::kExecution, [](World& w) { return ANeuralNetworksExecution_compute(w.execution()); },
       kBadData},
      {"compute_uninitializedMemoryInput", S::kNothing,
       [](World& w) {
         ANeuralNetworksExecution* e = w.execution();
         ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, w.descMemory(), 0, 0);
         ANeuralNetworksExecution_setInput(e, 1, nullptr, buffer(w), kBytes);
         ANeuralNetworksExecution_setOutput(e, 0, nullptr, buffer(w), kBytes);
         return ANeuralNetworksExecution_compute(e);
       },
       kBadData},
      {"compute_secondTimeWithoutReusable", S::kCompletedExecution,
       [](World& w) { return ANeuralNetworksExecution_compute(computedExecution(w)); }, kBadState},
      {"burstCompute_nullExecution", S::kNothing,
       [](World& w) { return ANeuralNetworksExecution_burstCompute(nullptr, w.burst()); }, kNull},
      {"burstCompute_nullBurst", S::kExecution,
       [](World& w) { return ANeuralNetworksExecution_burstCompute(w.execution(), nullptr); }, kNull},
      {"burstCompute_burstOfAnotherCompilation", S::kNothing,
       [](World& w) {
         ANeuralNetworksExecution* e = w.cpuExecution();  // of another compilation than w.burst()'s
         setAll(w, e);
         return ANeuralNetworksExecution_burstCompute(e, w.burst());
       },
       kBadData},
      {"burstCompute_secondTimeWithoutReusable", S::kCompletedExecution,
       [](World& w) { return ANeuralNetworksExecution_burstCompute(computedExecution(w), w.burst()); }, kBadState},
      {"startCompute_nullExecution", S::kNothing,
       [](World&) {
         ANeuralNetworksEvent* ev;
         return ANeuralNetworksExecution_startCompute(nullptr, &ev);
       },
       kNull},
      {"startCompute_nullEvent", S::kExecution,
       [](World& w) { return ANeuralNetworksExecution_startCompute(w.execution(), nullptr); }, kNull},
      {"startCompute_argumentsNotSet", S::kExecution, [startCompute](World& w) { return startCompute(w.execution()); },
       kBadData},
      {"startCompute_secondTimeWithoutReusable", S::kCompletedExecution,
       [startCompute](World& w) { return startCompute(computedExecution(w)); }, kBadState},
      {"startComputeWithDependencies_nullEvent", S::kExecution,
       [](World& w) {
         return ANeuralNetworksExecution_startComputeWithDependencies(w.execution(), nullptr, 0, 0, nullptr);
       },
       kNull},
      {"startComputeWithDependencies_nullExecution", S::kNothing,
       [withDependencies](World&) { return withDependencies(nullptr, nullptr, 0, 0); }, kNull},
      {"startComputeWithDependencies_nullListWithCount", S::kExecution,
       [withDependencies](World& w) { return withDependencies(w.execution(), nullptr, 1, 0); }, kNull},
      {"startComputeWithDependencies_nullDependency", S::kExecution,
       [withDependencies](World& w) {
         const ANeuralNetworksEvent* deps[] = {w.event(), nullptr};
         return withDependencies(w.execution(), deps, 2, 0);
       },
       kNull},
      {"startComputeWithDependencies_durationNotCreatedForOneDevice", S::kNothing,
       [withDependencies](World& w) {
         ANeuralNetworksExecution* e = w.execution();
         setAll(w, e);
         return withDependencies(e, nullptr, 0, 1'000'000'000);
       },
       kBadData},
      {"startComputeWithDependencies_argumentsNotSet", S::kExecution,
       [withDependencies](World& w) { return withDependencies(w.execution(), nullptr, 0, 0); }, kBadData},
      {"startComputeWithDependencies_secondTimeWithoutReusable", S::kCompletedExecution,
       [withDependencies](World& w) { return withDependencies(computedExecution(w), nullptr, 0, 0); }, kBadState},
  };
}

std::vector<Case> resultCases() {
  using S = Subject;
  return {
      {"getDuration_nullExecution", S::kNothing,
       [](World&) {
         uint64_t d;
         return ANeuralNetworksExecution_getDuration(nullptr, ANEURALNETWORKS_DURATION_ON_HARDWARE, &d);
       },
       kNull},
      {"getDuration_nullResult", S::kCompletedExecution,
       [](World& w) {
         return ANeuralNetworksExecution_getDuration(computedExecution(w), ANEURALNETWORKS_DURATION_ON_HARDWARE,
                                                     nullptr);
       },
       kNull},
      {"getDuration_negativeCode", S::kCompletedExecution,
       [](World& w) {
         uint64_t d;
         return ANeuralNetworksExecution_getDuration(computedExecution(w), -1, &d);
       },
       kBadData},
      {"getDuration_codePastLast", S::kCompletedExecution,
       [](World& w) {
         uint64_t d;
         return ANeuralNetworksExecution_getDuration(computedExecution(w),
                                                     ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER + 1, &d);
       },
       kBadData},
      {"getDuration_beforeComputation", S::kExecution,
       [](World& w) {
         uint64_t d;
         return ANeuralNetworksExecution_getDuration(w.execution(), ANEURALNETWORKS_DURATION_IN_DRIVER, &d);
       },
       kBadState},
      {"getDuration_afterFailedComputation", S::kFailedExecution,
       [](World& w) {
         uint64_t d;
         return ANeuralNetworksExecution_getDuration(w.failedExecution(), ANEURALNETWORKS_DURATION_IN_DRIVER, &d);
       },
       kBadState},
      {"getOutputOperandRank_nullExecution", S::kNothing,
       [](World&) {
         uint32_t r;
         return ANeuralNetworksExecution_getOutputOperandRank(nullptr, 0, &r);
       },
       kNull},
      {"getOutputOperandRank_nullResult", S::kCompletedExecution,
       [](World& w) { return ANeuralNetworksExecution_getOutputOperandRank(computedExecution(w), 0, nullptr); }, kNull},
      {"getOutputOperandRank_beforeComputation", S::kExecution,
       [](World& w) {
         uint32_t r;
         return ANeuralNetworksExecution_getOutputOperandRank(w.execution(), 0, &r);
       },
       kBadState},
      {"getOutputOperandRank_indexOutOfRange", S::kCompletedExecution,
       [](World& w) {
         uint32_t r;
         return ANeuralNetworksExecution_getOutputOperandRank(computedExecution(w), 1, &r);
       },
       kBadData},
      {"getOutputOperandRank_afterFailedComputation", S::kFailedExecution,
       [](World& w) {
         uint32_t r;
         return ANeuralNetworksExecution_getOutputOperandRank(w.failedExecution(), 0, &r);
       },
       kBadState},
      {"getOutputOperandDimensions_nullExecution", S::kNothing,
       [](World&) {
         uint32_t d[4];
         return ANeuralNetworksExecution_getOutputOperandDimensions(nullptr, 0, d);
       },
       kNull},
      {"getOutputOperandDimensions_nullResult", S::kCompletedExecution,
       [](World& w) { return ANeuralNetworksExecution_getOutputOperandDimensions(computedExecution(w), 0, nullptr); },
       kNull},
      {"getOutputOperandDimensions_beforeComputation", S::kExecution,
       [](World& w) {
         uint32_t d[4];
         return ANeuralNetworksExecution_getOutputOperandDimensions(w.execution(), 0, d);
       },
       kBadState},
      {"getOutputOperandDimensions_negativeIndex", S::kCompletedExecution,
       [](World& w) {
         uint32_t d[4];
         return ANeuralNetworksExecution_getOutputOperandDimensions(computedExecution(w), -1, d);
       },
       kBadData},
      {"getOutputOperandDimensions_afterFailedComputation", S::kFailedExecution,
       [](World& w) {
         uint32_t d[4];
         return ANeuralNetworksExecution_getOutputOperandDimensions(w.failedExecution(), 0, d);
       },
       kBadState},

      {"Burst_create_nullCompilation", S::kNothing,
       [](World&) {
         ANeuralNetworksBurst* b;
         return ANeuralNetworksBurst_create(nullptr, &b);
       },
       kNull},
      {"Burst_create_nullResult", S::kFinishedCompilation,
       [](World& w) { return ANeuralNetworksBurst_create(w.finishedCompilation(), nullptr); }, kNull},
      {"Burst_create_unfinishedCompilation", S::kCompilation,
       [](World& w) {
         ANeuralNetworksBurst* b = nullptr;
         return ANeuralNetworksBurst_create(w.compilation(), &b);
       },
       kBadState},
      {"Burst_create_failedCompilation", S::kFailedCompilation,
       [](World& w) {
         ANeuralNetworksBurst* b = nullptr;
         return ANeuralNetworksBurst_create(w.failedCompilation(), &b);
       },
       kBadState},
  };
}

}  // namespace

std::vector<Case> executionCases() {
  std::vector<Case> cases;
  for (auto part : {argumentCases(true), argumentCases(false), settingCases(), computeCases(), resultCases()}) {
    for (Case& c : part) {
      if (c.name.rfind("Burst_", 0) != 0) c.name = "Execution_" + c.name;
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace weft::test::battery
