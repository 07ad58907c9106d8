// A model run on the CPU reference device (or the accelerator) through the NNAPI C API: what an
// ONNX model's accelerated run is checked against, and what post-training quantization
// calibrates on; one operation of a model as a model of its own.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "TestModel.h"

namespace weft::tool {

// The outputs of `model` with the values its input operands hold, one buffer per output
// (`origin` names the model in errors).
std::vector<std::vector<uint8_t>> cpuReferenceOutputs(const test::TestModel& model, const std::string& origin);

// The same on the accelerator: alone when it claims every operation, else as NNAPI partitions the
// model between it and the CPU.
std::vector<std::vector<uint8_t>> acceleratorOutputs(const test::TestModel& model, const std::string& origin);

// Whether an operand holds its value in the model (a constant, omitted, or a subgraph).
bool isConstant(const test::TestOperand& o);
// Bytes of an operand's value at its dimensions.
uint64_t operandBytes(const test::TestOperand& o);

// Operation `index` of `model` as a model of its own: its constant operands as they are, its
// other inputs model inputs holding `values` (zeros where `values` has none), its outputs the
// model's outputs.
test::TestModel singleOperation(const test::TestModel& model, size_t index,
                                const std::map<uint32_t, std::vector<uint8_t>>& values);

}  // namespace weft::tool
