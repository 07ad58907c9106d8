// ANeuralNetworksCompilation_*: the invalid calls.
#include <array>

#include "Battery.h"

namespace weft::test::battery {
namespace {

int createForDevices(World& w, ANeuralNetworksModel* model, std::vector<const ANeuralNetworksDevice*> devices,
                     uint32_t count) {
  ANeuralNetworksCompilation** out = w.keep<ANeuralNetworksCompilation*>(nullptr);
  const int result = ANeuralNetworksCompilation_createForDevices(model, w.keep(std::move(devices))->data(), count, out);
  if (*out != nullptr) ANeuralNetworksCompilation_free(*out);  // an accepted call would leak otherwise
  return result;
}

const uint8_t* token(World& w) {
  return w.keep(std::array<uint8_t, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN>{})->data();
}

using Preferred = int (*)(const ANeuralNetworksCompilation*, uint32_t, uint32_t*);

// The four getPreferredMemory* functions take the same arguments and fail the same way.
std::vector<Case> preferredMemoryCases(const std::string& name, Preferred function) {
  using S = Subject;
  return {
      {name + "_nullCompilation", S::kNothing,
       [function](World&) {
         uint32_t v;
         return function(nullptr, 0, &v);
       },
       kNull},
      {name + "_nullResult", S::kFinishedCompilation,
       [function](World& w) { return function(w.finishedCompilation(), 0, nullptr); }, kNull},
      {name + "_unfinishedCompilation", S::kCompilation,
       [function](World& w) {
         uint32_t v;
         return function(w.compilation(), 0, &v);
       },
       kBadState},
      {name + "_failedCompilation", S::kFailedCompilation,
       [function](World& w) {
         uint32_t v;
         return function(w.failedCompilation(), 0, &v);
       },
       kBadState},
      {name + "_indexOutOfRange", S::kFinishedCompilation,
       [function](World& w) {
         uint32_t v;
         return function(w.finishedCompilation(), 2, &v);
       },
       kBadData},
  };
}

}  // namespace

std::vector<Case> compilationCases() {
  using S = Subject;
  std::vector<Case> cases = {
      {"create_nullModel", S::kNothing,
       [](World&) {
         ANeuralNetworksCompilation* c;
         return ANeuralNetworksCompilation_create(nullptr, &c);
       },
       kNull},
      {"create_nullResult", S::kFinishedModel,
       [](World& w) { return ANeuralNetworksCompilation_create(w.finishedModel(), nullptr); }, kNull},
      {"create_unfinishedModel", S::kModelUnderConstruction,
       [](World& w) {
         ANeuralNetworksCompilation* c = nullptr;
         return ANeuralNetworksCompilation_create(w.model(), &c);
       },
       kBadState},
      {"create_invalidModel", S::kInvalidModel,
       [](World& w) {
         ANeuralNetworksCompilation* c = nullptr;
         return ANeuralNetworksCompilation_create(w.invalidModel(), &c);
       },
       kBadState},
      {"createForDevices_nullModel", S::kNothing, [](World& w) { return createForDevices(w, nullptr, {w.cpu()}, 1); },
       kNull},
      {"createForDevices_nullDevices", S::kFinishedModel,
       [](World& w) {
         ANeuralNetworksCompilation* c = nullptr;
         return ANeuralNetworksCompilation_createForDevices(w.finishedModel(), nullptr, 1, &c);
       },
       kNull},
      {"createForDevices_nullResult", S::kFinishedModel,
       [](World& w) {
         const ANeuralNetworksDevice* d = w.cpu();
         return ANeuralNetworksCompilation_createForDevices(w.finishedModel(), &d, 1, nullptr);
       },
       kNull},
      {"createForDevices_zeroDevices", S::kFinishedModel,
       [](World& w) { return createForDevices(w, w.finishedModel(), {w.cpu()}, 0); }, kBadData},
      {"createForDevices_nullDeviceInList", S::kFinishedModel,
       [](World& w) {
         return createForDevices(w, w.finishedModel(), {w.cpu(), nullptr}, 2);
       },
       kNull},
      {"createForDevices_duplicateDevices", S::kFinishedModel,
       [](World& w) {
         return createForDevices(w, w.finishedModel(), {w.cpu(), w.cpu()}, 2);
       },
       kBadData},
      {"createForDevices_notADevice", S::kFinishedModel,
       [](World& w) { return createForDevices(w, w.finishedModel(), {w.bogusDevice()}, 1); }, kBadData},
      {"createForDevices_unfinishedModel", S::kModelUnderConstruction,
       [](World& w) { return createForDevices(w, w.model(), {w.cpu()}, 1); }, kBadState},
      {"createForDevices_invalidModel", S::kInvalidModel,
       [](World& w) { return createForDevices(w, w.invalidModel(), {w.cpu()}, 1); }, kBadState},

      {"setPreference_nullCompilation", S::kNothing,
       [](World&) { return ANeuralNetworksCompilation_setPreference(nullptr, ANEURALNETWORKS_PREFER_LOW_POWER); },
       kNull},
      {"setPreference_negative", S::kCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setPreference(w.compilation(), -1); }, kBadData},
      {"setPreference_pastLast", S::kCompilation,
       [](World& w) {
         return ANeuralNetworksCompilation_setPreference(w.compilation(), ANEURALNETWORKS_PREFER_SUSTAINED_SPEED + 1);
       },
       kBadData},
      {"setPreference_afterFinish", S::kFinishedCompilation,
       [](World& w) {
         return ANeuralNetworksCompilation_setPreference(w.finishedCompilation(), ANEURALNETWORKS_PREFER_LOW_POWER);
       },
       kBadState},
      {"setPriority_nullCompilation", S::kNothing,
       [](World&) { return ANeuralNetworksCompilation_setPriority(nullptr, ANEURALNETWORKS_PRIORITY_HIGH); }, kNull},
      {"setPriority_zero", S::kCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setPriority(w.compilation(), 0); }, kBadData},
      {"setPriority_betweenLevels", S::kCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setPriority(w.compilation(), 95); }, kBadData},
      {"setPriority_aboveHigh", S::kCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setPriority(w.compilation(), 111); }, kBadData},
      {"setPriority_afterFinish", S::kFinishedCompilation,
       [](World& w) {
         return ANeuralNetworksCompilation_setPriority(w.finishedCompilation(), ANEURALNETWORKS_PRIORITY_LOW);
       },
       kBadState},
      {"setTimeout_nullCompilation", S::kNothing,
       [](World&) { return ANeuralNetworksCompilation_setTimeout(nullptr, 1000); }, kNull},
      {"setTimeout_notCreatedForOneDevice", S::kCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setTimeout(w.compilation(), 1000); }, kBadData},
      {"setTimeout_afterFinish", S::kFinishedCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setTimeout(w.finishedCompilation(), 1000); }, kBadState},
      {"setCaching_nullCompilation", S::kNothing,
       [](World& w) { return ANeuralNetworksCompilation_setCaching(nullptr, "/tmp", token(w)); }, kNull},
      {"setCaching_nullDirectory", S::kCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setCaching(w.compilation(), nullptr, token(w)); }, kNull},
      {"setCaching_nullToken", S::kCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setCaching(w.compilation(), "/tmp", nullptr); }, kNull},
      {"setCaching_afterFinish", S::kFinishedCompilation,
       [](World& w) { return ANeuralNetworksCompilation_setCaching(w.finishedCompilation(), "/tmp", token(w)); },
       kBadState},
      {"finish_nullCompilation", S::kNothing, [](World&) { return ANeuralNetworksCompilation_finish(nullptr); }, kNull},
      {"finish_twice", S::kFinishedCompilation,
       [](World& w) { return ANeuralNetworksCompilation_finish(w.finishedCompilation()); }, kBadState},
      {"finish_afterFailedFinish", S::kFailedCompilation,
       [](World& w) { return ANeuralNetworksCompilation_finish(w.failedCompilation()); }, kBadState},
  };
  const std::pair<const char*, Preferred> preferred[] = {
      {"getPreferredMemoryAlignmentForInput", ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput},
      {"getPreferredMemoryPaddingForInput", ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput},
      {"getPreferredMemoryAlignmentForOutput", ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput},
      {"getPreferredMemoryPaddingForOutput", ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput},
  };
  for (const auto& [name, function] : preferred) {
    for (Case& c : preferredMemoryCases(name, function)) cases.push_back(std::move(c));
  }
  // The output index range is 1, the input range 2: index 1 is valid for inputs only.
  cases.push_back({"getPreferredMemoryAlignmentForOutput_firstIndexPastOutputs", Subject::kFinishedCompilation,
                   [](World& w) {
                     uint32_t v;
                     return ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(w.finishedCompilation(), 1,
                                                                                            &v);
                   },
                   kBadData});
  for (Case& c : cases) c.name = "Compilation_" + c.name;
  return cases;
}

}  // namespace weft::test::battery
