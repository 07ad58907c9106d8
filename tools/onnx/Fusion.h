// The transformer layers exporters spell out in elementary operators, found and put back together
// (as ONNX Runtime's fusions do), so that each becomes one operation of org.weft.accel:
//  - GELU: torch.nn.GELU() and BERT's gelu write x * 0.5 * (1 + erf(x / sqrt 2)) as Div (or Mul by
//    1/sqrt 2), Erf, Add 1, and two Muls by x and 0.5 in any grouping; GELU(approximate='tanh') and
//    GPT-2's gelu_new write x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) with x^3 as Pow
//    or two Muls. Each chain becomes one node Gelu (ONNX opset 20's operator; attribute
//    approximate "none" or "tanh").
//  - Layer normalization over the last axis, as exporters before opset 17 write it: ReduceMean,
//    Sub, Pow 2 (or Mul by itself), ReduceMean, Add epsilon, Sqrt, Div, then Mul by a constant
//    gamma and Add a constant beta (each optional). It becomes one node LayerNormalization
//    (axis -1, epsilon) with gamma and beta as [C] constants.
//  - A masked softmax: Where(mask, fill, x) (or Where(mask, x, fill)) of a constant mask and one
//    constant fill of -1e4 or below (masked_fill(mask, -1e4), -1e9, finfo.min) read only by a
//    Softmax along an axis on which no line is masked whole becomes Add(x, M), M holding the fill
//    where the mask fills and 0 elsewhere: the softmax's exp of either underflows to exactly 0
//    (the fill is 1e4 below the line's unmasked maximum, exp(-104) already 0 in float32), so the
//    outputs are the same, and int8 quantizes an ADD of a mask (PostTraining.h) where SELECT kept
//    the fill's range and failed the softmax.
// A chain is fused only when each value inside it has no reader outside it and is no graph
// output, its constants are the formula's (within float rounding), and its values are float: what
// is left is converted node by node as before.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "HostTensor.h"
#include "Lowering.h"

namespace weft::onnx {

struct FusionGraph {
  std::vector<::onnx::NodeProto>& nodes;  // in graph order; a fused chain's last node is rewritten
  std::vector<bool>& folded;              // the chain's other nodes become folded
  std::map<std::string, HostTensor>& constants;
  std::map<std::string, ValueInfo>& infos;
  std::set<std::string> graphOutputs;
};

struct FusionCounts {
  int gelu = 0, layerNorm = 0, maskedSoftmax = 0;
};

FusionCounts fuseTransformerLayers(FusionGraph graph);

}  // namespace weft::onnx
