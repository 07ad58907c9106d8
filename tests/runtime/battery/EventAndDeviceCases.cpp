// ANeuralNetworksEvent_*, ANeuralNetworks_* and ANeuralNetworksDevice_*: the invalid calls.
#include "Battery.h"

namespace weft::test::battery {
namespace {

template <typename T>
using DeviceQuery = int (*)(const ANeuralNetworksDevice*, T*);

// getName, getVersion, getType and getFeatureLevel take the same arguments and fail alike.
template <typename T>
std::vector<Case> queryCases(const std::string& name, DeviceQuery<T> query) {
  using S = Subject;
  return {
      {name + "_nullDevice", S::kNothing,
       [query](World&) {
         T value{};
         return query(nullptr, &value);
       },
       kNull},
      {name + "_nullResult", S::kNothing, [query](World& w) { return query(w.cpu(), nullptr); }, kNull},
      {name + "_notADevice", S::kNothing,
       [query](World& w) {
         T value{};
         return query(w.bogusDevice(), &value);
       },
       kBadData},
  };
}

}  // namespace

std::vector<Case> eventBurstAndDeviceCases() {
  using S = Subject;
  std::vector<Case> cases = {
      {"Event_wait_nullEvent", S::kNothing, [](World&) { return ANeuralNetworksEvent_wait(nullptr); }, kNull},
      {"Event_createFromSyncFenceFd_nullResult", S::kNothing,
       [](World&) { return ANeuralNetworksEvent_createFromSyncFenceFd(1, nullptr); }, kNull},
      {"Event_createFromSyncFenceFd_negativeFd", S::kNothing,
       [](World&) {
         ANeuralNetworksEvent* e = nullptr;
         return ANeuralNetworksEvent_createFromSyncFenceFd(-1, &e);
       },
       kBadData},
      {"Event_createFromSyncFenceFd_zeroFd", S::kNothing,
       [](World&) {
         ANeuralNetworksEvent* e = nullptr;
         return ANeuralNetworksEvent_createFromSyncFenceFd(0, &e);
       },
       kBadData},
      {"Event_getSyncFenceFd_nullResult", S::kEvent,
       [](World& w) { return ANeuralNetworksEvent_getSyncFenceFd(w.event(), nullptr); }, kNull},
      {"Event_getSyncFenceFd_nullEvent", S::kNothing,
       [](World&) {
         int fd = 0;
         return ANeuralNetworksEvent_getSyncFenceFd(nullptr, &fd);
       },
       kNull},
      // As in Android (CTS EventGetSyncFenceFdFromStartCompute): startCompute's events have no fence.
      {"Event_getSyncFenceFd_eventOfStartCompute", S::kEvent,
       [](World& w) {
         int fd = 0;
         return ANeuralNetworksEvent_getSyncFenceFd(w.event(), &fd);
       },
       kBadData},

      {"getDeviceCount_nullResult", S::kNothing, [](World&) { return ANeuralNetworks_getDeviceCount(nullptr); }, kNull},
      {"getDevice_nullResult", S::kNothing, [](World&) { return ANeuralNetworks_getDevice(0, nullptr); }, kNull},
      {"getDevice_indexOutOfRange", S::kNothing,
       [](World&) {
         uint32_t count = 0;
         ANeuralNetworks_getDeviceCount(&count);
         ANeuralNetworksDevice* device = nullptr;
         return ANeuralNetworks_getDevice(count, &device);
       },
       kBadData},
      {"Device_wait_nullDevice", S::kNothing, [](World&) { return ANeuralNetworksDevice_wait(nullptr); }, kNull},
      {"Device_wait_notADevice", S::kNothing, [](World& w) { return ANeuralNetworksDevice_wait(w.bogusDevice()); },
       kBadData},
      {"Device_getExtensionSupport_nullDevice", S::kNothing,
       [](World&) {
         bool s;
         return ANeuralNetworksDevice_getExtensionSupport(nullptr, "org.weft.accel", &s);
       },
       kNull},
      {"Device_getExtensionSupport_nullName", S::kNothing,
       [](World& w) {
         bool s;
         return ANeuralNetworksDevice_getExtensionSupport(w.cpu(), nullptr, &s);
       },
       kNull},
      {"Device_getExtensionSupport_nullResult", S::kNothing,
       [](World& w) { return ANeuralNetworksDevice_getExtensionSupport(w.cpu(), "org.weft.accel", nullptr); }, kNull},
      {"Device_getExtensionSupport_notADevice", S::kNothing,
       [](World& w) {
         bool s;
         return ANeuralNetworksDevice_getExtensionSupport(w.bogusDevice(), "org.weft.accel", &s);
       },
       kBadData},
  };
  for (Case& c : queryCases<const char*>("Device_getName", ANeuralNetworksDevice_getName))
    cases.push_back(std::move(c));
  for (Case& c : queryCases<const char*>("Device_getVersion", ANeuralNetworksDevice_getVersion))
    cases.push_back(std::move(c));
  for (Case& c : queryCases<int32_t>("Device_getType", ANeuralNetworksDevice_getType)) cases.push_back(std::move(c));
  for (Case& c : queryCases<int64_t>("Device_getFeatureLevel", ANeuralNetworksDevice_getFeatureLevel))
    cases.push_back(std::move(c));
  return cases;
}

}  // namespace weft::test::battery
