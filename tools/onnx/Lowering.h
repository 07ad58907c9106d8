// What a converter sees while it turns one ONNX node into NNAPI operations: the values the node
// reads (constant or computed, with their types and static shapes), the builder of the NNAPI
// model, and the bookkeeping of which operand holds which ONNX value. One converter per operator
// family lives in ops/, registered by one line in ops/Registry.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "HostTensor.h"
#include "NnapiBuilder.h"
#include "Node.h"

namespace weft::onnx {

// A value's static type and shape, as shape inference and folding found them, and its
// quantization when QuantizeLinear/DequantizeLinear nodes give it one (ops/Quantized.cpp).
struct ValueInfo {
  ValueInfo() = default;
  ValueInfo(DType type_, Shape shape_, Quantization quant_ = {})
      : type(type_), shape(std::move(shape_)), quant(std::move(quant_)) {}
  DType type = DType::kUndefined;
  Shape shape;
  Quantization quant;
};

class Lowering {
 public:
  virtual ~Lowering() = default;

  virtual bool isConstant(const std::string& value) const = 0;
  virtual const HostTensor& constant(const std::string& value) const = 0;  // isConstant() only
  virtual const ValueInfo& info(const std::string& value) const = 0;      // every value

  // The NNAPI operand holding `value`: computed values by their producer, constants added to the
  // model on first use in the NNAPI type their ONNX type maps to.
  virtual uint32_t operand(const std::string& value) = 0;
  // A constant added as given (weights rearranged by a converter, parameters it computed).
  virtual uint32_t constantOperand(const HostTensor& tensor, const std::string& name) = 0;
  // The same, taking the tensor's bytes instead of copying them (a computed tensor, e.g. weights
  // with a batch norm folded in).
  virtual uint32_t constantOperand(HostTensor&& tensor, const std::string& name) = 0;
  // A new operand for output `i` of `node`, of the output's inferred type and shape, registered
  // as the value's operand.
  virtual uint32_t output(const Node& node, size_t i) = 0;
  // A temporary of the given NNAPI type and shape.
  virtual uint32_t temporary(nn::OperandType type, const Shape& shape, const std::string& name) = 0;
  // Makes `value` be held by an existing operand (Identity, Dropout at inference).
  virtual void alias(const std::string& value, uint32_t operand) = 0;

  // A value a converter makes up (a view of a node's input or output in another shape): known by
  // its info, held by `operand` (computed) or a constant.
  virtual void defineValue(const std::string& value, const ValueInfo& info, uint32_t operand) = 0;
  virtual void defineConstant(const std::string& value, HostTensor tensor) = 0;
  // Registers the info of a value a converter will produce with output() on a node of its own.
  virtual void defineInfo(const std::string& value, const ValueInfo& info) = 0;

  virtual NnapiBuilder& nn() = 0;
  // Whether org.weft.accel's operations may be used (ImportOptions::weftExtensions).
  virtual bool weftExtensions() const = 0;
  // The NNAPI fuse code the node being converted takes over from a Relu/Clip it absorbed
  // (quantized models, QuantizedGraph.h); 0 (none) otherwise.
  virtual int32_t fusedActivation(const Node& node) const = 0;

  // Adds an operation on behalf of the node being converted (the report maps nodes to them).
  virtual void add(nn::OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) = 0;
};

// The NNAPI type of a computed ONNX value: float -> TENSOR_FLOAT32, float16 -> TENSOR_FLOAT16,
// int32 and int64 -> TENSOR_INT32 (NNAPI has no 64-bit integers), bool -> TENSOR_BOOL8; other
// types are an ImportError naming `where`.
nn::OperandType nnTensorType(DType type, const std::string& where);
// The NNAPI type of a value with its quantization: uint8 -> TENSOR_QUANT8_ASYMM, int8 ->
// TENSOR_QUANT8_ASYMM_SIGNED (TENSOR_QUANT8_SYMM_PER_CHANNEL per channel), int32 -> TENSOR_INT32
// with a scale (biases); the types above when not quantized.
nn::OperandType nnTensorType(const ValueInfo& info, const std::string& where);
std::vector<uint32_t> nnDims(const Shape& shape);

using Converter = std::function<void(const Node&, Lowering&)>;
// The converter of an operator of the default domain, or null when it has none.
const Converter* findConverter(const std::string& op);
// The converter of a node QuantizedGraph.h marks to run quantized, or null.
const Converter* findQuantizedConverter(const std::string& op);
// Every operator with a converter, for docs and error messages.
std::vector<std::string> convertedOperators();

}  // namespace weft::onnx
