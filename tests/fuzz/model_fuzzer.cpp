// libFuzzer target: model construction and validation through the NNAPI C API. The input is a
// little program of calls (addOperand with any type, setOperandValue, addOperation with any type
// and operand lists, identifyInputsAndOutputs, per-channel parameters, finish), then a
// compilation on the CPU device when the model finished. Every call must return a result code;
// nothing may crash, leak or invoke undefined behaviour (AddressSanitizer, UBSan).
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "android/NeuralNetworks.h"

namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return position_ >= size_; }
  uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{byte()} << (8 * i);
    return v;
  }
  // Mostly small values (shapes that compile quickly), sometimes any 32-bit value.
  uint32_t dimension() { return byte() % 16 == 15 ? u32() : byte() % 9; }
  float scale() {
    constexpr std::array<float, 6> kScales = {0.0f, 0.5f, 1.0f / 128, -1.0f, std::numeric_limits<float>::quiet_NaN(),
                                              std::numeric_limits<float>::infinity()};
    return kScales[byte() % kScales.size()];
  }
  std::vector<uint32_t> indexes(uint32_t operandCount) {
    std::vector<uint32_t> list(byte() % 6);
    for (uint32_t& index : list) index = byte() % (operandCount + 2);  // now and then out of range
    return list;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

// Values for constants: zeros, with room for the largest constant the fuzzer sets.
const std::vector<uint8_t>& zeros() {
  static const std::vector<uint8_t> bytes(1 << 16, 0);
  return bytes;
}

void addOperand(ANeuralNetworksModel* model, Input& in, uint32_t& operandCount) {
  std::vector<uint32_t> dims(in.byte() % 5);
  for (uint32_t& d : dims) d = in.dimension();
  ANeuralNetworksOperandType type{static_cast<int32_t>(in.byte() % 18) - 1, static_cast<uint32_t>(dims.size()),
                                  dims.empty() ? nullptr : dims.data(), in.scale(),
                                  static_cast<int32_t>(in.byte()) - 128};
  if (in.byte() % 4 != 0) type.zeroPoint = 0;
  if (ANeuralNetworksModel_addOperand(model, &type) == ANEURALNETWORKS_NO_ERROR) ++operandCount;
}

void step(ANeuralNetworksModel* model, Input& in, uint32_t& operandCount) {
  switch (in.byte() % 7) {
    case 0:
      addOperand(model, in, operandCount);
      break;
    case 1: {
      const int32_t index = static_cast<int32_t>(in.byte() % (operandCount + 1));
      const size_t length = in.byte() % 2 == 0 ? in.byte() : (in.u32() % zeros().size());
      ANeuralNetworksModel_setOperandValue(model, index, length == 0 ? nullptr : zeros().data(), length);
      break;
    }
    case 2: {
      const int32_t type = in.byte() % 8 == 0 ? static_cast<int32_t>(in.u32()) : in.byte() % 110;
      const std::vector<uint32_t> inputs = in.indexes(operandCount);
      const std::vector<uint32_t> outputs = in.indexes(operandCount);
      ANeuralNetworksModel_addOperation(model, type, static_cast<uint32_t>(inputs.size()), inputs.data(),
                                        static_cast<uint32_t>(outputs.size()), outputs.data());
      break;
    }
    case 3: {
      const std::vector<uint32_t> inputs = in.indexes(operandCount);
      const std::vector<uint32_t> outputs = in.indexes(operandCount);
      static const uint32_t kNone = 0;
      ANeuralNetworksModel_identifyInputsAndOutputs(model, static_cast<uint32_t>(inputs.size()),
                                                    inputs.empty() ? &kNone : inputs.data(),
                                                    static_cast<uint32_t>(outputs.size()),
                                                    outputs.empty() ? &kNone : outputs.data());
      break;
    }
    case 4: {
      std::vector<float> scales(in.byte() % 9);
      for (float& s : scales) s = in.scale();
      const ANeuralNetworksSymmPerChannelQuantParams params{static_cast<uint32_t>(in.byte() % 5), static_cast<uint32_t>(scales.size()),
                                                            scales.empty() ? nullptr : scales.data()};
      ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model, in.byte() % (operandCount + 1), &params);
      break;
    }
    case 5:
      ANeuralNetworksModel_relaxComputationFloat32toFloat16(model, in.byte() % 2 == 1);
      break;
    default: {
      int32_t type = 0;
      ANeuralNetworksModel_getExtensionOperandType(model, in.byte() % 2 ? "org.weft.accel" : "com.example", 0, &type);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  ANeuralNetworksModel* model = nullptr;
  if (ANeuralNetworksModel_create(&model) != ANEURALNETWORKS_NO_ERROR) return 0;
  uint32_t operandCount = 0;
  for (int calls = 0; calls < 64 && !in.empty(); ++calls) step(model, in, operandCount);
  if (ANeuralNetworksModel_finish(model) == ANEURALNETWORKS_NO_ERROR) {
    uint32_t devices = 0;
    ANeuralNetworks_getDeviceCount(&devices);
    ANeuralNetworksCompilation* compilation = nullptr;
    if (ANeuralNetworksCompilation_create(model, &compilation) == ANEURALNETWORKS_NO_ERROR) {
      ANeuralNetworksCompilation_finish(compilation);
      ANeuralNetworksCompilation_free(compilation);
    }
  }
  ANeuralNetworksModel_free(model);
  return 0;
}
