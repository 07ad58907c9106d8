// The executor's view of one operand during an execution: its actual shape and where its bytes
// are. Constants and request arguments point into memory owned elsewhere; temporaries and
// referenced-subgraph outputs own their storage.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/nn/Types.h"

namespace weft::nn {

struct RunTimeOperand {
  OperandType type = OperandType::FLOAT32;
  Dimensions dimensions;
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  ExtraParams extraParams;
  Operand::LifeTime lifetime = Operand::LifeTime::TEMPORARY_VARIABLE;

  uint8_t* buffer = nullptr;  // nullptr for omitted or zero-sized operands
  size_t length = 0;          // bytes available at buffer
  std::vector<uint8_t> storage;  // owned bytes (temporaries)

  bool omitted = false;
  // Bound to caller memory whose capacity is fixed (a main-graph output of the request):
  // a larger inferred shape is OUTPUT_INSUFFICIENT_SIZE instead of a reallocation.
  bool fixedCapacity = false;
  bool insufficient = false;   // set when that happened
  // prepare() gave this operand its shape in this execution. A 0 dimension then means zero-sized,
  // whereas in a declaration it means unknown.
  bool shapeSet = false;
  uint32_t usesLeft = 0;       // consumers still to run (temporaries are freed at 0)
  int32_t subgraphIndex = -1;  // SUBGRAPH operands: index into Model::referenced

  // Bytes of one element of an extension type (its extension's byteSize); 0 for base types, whose
  // size the type itself gives.
  uint32_t extensionElementSize = 0;

  Shape shape() const { return Shape{type, dimensions, scale, zeroPoint, extraParams}; }
  size_t requiredBytes() const {
    return extensionElementSize != 0 ? size_t{extensionElementSize} * numberOfElements(dimensions)
                                     : sizeOfData(type, dimensions);
  }
};

}  // namespace weft::nn
