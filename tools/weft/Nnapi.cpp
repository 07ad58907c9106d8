#include "Nnapi.h"

#include <fmt/format.h>

namespace weft::tool {

const char* resultCodeName(int code) {
  switch (code) {
    case ANEURALNETWORKS_NO_ERROR: return "NO_ERROR";
    case ANEURALNETWORKS_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case ANEURALNETWORKS_INCOMPLETE: return "INCOMPLETE";
    case ANEURALNETWORKS_UNEXPECTED_NULL: return "UNEXPECTED_NULL";
    case ANEURALNETWORKS_BAD_DATA: return "BAD_DATA";
    case ANEURALNETWORKS_OP_FAILED: return "OP_FAILED";
    case ANEURALNETWORKS_BAD_STATE: return "BAD_STATE";
    case ANEURALNETWORKS_UNMAPPABLE: return "UNMAPPABLE";
    case ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE: return "OUTPUT_INSUFFICIENT_SIZE";
    case ANEURALNETWORKS_UNAVAILABLE_DEVICE: return "UNAVAILABLE_DEVICE";
    case ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT: return "MISSED_DEADLINE_TRANSIENT";
    case ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT: return "MISSED_DEADLINE_PERSISTENT";
    case ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT: return "RESOURCE_EXHAUSTED_TRANSIENT";
    case ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT: return "RESOURCE_EXHAUSTED_PERSISTENT";
    case ANEURALNETWORKS_DEAD_OBJECT: return "DEAD_OBJECT";
    default: return "UNKNOWN";
  }
}

NnapiError::NnapiError(const std::string& what, int code)
    : std::runtime_error(fmt::format("{} failed: ANEURALNETWORKS_{}", what, resultCodeName(code))), code_(code) {}

void check(int resultCode, const std::string& what) {
  if (resultCode != ANEURALNETWORKS_NO_ERROR) throw NnapiError(what, resultCode);
}

ANeuralNetworksDevice* findDevice(int32_t type) {
  uint32_t count = 0;
  check(ANeuralNetworks_getDeviceCount(&count), "ANeuralNetworks_getDeviceCount");
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    check(ANeuralNetworks_getDevice(i, &device), "ANeuralNetworks_getDevice");
    int32_t t = 0;
    check(ANeuralNetworksDevice_getType(device, &t), "ANeuralNetworksDevice_getType");
    if (t == type) return device;
  }
  throw std::runtime_error(fmt::format("no NNAPI device of type {} ({})", type,
                                       type == ANEURALNETWORKS_DEVICE_ACCELERATOR
                                           ? "the accelerator did not come up; see the message above"
                                           : "the CPU reference device is missing"));
}

std::string deviceName(const ANeuralNetworksDevice* device) {
  const char* name = nullptr;
  check(ANeuralNetworksDevice_getName(device, &name), "ANeuralNetworksDevice_getName");
  return name;
}

}  // namespace weft::tool
