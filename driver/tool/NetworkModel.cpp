#include "NetworkModel.h"

#include <fmt/format.h>

#include <vector>

namespace weft::tool {
namespace {

class ModelWriter {
 public:
  explicit ModelWriter(ANeuralNetworksModel* model) : model_(model) {}

  uint32_t tensor(int32_t type, const std::vector<uint32_t>& dims, float scale = 0, int32_t zeroPoint = 0) {
    ANeuralNetworksOperandType t{type, static_cast<uint32_t>(dims.size()), dims.data(), scale, zeroPoint};
    check(ANeuralNetworksModel_addOperand(model_, &t), "ANeuralNetworksModel_addOperand");
    return next_++;
  }
  uint32_t constant(int32_t type, const std::vector<uint32_t>& dims, float scale, int32_t zeroPoint,
                    const void* data, size_t bytes) {
    const uint32_t index = tensor(type, dims, scale, zeroPoint);
    check(ANeuralNetworksModel_setOperandValue(model_, static_cast<int32_t>(index), data, bytes),
          "ANeuralNetworksModel_setOperandValue");
    return index;
  }
  uint32_t int32Scalar(int32_t value) {
    const uint32_t index = tensor(ANEURALNETWORKS_INT32, {});
    check(ANeuralNetworksModel_setOperandValue(model_, static_cast<int32_t>(index), &value, sizeof(value)),
          "ANeuralNetworksModel_setOperandValue");
    return index;
  }
  uint32_t float32Scalar(float value) {
    const uint32_t index = tensor(ANEURALNETWORKS_FLOAT32, {});
    check(ANeuralNetworksModel_setOperandValue(model_, static_cast<int32_t>(index), &value, sizeof(value)),
          "ANeuralNetworksModel_setOperandValue");
    return index;
  }
  void operation(int32_t type, const std::vector<uint32_t>& inputs, uint32_t output, const std::string& layer) {
    check(ANeuralNetworksModel_addOperation(model_, type, static_cast<uint32_t>(inputs.size()), inputs.data(), 1,
                                            &output),
          fmt::format("ANeuralNetworksModel_addOperation({})", layer));
  }

 private:
  ANeuralNetworksModel* model_;
  uint32_t next_ = 0;
};

}  // namespace

ModelPtr buildModel(const Network& net) {
  ANeuralNetworksModel* raw = nullptr;
  check(ANeuralNetworksModel_create(&raw), "ANeuralNetworksModel_create");
  ModelPtr model(raw);
  ModelWriter w(raw);

  const uint32_t input = w.tensor(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, net.inputShape, net.inputQuant.scale,
                                  net.inputQuant.zeroPoint);
  uint32_t current = input;
  float inScale = net.inputQuant.scale;
  std::vector<uint32_t> outputs;
  for (const Layer& l : net.layers) {
    const uint32_t out = w.tensor(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, l.outputShape, l.outputQuant.scale,
                                  l.outputQuant.zeroPoint);
    const int32_t padding = l.samePadding ? ANEURALNETWORKS_PADDING_SAME : ANEURALNETWORKS_PADDING_VALID;
    switch (l.op) {
      case LayerOp::kConv2d:
      case LayerOp::kDepthwiseConv2d:
      case LayerOp::kFullyConnected: {
        const uint32_t weights = w.constant(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, l.weightShape, l.weightQuant.scale,
                                            l.weightQuant.zeroPoint, l.weights.data(), l.weights.size());
        // NNAPI requires bias scale == input scale * weight scale, computed in float.
        const uint32_t bias = w.constant(ANEURALNETWORKS_TENSOR_INT32, {static_cast<uint32_t>(l.bias.size())},
                                         inScale * l.weightQuant.scale, 0, l.bias.data(),
                                         l.bias.size() * sizeof(int32_t));
        if (l.op == LayerOp::kFullyConnected) {
          w.operation(ANEURALNETWORKS_FULLY_CONNECTED, {current, weights, bias, w.int32Scalar(l.activation)}, out,
                      l.name);
        } else if (l.op == LayerOp::kConv2d) {
          w.operation(ANEURALNETWORKS_CONV_2D,
                      {current, weights, bias, w.int32Scalar(padding), w.int32Scalar(l.stride),
                       w.int32Scalar(l.stride), w.int32Scalar(l.activation)},
                      out, l.name);
        } else {
          w.operation(ANEURALNETWORKS_DEPTHWISE_CONV_2D,
                      {current, weights, bias, w.int32Scalar(padding), w.int32Scalar(l.stride),
                       w.int32Scalar(l.stride), w.int32Scalar(1), w.int32Scalar(l.activation)},
                      out, l.name);
        }
        break;
      }
      case LayerOp::kAveragePool2d:
        w.operation(ANEURALNETWORKS_AVERAGE_POOL_2D,
                    {current, w.int32Scalar(padding), w.int32Scalar(l.stride), w.int32Scalar(l.stride),
                     w.int32Scalar(static_cast<int32_t>(l.filterW)), w.int32Scalar(static_cast<int32_t>(l.filterH)),
                     w.int32Scalar(l.activation)},
                    out, l.name);
        break;
      case LayerOp::kSoftmax:
        w.operation(ANEURALNETWORKS_SOFTMAX, {current, w.float32Scalar(l.beta)}, out, l.name);
        break;
    }
    outputs.push_back(out);
    current = out;
    inScale = l.outputQuant.scale;
  }
  check(ANeuralNetworksModel_identifyInputsAndOutputs(raw, 1, &input, static_cast<uint32_t>(outputs.size()),
                                                      outputs.data()),
        "ANeuralNetworksModel_identifyInputsAndOutputs");
  check(ANeuralNetworksModel_finish(raw), "ANeuralNetworksModel_finish");
  return model;
}

}  // namespace weft::tool
