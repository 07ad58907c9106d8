// Reading operands of an nn::Model: constant values, scalars, omitted operands. Shared by the
// support check and the lowering so both read a model the same way.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>

#include "weft/nn/Types.h"

namespace weft::accel {

inline bool isConstant(const nn::Operand& o) {
  return o.lifetime == nn::Operand::LifeTime::CONSTANT_COPY ||
         o.lifetime == nn::Operand::LifeTime::CONSTANT_REFERENCE ||
         o.lifetime == nn::Operand::LifeTime::POINTER;
}

inline bool isOmitted(const nn::Operand& o) { return o.lifetime == nn::Operand::LifeTime::NO_VALUE; }

// A tensor whose value exists only at execution: a model input, another operation's output, or
// a model output another operation reads (every layer of a `weft run` network is one).
inline bool givenAtExecution(const nn::Operand& o) {
  return o.lifetime == nn::Operand::LifeTime::SUBGRAPH_INPUT || o.lifetime == nn::Operand::LifeTime::TEMPORARY_VARIABLE ||
         o.lifetime == nn::Operand::LifeTime::SUBGRAPH_OUTPUT;
}

// The bytes of a constant operand, or nullptr when it is not constant or its location does not
// lie inside the model's storage.
inline const uint8_t* constantBytes(const nn::Model& model, const nn::Operand& o) {
  const auto& loc = o.location;
  switch (o.lifetime) {
    case nn::Operand::LifeTime::CONSTANT_COPY:
      if (size_t{loc.offset} + loc.length > model.operandValues.size()) return nullptr;
      return model.operandValues.data() + loc.offset;
    case nn::Operand::LifeTime::CONSTANT_REFERENCE: {
      if (loc.poolIndex >= model.pools.size() || !model.pools[loc.poolIndex]) return nullptr;
      auto& pool = *model.pools[loc.poolIndex];
      if (size_t{loc.offset} + loc.length > pool.size()) return nullptr;
      return pool.data() + loc.offset;
    }
    case nn::Operand::LifeTime::POINTER:
      return static_cast<const uint8_t*>(loc.pointer);
    default:
      return nullptr;
  }
}

// A constant scalar of type T (INT32 or BOOL operands), or nullopt when it is not a constant
// of at least sizeof(T) bytes.
template <typename T>
std::optional<T> constantScalar(const nn::Model& model, const nn::Operand& o) {
  const uint8_t* p = constantBytes(model, o);
  if (p == nullptr || o.location.length < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace weft::accel
