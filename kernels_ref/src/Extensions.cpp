#include "weft/kernels/Extensions.h"

namespace weft::nn {

const std::vector<Extension>& referenceExtensions() {
  static const std::vector<Extension> kExtensions = {
      {std::string(weft_extension::kName),
       {{weft_extension::kTensorInt32Accumulator, /*isTensor=*/true, /*byteSize=*/sizeof(int32_t)}}},
  };
  return kExtensions;
}

std::optional<OperandTypeInfo> operandTypeInfo(const Model& model, OperandType type) {
  return operandTypeInfo(type, model.extensionNameToPrefix, referenceExtensions());
}

}  // namespace weft::nn
