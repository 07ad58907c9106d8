// The ANeuralNetworksModel_* entry points: pointer checks here, everything else in ModelBuilder.
#include <memory>
#include <set>

#include "DeviceManager.h"
#include "Errors.h"
#include "Handles.h"
#include "Memory.h"
#include "ModelBuilder.h"

using namespace weft::runtime;
using weft::nn::Status;

namespace {

int supportedOperationsForDevices(const ModelBuilder& model, const ANeuralNetworksDevice* const* devices,
                                  uint32_t numDevices, bool* supportedOps) {
  constexpr const char* kFunction = "ANeuralNetworksModel_getSupportedOperationsForDevices";
  if (numDevices == 0) return reportError(kFunction, NN_ERROR(BAD_DATA) << "numDevices is 0");
  DeviceManager& manager = DeviceManager::get();
  if (Status status = manager.checkConfiguration(); !status.ok()) return reportError(kFunction, status.error());
  std::set<const Device*> seen;
  for (uint32_t i = 0; i < numDevices; ++i) {
    if (devices[i] == nullptr) return reportNull(kFunction, "devices[i]");
    const Device* device = fromHandle(devices[i]);
    if (!manager.isKnown(device)) return reportError(kFunction, NN_ERROR(BAD_DATA) << "devices[" << i << "] is not a device");
    if (!seen.insert(device).second) return reportError(kFunction, NN_ERROR(BAD_DATA) << "devices has duplicates");
  }
  if (!model.isFinished()) return reportError(kFunction, NN_ERROR(BAD_STATE) << "the model is not finished");
  const FinishedModel& finished = *model.finished();
  const size_t count = finished.model.main.operations.size();
  std::vector<bool> supported(count, false);
  for (const Device* device : seen) {
    weft::nn::Result<std::vector<bool>> result = device->hal()->getSupportedOperations(finished.model);
    if (!result.ok()) return reportError(kFunction, result.error());
    if (result->size() != count) {
      return reportError(kFunction, NN_ERROR(OP_FAILED) << "device " << device->name() << " answered for "
                                                        << result->size() << " operations instead of " << count);
    }
    for (size_t i = 0; i < count; ++i) supported[i] = supported[i] || (*result)[i];
  }
  // The device saw the operations in run order; the client asks in the order it added them.
  for (size_t i = 0; i < count; ++i) supportedOps[finished.clientOperationIndex[i]] = supported[i];
  return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace

extern "C" {

int ANeuralNetworksModel_create(ANeuralNetworksModel** model) {
  if (model == nullptr) return reportNull(__func__, "model");
  *model = nullptr;
  return guarded(__func__, [&, function = __func__]() -> int {
    *model = toHandle(new ModelBuilder());
    return ANEURALNETWORKS_NO_ERROR;
  });
}

void ANeuralNetworksModel_free(ANeuralNetworksModel* model) { delete fromHandle(model); }

int ANeuralNetworksModel_finish(ANeuralNetworksModel* model) {
  if (model == nullptr) return reportNull(__func__, "model");
  return guarded(__func__, [&, function = __func__]() -> int { return toResultCode(function, fromHandle(model)->finish()); });
}

int ANeuralNetworksModel_addOperand(ANeuralNetworksModel* model, const ANeuralNetworksOperandType* type) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (type == nullptr) return reportNull(__func__, "type");
  return guarded(__func__, [&, function = __func__]() -> int { return toResultCode(function, fromHandle(model)->addOperand(*type)); });
}

int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel* model, int32_t index, const void* buffer,
                                         size_t length) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (buffer == nullptr && length != 0) return reportNull(__func__, "buffer (with a non-zero length)");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function, fromHandle(model)->setOperandValue(static_cast<uint32_t>(index), buffer, length));
  });
}

int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
    ANeuralNetworksModel* model, int32_t index, const ANeuralNetworksSymmPerChannelQuantParams* channelQuant) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (channelQuant == nullptr) return reportNull(__func__, "channelQuant");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function, fromHandle(model)->setOperandSymmPerChannelQuantParams(static_cast<uint32_t>(index),
                                                                                        *channelQuant));
  });
}

