// The store's requant8 post-processing for a whole accumulator row at once: bit-exact with
// hw::postprocess (hw/include/weft/hw/postproc.h) column by column, vectorized (AVX2, eight
// columns an instruction, or AVX-512 sixteen, chosen at run time) because it is most of what the approximate
// model spends on a store.
#pragma once

#include <cstdint>

#include "weft/hw/postproc.h"

namespace weft::sim {

// A parameter row decoded once per STORE: per column bias, multiplier and the shift split
// into its left and right parts (saturated to [-31, 31] as the hardware does).
struct RequantColumns {
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* left;
  const int32_t* right;
};

// out[n] = low 8 bits of hw::postprocess(acc[n], column n, outZp, clampMin, clampMax).
void requantizeRow(const int32_t* acc, const RequantColumns& columns, uint32_t count, int32_t outZp,
                   int32_t clampMin, int32_t clampMax, uint8_t* out);

// The shift parts of hw::requantize.
inline int32_t requantLeft(int shift) { return shift > 0 ? (shift > 31 ? 31 : shift) : 0; }
inline int32_t requantRight(int shift) { return shift < 0 ? (shift < -31 ? 31 : -shift) : 0; }

}  // namespace weft::sim
