#include "Registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "../ImportError.h"

namespace weft::onnx {
namespace {

const ops::Registry& registry() {
  static const ops::Registry r = [] {
    ops::Registry r;
    ops::registerElementwise(r);
    ops::registerConvolution(r);
    ops::registerPooling(r);
    ops::registerShape(r);
    ops::registerReduction(r);
    ops::registerMatMul(r);
    ops::registerEinsum(r);
    ops::registerResize(r);
    ops::registerComposed(r);
    ops::registerTransformer(r);
    ops::registerRecurrent(r);
    ops::registerQuantizeNodes(r);
    return r;
  }();
  return r;
}

const ops::Registry& quantizedRegistry() {
  static const ops::Registry r = [] {
    ops::Registry r;
    ops::registerQuantized(r, registry());
    return r;
  }();
  return r;
}

}  // namespace

const Converter* findConverter(const std::string& op) { return registry().find(op); }
const Converter* findQuantizedConverter(const std::string& op) { return quantizedRegistry().find(op); }

std::vector<std::string> convertedOperators() {
  std::vector<std::string> ops;
  for (const auto& [op, convert] : registry().all()) ops.push_back(op);
  // Rewritten into their QDQ form before conversion (QuantizedGraph.h).
  ops.insert(std::upper_bound(ops.begin(), ops.end(), "QLinearConv"), "QLinearConv");
  ops.insert(std::upper_bound(ops.begin(), ops.end(), "QLinearMatMul"), "QLinearMatMul");
  return ops;
}

nn::OperandType nnTensorType(DType type, const std::string& where) {
  switch (type) {
    case DType::kFloat: return nn::OperandType::TENSOR_FLOAT32;
    case DType::kFloat16: return nn::OperandType::TENSOR_FLOAT16;
    case DType::kInt32:
    case DType::kInt64: return nn::OperandType::TENSOR_INT32;
    case DType::kBool: return nn::OperandType::TENSOR_BOOL8;
    default:
      throw ImportError(fmt::format("{}: element type {} has no NNAPI tensor type (NNAPI has float32, float16, "
                                    "int32, bool and quantized 8-bit tensors; 8-bit integers are imported only as "
                                    "quantized values, from QuantizeLinear or QLinear operators)",
                                    where, dtypeName(type)));
  }
}

nn::OperandType nnTensorType(const ValueInfo& info, const std::string& where) {
  if (!info.quant.quantized()) return nnTensorType(info.type, where);
  switch (info.type) {
    case DType::kUint8: return nn::OperandType::TENSOR_QUANT8_ASYMM;
    case DType::kInt8:
      return info.quant.perChannel() ? nn::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL
                                     : nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    case DType::kInt32: return nn::OperandType::TENSOR_INT32;
    default:
      throw ImportError(fmt::format("{}: quantized element type {} has no NNAPI tensor type (NNAPI quantizes to "
                                    "uint8, int8 and int32)",
                                    where, dtypeName(info.type)));
  }
}

std::vector<uint32_t> nnDims(const Shape& shape) {
  // NNAPI reads a tensor without dimensions as one of unknown rank: ONNX's scalars are [1].
  if (shape.empty()) return {1};
  std::vector<uint32_t> dims;
  dims.reserve(shape.size());
  for (int64_t d : shape) {
    if (d < 0 || d > INT32_MAX) {
      throw ImportError(fmt::format("a dimension of {} in shape {} (NNAPI's are 32-bit)", d, shapeString(shape)));
    }
    dims.push_back(static_cast<uint32_t>(d));
  }
  return dims;
}

}  // namespace weft::onnx