int ANeuralNetworksModel_setOperandValueFromMemory(ANeuralNetworksModel* model, int32_t index,
                                                   const ANeuralNetworksMemory* memory, size_t offset, size_t length) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (memory == nullptr) return reportNull(__func__, "memory");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function, fromHandle(model)->setOperandValueFromMemory(static_cast<uint32_t>(index),
                                                                              *fromHandle(memory), offset, length));
  });
}

int ANeuralNetworksModel_setOperandValueFromModel(ANeuralNetworksModel* model, int32_t index,
                                                  const ANeuralNetworksModel* value) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (value == nullptr) return reportNull(__func__, "value");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function,
                        fromHandle(model)->setOperandValueFromModel(static_cast<uint32_t>(index), *fromHandle(value)));
  });
}

int ANeuralNetworksModel_addOperation(ANeuralNetworksModel* model, ANeuralNetworksOperationType type,
                                      uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                                      const uint32_t* outputs) {
  // As in NNAPI, the arrays must be given even when their count is 0.
  if (model == nullptr) return reportNull(__func__, "model");
  if (inputs == nullptr) return reportNull(__func__, "inputs");
  if (outputs == nullptr) return reportNull(__func__, "outputs");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function, fromHandle(model)->addOperation(type, inputCount, inputs, outputCount, outputs));
  });
}

int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel* model, uint32_t inputCount,
                                                  const uint32_t* inputs, uint32_t outputCount,
                                                  const uint32_t* outputs) {
  // As in NNAPI, the arrays must be given even when their count is 0.
  if (model == nullptr) return reportNull(__func__, "model");
  if (inputs == nullptr) return reportNull(__func__, "inputs");
  if (outputs == nullptr) return reportNull(__func__, "outputs");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function,
                        fromHandle(model)->identifyInputsAndOutputs(inputCount, inputs, outputCount, outputs));
  });
}

int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel* model, bool allow) {
  if (model == nullptr) return reportNull(__func__, "model");
  return toResultCode(__func__, fromHandle(model)->relaxComputationFloat32toFloat16(allow));
}

int ANeuralNetworksModel_getSupportedOperationsForDevices(const ANeuralNetworksModel* model,
                                                          const ANeuralNetworksDevice* const* devices,
                                                          uint32_t numDevices, bool* supportedOps) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (devices == nullptr) return reportNull(__func__, "devices");
  if (supportedOps == nullptr) return reportNull(__func__, "supportedOps");
  return guarded(__func__,
                 [&, function = __func__]() -> int { return supportedOperationsForDevices(*fromHandle(model), devices, numDevices, supportedOps); });
}

int ANeuralNetworksModel_getExtensionOperandType(ANeuralNetworksModel* model, const char* extensionName,
                                                 uint16_t operandCodeWithinExtension, int32_t* type) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (extensionName == nullptr) return reportNull(__func__, "extensionName");
  if (type == nullptr) return reportNull(__func__, "type");
  return guarded(__func__, [&, function = __func__]() -> int {
    weft::nn::Result<int32_t> found = fromHandle(model)->getExtensionType(extensionName, operandCodeWithinExtension);
    if (!found.ok()) return reportError(function, found.error());
    *type = *found;
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworksModel_getExtensionOperationType(ANeuralNetworksModel* model, const char* extensionName,
                                                   uint16_t operationCodeWithinExtension,
                                                   ANeuralNetworksOperationType* type) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (extensionName == nullptr) return reportNull(__func__, "extensionName");
  if (type == nullptr) return reportNull(__func__, "type");
  return guarded(__func__, [&, function = __func__]() -> int {
    weft::nn::Result<int32_t> found = fromHandle(model)->getExtensionType(extensionName, operationCodeWithinExtension);
    if (!found.ok()) return reportError(function, found.error());
    *type = *found;
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworksModel_setOperandExtensionData(ANeuralNetworksModel* model, int32_t index, const void* data,
                                                 size_t length) {
  if (model == nullptr) return reportNull(__func__, "model");
  if (data == nullptr && length != 0) return reportNull(__func__, "data (with a non-zero length)");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function,
                        fromHandle(model)->setOperandExtensionData(static_cast<uint32_t>(index), data, length));
  });
}

}  // extern "C"
