// A tensor held by the importer: an ONNX initializer, a Constant node's value, a folded value, an
// input or output read from or written to a file. Elements are stored in the element type's
// native width (int64 as int64), little-endian as on the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
}

namespace weft::onnx {

// ONNX's TensorProto.DataType values that the importer knows.
enum class DType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
};

const char* dtypeName(DType type);
// Bytes of one element; 0 for a type without a fixed size (string, undefined).
size_t dtypeSize(DType type);
bool isFloat(DType type);    // float, float16, double, bfloat16
bool isInteger(DType type);  // the signed and unsigned integers, bool not included

using Shape = std::vector<int64_t>;
// The most elements one tensor may have (4 Gi: 16 GiB of float32); larger is an ImportError.
constexpr int64_t kMaxTensorElements = int64_t{1} << 32;
int64_t elementCount(const Shape& shape);
std::string shapeString(const Shape& shape);  // "1x3x224x224", "scalar" for rank 0

// How an integer value stands for real numbers, as ONNX's QuantizeLinear/DequantizeLinear and
// NNAPI's quantized types say: real = (q - zeroPoint) * scale, for the whole tensor or per channel
// along `axis` (weights only: NNAPI's TENSOR_QUANT8_SYMM_PER_CHANNEL).
struct Quantization {
  std::vector<float> scales;        // empty: the value is not quantized
  std::vector<int32_t> zeroPoints;  // one per scale
  int64_t axis = -1;                // the channel axis of a per-channel quantization, else -1

  bool quantized() const { return !scales.empty(); }
  bool perChannel() const { return axis >= 0; }
  bool operator==(const Quantization& o) const {
    return scales == o.scales && zeroPoints == o.zeroPoints && axis == o.axis;
  }
  bool operator!=(const Quantization& o) const { return !(*this == o); }
};

struct HostTensor {
  DType type = DType::kUndefined;
  Shape shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(DType t, Shape s);  // zero-filled
  // Holding `data`, which must be the shape's size in bytes (ImportError otherwise): a tensor
  // read from a file or computed whole is not zero-filled first (ResNet-50's 100 MB of weights).
  HostTensor(DType t, Shape s, std::vector<uint8_t> data);

  int64_t size() const { return elementCount(shape); }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes.data());
  }

  // Element i converted to double / int64 (any numeric type, bool as 0 or 1).
  double asDouble(int64_t i) const;
  int64_t asInt(int64_t i) const;
  // Element i set from a double / int64, converted to the element type.
  void setDouble(int64_t i, double v);
  void setInt(int64_t i, int64_t v);
  // The elements as int64 (shape arithmetic: axes, shapes, indices).
  std::vector<int64_t> toInts() const;

  static HostTensor fromInts(const std::vector<int64_t>& values, Shape shape = {}, DType type = DType::kInt64);
  static HostTensor scalarFloat(float v);
  // A copy converted to another element type (numeric types; float to int truncates like a C cast).
  HostTensor castTo(DType to) const;
};

// A TensorProto's value: raw_data or the typed fields. `where` names it in errors (ImportError):
// external data, strings and types the importer does not handle are refused.
HostTensor fromProto(const ::onnx::TensorProto& proto, const std::string& where);
// A file's bytes; ImportError "<path>: cannot open the file" when it cannot be read.
std::string readFileBytes(const std::string& path);
// The same read from a serialized TensorProto file (ONNX's test data, `--input NAME=x.pb`).
HostTensor readTensorProtoFile(const std::string& path);

// `t` with its axes in the order `perm` (output axis d is input axis perm[d]; a permutation of
// [0, rank), which the caller checked): constant folding's Transpose, Einsum's constants.
HostTensor transposed(const HostTensor& t, const std::vector<int64_t>& perm);

// The bytes NNAPI takes for a value: int64 narrowed to int32 (NNAPI's integers), others as they
// are. ImportError naming `what` ("input 'ids'") for an int64 beyond 32 bits.
std::vector<uint8_t> nnapiBytes(const HostTensor& t, const std::string& what);

// float16 <-> float conversions (IEEE binary16, round to nearest even).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);

}  // namespace weft::onnx
