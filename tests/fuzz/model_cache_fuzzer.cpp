// libFuzzer target: the model serialization that compilation caches hold (weft/nn/
// ModelSerialization.h). Any bytes must read back as BAD_DATA or as a model whose constants lie
// inside its bytes; never a crash or an out-of-bounds read.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "weft/nn/ModelSerialization.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The first byte splits the input into the structure and the constants.
  if (size == 0) return 0;
  const size_t split = data[0] % (size);
  const std::vector<uint8_t> structure(data + 1, data + 1 + (split > 0 ? split - 1 : 0));
  const std::vector<uint8_t> constants(data + 1 + structure.size(), data + size);
  weft::nn::Result<weft::nn::Model> model = weft::nn::deserializeModel(structure, constants);
  if (model.ok()) {
    // What was read must serialize again.
    (void)weft::nn::serializeModel(*model);
  }
  return 0;
}
