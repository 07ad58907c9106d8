#include "HostTensor.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ImportError.h"
#include "weft/common/files.h"

namespace weft::onnx {

const char* dtypeName(DType type) {
  switch (type) {
    case DType::kFloat: return "float";
    case DType::kUint8: return "uint8";
    case DType::kInt8: return "int8";
    case DType::kUint16: return "uint16";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kString: return "string";
    case DType::kBool: return "bool";
    case DType::kFloat16: return "float16";
    case DType::kDouble: return "double";
    case DType::kUint32: return "uint32";
    case DType::kUint64: return "uint64";
    case DType::kComplex64: return "complex64";
    case DType::kComplex128: return "complex128";
    case DType::kBfloat16: return "bfloat16";
    case DType::kUndefined: break;
  }
  return "undefined";
}

size_t dtypeSize(DType type) {
  switch (type) {
    case DType::kBool:
    case DType::kUint8:
    case DType::kInt8: return 1;
    case DType::kUint16:
    case DType::kInt16:
    case DType::kFloat16:
    case DType::kBfloat16: return 2;
    case DType::kFloat:
    case DType::kInt32:
    case DType::kUint32: return 4;
    case DType::kInt64:
    case DType::kUint64:
    case DType::kDouble:
    case DType::kComplex64: return 8;
    case DType::kComplex128: return 16;
    default: return 0;
  }
}

bool isFloat(DType type) {
  return type == DType::kFloat || type == DType::kFloat16 || type == DType::kDouble || type == DType::kBfloat16;
}

bool isInteger(DType type) {
  switch (type) {
    case DType::kUint8:
    case DType::kInt8:
    case DType::kUint16:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kUint32:
    case DType::kUint64: return true;
    default: return false;
  }
}

int64_t elementCount(const Shape& shape) {
  // Saturating: a shape of a corrupt or hostile file counts as too large, never as negative.
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return INT64_MAX;
    if (d != 0 && n > INT64_MAX / d) return INT64_MAX;
    n *= d;
  }
  return n;
}

