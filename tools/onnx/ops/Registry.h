// The converters by operator: each family file (ops/*.cpp) registers its operators with one
// line each in its register function; Registry.cpp calls the families.
#pragma once

#include <map>
#include <string>

#include "../Lowering.h"

namespace weft::onnx::ops {

class Registry {
 public:
  void add(const std::string& op, Converter convert) { converters_[op] = std::move(convert); }
  const Converter* find(const std::string& op) const {
    auto it = converters_.find(op);
    return it == converters_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, Converter>& all() const { return converters_; }

 private:
  std::map<std::string, Converter> converters_;
};

void registerElementwise(Registry& r);
void registerConvolution(Registry& r);
void registerPooling(Registry& r);
void registerShape(Registry& r);
void registerReduction(Registry& r);
void registerMatMul(Registry& r);
// Einsum as the matrix products, sums and transposes its equation spells.
void registerEinsum(Registry& r);
void registerResize(Registry& r);
void registerComposed(Registry& r);
// LayerNormalization and Gelu, onto org.weft.accel when the import may use it.
void registerTransformer(Registry& r);
// LSTM, GRU and RNN unrolled over their sequence into the operations of each step.
void registerRecurrent(Registry& r);
// QuantizeLinear and DequantizeLinear where a float part meets a quantized one.
void registerQuantizeNodes(Registry& r);
// The converters of the nodes QuantizedGraph.h marks, some shared with the float registry.
void registerQuantized(Registry& quantized, const Registry& floats);

}  // namespace weft::onnx::ops
