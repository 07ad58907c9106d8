// The array's arithmetic for a whole GEMM command at once: the PE weights of the latest preload
// and the rows streamed through them, bit-exact with hw/spec/isa.json's GEMM (9-bit operands,
// wrapping int32 accumulation). Three implementations, chosen when the engine is created:
//
//   avx512  AVX-512 VNNI (vpdpbusd: 64 unsigned x signed byte products a cycle). Operands are
//           rewritten exactly: x - in_zp = u - a with u the input byte as unsigned (flipped by
//           0x80 when signed), and w - w_zp = s - b with s a signed byte (w - w_zp itself when
//           every weight of the tile fits, so b = 0). Then
//             sum_k (u - a)(s - b) = sum_k u s - a sum_k s - b sum_k u + K a b,
//           every term an exact int32; the column sums come with the preload, the row sums only
//           when b != 0.
//   avx2    16-bit operand pairs, pmaddwd over 8 columns.
//   scalar  the portable loop over the same pairs.
//
// WEFT_FUNCTIONAL_ISA=scalar|avx2|avx512 forces one (tests); WEFT_FUNCTIONAL_SCALAR=1 means
// scalar. By default the best the CPU has.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::sim {

enum class GemmIsa { kScalar, kAvx2, kAvx512 };
std::string_view toString(GemmIsa isa);
// Whether this CPU can run `isa` (avx512: AVX-512 F/BW/VL/VBMI/VNNI and BMI2).
bool gemmIsaAvailable(GemmIsa isa);
// The implementation the environment and the CPU select (std::invalid_argument on a bad
// WEFT_FUNCTIONAL_ISA value or one the CPU cannot run).
GemmIsa selectedGemmIsa();

class GemmEngine {
 public:
  GemmEngine(unsigned rows, unsigned cols, GemmIsa isa = selectedGemmIsa());

  // Loads the PE weights: kRows (0..rows) weight rows of `cols` bytes each, `stride` bytes apart.
  void preload(const uint8_t* w, size_t stride, uint32_t kRows, bool wSigned, int32_t wZp);
  // Streams mRows input rows (`rows` bytes each, consecutive; the 64 bytes after the last row
  // must be readable) through the weights into mRows accumulator rows (`cols` int32 each,
  // consecutive), adding to them or replacing them.
  void stream(const uint8_t* in, uint32_t mRows, bool inSigned, int32_t inZp, int32_t* acc, bool accumulate);
  // GEMM fp16 (hw/spec/isa.json): streams mRows rows of binary16 values (x_j in bytes 2j, 2j+1)
  // through the latest preload's weights read the same way (w_j[n] in weight rows 2j, 2j+1, the
  // low 8 bits of each loaded operand), into mRows accumulator rows of binary32 bit patterns:
  // p = +0, p += x_j * w_j[n] for j < k_rows / 2 in order, then acc = accumulate ? acc + p : p,
  // every sum rounded to nearest even and a NaN result the canonical one (weft/hw/fp16.h).
  void streamFp16(const uint8_t* in, uint32_t mRows, uint32_t* acc, bool accumulate);
  // The state after a hardware reset: no weights (k_rows 0, so a GEMM adds 0).
  void reset();

  GemmIsa isa() const { return isa_; }
  static constexpr size_t kInputPadding = 64;

 private:
  void preloadVnni(const uint8_t* w, size_t stride, bool wSigned, int32_t wZp);
  void streamVnni(const uint8_t* in, uint32_t mRows, bool inSigned, int32_t inZp, int32_t* acc, bool accumulate);
  void streamPairs(const uint8_t* in, uint32_t mRows, bool inSigned, int32_t inZp, int32_t* acc, bool accumulate);

  unsigned rows_, cols_;
  GemmIsa isa_;
  uint32_t kRows_ = 0;

  // GEMM fp16: the latest preload as loaded (kRows x cols bytes, signedness, zero point), turned
  // into binary16 weights as floats only when an fp16 GEMM streams through them (exact: every
  // binary16 value is a float, and so is the product of two).
  std::vector<uint8_t> preloadBytes_;
  bool preloadSigned_ = false;
  int32_t preloadZp_ = 0;
  bool fpWeightsCurrent_ = false;
  std::vector<float> fpWeights_, fpInputs_, fpSums_;

  // avx512: weights as [k / 4][lane][k % 4] signed bytes over whole 16-lane chunks, their
  // column sums, b, and scratch for flipped inputs and per-row terms.
  unsigned chunks_ = 1;
  std::vector<int8_t> vnniWeights_;
  std::vector<int32_t> columnSums_, columnTerms_, rowTerms_;
  int32_t b_ = 0;
  std::vector<uint8_t> flipped_;
  std::vector<int32_t> scratch_;

  // avx2 and scalar: weights minus their zero point as 16-bit [k / 2][column][k % 2] pairs.
  std::vector<int16_t> pairWeights_;
  std::vector<int16_t> xs_;
};

}  // namespace weft::sim
