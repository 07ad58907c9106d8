// Quantized ONNX models as NNAPI's quantized operations. Two forms reach the importer:
// - QDQ: float operators between DequantizeLinear (on their inputs) and QuantizeLinear (on their
//   output) nodes, as ONNX Runtime's quantizer and PyTorch's and TensorRT's exporters write them;
// - QOperator: QLinearConv and QLinearMatMul, which carry their quantization as inputs.
// QOperator nodes are first rewritten into their QDQ form. Then every float operator whose data
// inputs all come from DequantizeLinear and whose output goes to one QuantizeLinear (through a
// Relu or Clip the operation fuses, for the arithmetic ones) is marked for the quantized
// converters: it reads the quantized values directly and writes the QuantizeLinear's output,
// so no float is left between two quantized operations. The QuantizeLinear/DequantizeLinear
// nodes left (a float model input, a float output, an operator NNAPI cannot run quantized) are
// NNAPI QUANTIZE/DEQUANTIZE operations, or are folded when their input is a constant.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "HostTensor.h"
#include "Lowering.h"

namespace onnx {
class NodeProto;
}

namespace weft::onnx {

// The importer's graph as the pass rewrites it (Importer.cpp owns these).
struct QuantizedGraphView {
  std::vector<::onnx::NodeProto>& nodes;  // in graph order
  std::vector<bool>& folded;              // per node: evaluated at import or absorbed
  std::map<std::string, HostTensor>& constants;
  std::map<std::string, ValueInfo>& infos;
  std::set<std::string> graphOutputs;
  int64_t opset = 0;
  std::string where;  // the model's file, for errors
};

struct QuantizedPlan {
  std::set<int> nodes;                      // indices of the nodes the quantized converters lower
  std::map<int, int32_t> fusedActivation;  // NNAPI fuse code of a node that absorbed a Relu/Clip
};

// Rewrites QOperator nodes, folds QuantizeLinear/DequantizeLinear over constants, gives the
// quantized values their Quantization, and decides which nodes run quantized. ImportError on
// quantization NNAPI cannot express (a computed scale, a per-channel activation, 16-bit types,
// one value read with two quantizations).
QuantizedPlan planQuantized(QuantizedGraphView graph);

// real = (q - zeroPoint) * scale, per tensor or per channel (quant.axis).
HostTensor dequantize(const HostTensor& q, const Quantization& quant);
// q = saturate(round_half_even(real / scale) + zeroPoint) into `type` (uint8, int8, int32).
HostTensor quantize(const HostTensor& real, const Quantization& quant, DType type);

}  // namespace weft::onnx