std::string shapeString(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

HostTensor::HostTensor(DType t, Shape s) : type(t), shape(std::move(s)) {
  const int64_t n = elementCount(shape);
  if (n > kMaxTensorElements) {
    throw ImportError(fmt::format("a {} tensor of shape {} is larger than weft handles ({} elements at most)",
                                  dtypeName(t), shapeString(shape), kMaxTensorElements));
  }
  bytes.assign(static_cast<size_t>(n) * dtypeSize(type), 0);
}

HostTensor::HostTensor(DType t, Shape s, std::vector<uint8_t> data) : type(t), shape(std::move(s)), bytes(std::move(data)) {
  const int64_t n = elementCount(shape);
  if (n > kMaxTensorElements || bytes.size() != static_cast<size_t>(n) * dtypeSize(type)) {
    throw ImportError(fmt::format("a {} tensor of shape {} cannot hold {} bytes", dtypeName(t), shapeString(shape),
                                  bytes.size()));
  }
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      uint32_t m = man;
      do {
        ++e;
        m <<= 1;
      } while ((m & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
  if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (absx < 0x38800000u) {                                             // subnormal or zero in half
    const float a = std::fabs(f) * 16777216.0f;                         // 2^24: units of the smallest subnormal
    const uint32_t q = static_cast<uint32_t>(std::nearbyint(a));
    return static_cast<uint16_t>(sign | q);
  }
  const uint32_t mant = absx & 0x7fffffu;
  uint32_t h = ((absx >> 23) - 112) << 10 | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

double HostTensor::asDouble(int64_t i) const {
  switch (type) {
    case DType::kFloat: return data<float>()[i];
    case DType::kDouble: return data<double>()[i];
    case DType::kFloat16: return halfToFloat(data<uint16_t>()[i]);
    case DType::kBfloat16: {
      const uint32_t bits = static_cast<uint32_t>(data<uint16_t>()[i]) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: return static_cast<double>(asInt(i));
  }
}

int64_t HostTensor::asInt(int64_t i) const {
  switch (type) {
    case DType::kBool:
    case DType::kUint8: return data<uint8_t>()[i];
    case DType::kInt8: return data<int8_t>()[i];
    case DType::kUint16: return data<uint16_t>()[i];
    case DType::kInt16: return data<int16_t>()[i];
    case DType::kInt32: return data<int32_t>()[i];
    case DType::kUint32: return data<uint32_t>()[i];
    case DType::kInt64: return data<int64_t>()[i];
    case DType::kUint64: return static_cast<int64_t>(data<uint64_t>()[i]);
    default: {
      // A float where an integer is read (a quantized tensor given as float, an index): truncated,
      // and refused when no int64 holds it (NaN, infinities, |v| >= 2^63) instead of cast.
      const double v = asDouble(i);
      if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) {
        throw ImportError(fmt::format("a {} value of {} where an integer is read", dtypeName(type), v));
      }
      return static_cast<int64_t>(v);
    }
  }
}

void HostTensor::setDouble(int64_t i, double v) {
  switch (type) {
    case DType::kFloat: data<float>()[i] = static_cast<float>(v); return;
    case DType::kDouble: data<double>()[i] = v; return;
    case DType::kFloat16: data<uint16_t>()[i] = floatToHalf(static_cast<float>(v)); return;
    case DType::kBool: data<uint8_t>()[i] = v != 0.0; return;
    default: setInt(i, static_cast<int64_t>(v)); return;
  }
}

void HostTensor::setInt(int64_t i, int64_t v) {
  switch (type) {
    case DType::kBool: data<uint8_t>()[i] = v != 0; return;
    case DType::kUint8: data<uint8_t>()[i] = static_cast<uint8_t>(v); return;
    case DType::kInt8: data<int8_t>()[i] = static_cast<int8_t>(v); return;
    case DType::kUint16: data<uint16_t>()[i] = static_cast<uint16_t>(v); return;
    case DType::kInt16: data<int16_t>()[i] = static_cast<int16_t>(v); return;
    case DType::kInt32: data<int32_t>()[i] = static_cast<int32_t>(v); return;
    case DType::kUint32: data<uint32_t>()[i] = static_cast<uint32_t>(v); return;
    case DType::kInt64: data<int64_t>()[i] = v; return;
    case DType::kUint64: data<uint64_t>()[i] = static_cast<uint64_t>(v); return;
    default: setDouble(i, static_cast<double>(v)); return;
  }
}

std::vector<int64_t> HostTensor::toInts() const {
  std::vector<int64_t> out(static_cast<size_t>(size()));
  for (int64_t i = 0; i < size(); ++i) out[static_cast<size_t>(i)] = asInt(i);
  return out;
}

HostTensor HostTensor::fromInts(const std::vector<int64_t>& values, Shape shape, DType type) {
  if (shape.empty() && values.size() != 1) shape = {static_cast<int64_t>(values.size())};
  HostTensor t(type, shape);
  for (size_t i = 0; i < values.size(); ++i) t.setInt(static_cast<int64_t>(i), values[i]);
  return t;
}

HostTensor HostTensor::scalarFloat(float v) {
  HostTensor t(DType::kFloat, {});
  t.data<float>()[0] = v;
  return t;
}

HostTensor HostTensor::castTo(DType to) const {
  if (to == type) return *this;
  HostTensor out(to, shape);
  const bool floatResult = isFloat(to);
  for (int64_t i = 0; i < size(); ++i) {
    if (floatResult || isFloat(type)) {
      out.setDouble(i, asDouble(i));
    } else {
      out.setInt(i, asInt(i));
    }
  }
  return out;
}

namespace {

template <typename Field, typename Out>
void copyField(const Field& field, HostTensor& t) {
  for (int i = 0; i < field.size(); ++i) t.data<Out>()[i] = static_cast<Out>(field.Get(i));
}

}  // namespace

HostTensor fromProto(const ::onnx::TensorProto& proto, const std::string& where) {
  const auto type = static_cast<DType>(proto.data_type());
  if (proto.data_location() == ::onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0) {
    throw ImportError(fmt::format("{}: tensor '{}' keeps its data in an external file, which the importer does not "
                                  "read (save the model with its data inside: onnx.save(model, path, "
                                  "save_as_external_data=False))",
                                  where, proto.name()));
  }
  if (dtypeSize(type) == 0 || type == DType::kComplex64 || type == DType::kComplex128) {
    throw ImportError(fmt::format("{}: tensor '{}' has element type {}, which the importer does not handle", where,
                                  proto.name(), dtypeName(type)));
  }
  Shape shape(proto.dims().begin(), proto.dims().end());
  for (int64_t d : shape) {
    if (d < 0) throw ImportError(fmt::format("{}: tensor '{}' has a negative dimension", where, proto.name()));
  }
  // The data must be in the file before anything of the shape's size is allocated: a corrupt
  // shape is an error, not an allocation.
  const int64_t elements = elementCount(shape);
  if (proto.has_raw_data()) {
    const uint64_t expected = static_cast<uint64_t>(elements) * dtypeSize(type);
    if (elements == INT64_MAX || proto.raw_data().size() != expected) {
      throw ImportError(fmt::format("{}: tensor '{}' ({} {}) holds {} bytes of data, not {}", where, proto.name(),
                                    dtypeName(type), shapeString(shape), proto.raw_data().size(), expected));
    }
    const auto* raw = reinterpret_cast<const uint8_t*>(proto.raw_data().data());
    return HostTensor(type, shape, std::vector<uint8_t>(raw, raw + proto.raw_data().size()));
  }
  const int given = type == DType::kFloat    ? proto.float_data_size()
                    : type == DType::kDouble ? proto.double_data_size()
                    : type == DType::kInt64  ? proto.int64_data_size()
                    : type == DType::kUint32 || type == DType::kUint64 ? proto.uint64_data_size()
                                                                       : proto.int32_data_size();
  if (given != elements) {
    throw ImportError(fmt::format("{}: tensor '{}' ({} {}) holds {} values, not {}", where, proto.name(),
                                  dtypeName(type), shapeString(shape), given, elements));
  }
  HostTensor t(type, shape);
  switch (type) {
    case DType::kFloat: copyField<decltype(proto.float_data()), float>(proto.float_data(), t); break;
    case DType::kDouble: copyField<decltype(proto.double_data()), double>(proto.double_data(), t); break;
    case DType::kInt64: copyField<decltype(proto.int64_data()), int64_t>(proto.int64_data(), t); break;
    case DType::kUint32:
    case DType::kUint64: for (int i = 0; i < proto.uint64_data_size(); ++i) t.setInt(i, static_cast<int64_t>(proto.uint64_data(i))); break;
    case DType::kFloat16:
    case DType::kBfloat16:
      // Stored as their bit patterns in int32_data.
      for (int i = 0; i < proto.int32_data_size(); ++i) t.data<uint16_t>()[i] = static_cast<uint16_t>(proto.int32_data(i));
      break;
    default:  // int32, int16, int8, uint16, uint8, bool: int32_data
      for (int i = 0; i < proto.int32_data_size(); ++i) t.setInt(i, proto.int32_data(i));
      break;
  }
  return t;
}

std::string readFileBytes(const std::string& path) {
  auto bytes = common::readFile(path);
  if (!bytes) throw ImportError(fmt::format("{}: cannot open the file", path));
  return std::move(*bytes);
}

HostTensor transposed(const HostTensor& t, const std::vector<int64_t>& perm) {
  const size_t rank = t.shape.size();
  std::vector<int64_t> inStrides(rank, 1);
  for (size_t d = rank; d-- > 1;) inStrides[d - 1] = inStrides[d] * t.shape[d];
  Shape shape(rank);
  for (size_t d = 0; d < rank; ++d) shape[d] = t.shape[static_cast<size_t>(perm[d])];
  HostTensor out(t.type, shape);
  const size_t width = dtypeSize(t.type);
  for (int64_t i = 0; i < out.size(); ++i) {
    int64_t rest = i, src = 0;
    for (size_t d = rank; d-- > 0;) {
      src += (rest % shape[d]) * inStrides[static_cast<size_t>(perm[d])];
      rest /= shape[d];
    }
    std::memcpy(out.bytes.data() + i * width, t.bytes.data() + src * width, width);
  }
  return out;
}

std::vector<uint8_t> nnapiBytes(const HostTensor& t, const std::string& what) {
  if (t.type != DType::kInt64) return t.bytes;
  std::vector<uint8_t> out(static_cast<size_t>(t.size()) * 4);
  for (int64_t i = 0; i < t.size(); ++i) {
    const int64_t v = t.asInt(i);
    if (v < INT32_MIN || v > INT32_MAX) {
      throw ImportError(fmt::format("{} holds {}, beyond NNAPI's 32-bit integers", what, v));
    }
    const auto narrow = static_cast<int32_t>(v);
    std::memcpy(out.data() + i * 4, &narrow, 4);
  }
  return out;
}

HostTensor readTensorProtoFile(const std::string& path) {
  ::onnx::TensorProto proto;
  if (!proto.ParseFromString(readFileBytes(path))) {
    throw ImportError(fmt::format("{}: not a serialized ONNX TensorProto (the protobuf does not parse)", path));
  }
  return fromProto(proto, path);
}

}  // namespace weft::onnx
