#include "NetworkModel.h"

#include <fmt/format.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "weft/WeftExtension.h"

namespace weft::tool {
namespace {

// Zero weights for runs that never read them (TensorValues::kZeroPages). NNAPI copies a value
// given by pointer when the model finishes (Android too, into shared memory): GNMT's 60 MB
// weight tensors became resident that way, a layer at a time. A value in a memory object is
// referenced instead, as an app's weights mapped from its model file are. One memory over a
// memfd that is never written: nothing reads these weights, so none of its pages is ever made.
// Replaced by a larger one when a tensor exceeds it; the old ones stay (models reference them).
// Null where the system offers no memfd: the caller then gives zeroPages() by pointer.
ANeuralNetworksMemory* zeroMemory(uint64_t bytes) {
  static std::mutex mutex;
  static ANeuralNetworksMemory* memory = nullptr;
  static uint64_t memoryBytes = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (memory == nullptr || bytes > memoryBytes) {
    const uint64_t size = std::max<uint64_t>(bytes, uint64_t{1} << 20);
    const int fd = memfd_create("weft-zero-weights", MFD_CLOEXEC);
    if (fd < 0) return nullptr;
    ANeuralNetworksMemory* created = nullptr;
    const bool made = ftruncate(fd, static_cast<off_t>(size)) == 0 &&
                      ANeuralNetworksMemory_createFromFd(size, PROT_READ, fd, 0, &created) == ANEURALNETWORKS_NO_ERROR;
    close(fd);  // the memory keeps a duplicate
    if (!made) return nullptr;
    memory = created;
    memoryBytes = size;
  }
  return memory;
}

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
  // A constant of `bytes` zeros that takes no memory (zeroMemory(), else zeroPages()).
  uint32_t zeroConstant(int32_t type, const std::vector<uint32_t>& dims, float scale, int32_t zeroPoint, size_t bytes) {
    ANeuralNetworksMemory* memory = zeroMemory(bytes);
    if (memory == nullptr) return constant(type, dims, scale, zeroPoint, zeroPages(bytes), bytes);
    const uint32_t index = tensor(type, dims, scale, zeroPoint);
    check(ANeuralNetworksModel_setOperandValueFromMemory(model_, static_cast<int32_t>(index), memory, 0, bytes),
          "ANeuralNetworksModel_setOperandValueFromMemory");
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
  uint32_t boolScalar(bool value) {
    const uint8_t byte = value ? 1 : 0;
    const uint32_t index = tensor(ANEURALNETWORKS_BOOL, {});
    check(ANeuralNetworksModel_setOperandValue(model_, static_cast<int32_t>(index), &byte, 1),
          "ANeuralNetworksModel_setOperandValue");
    return index;
  }
  uint32_t int32Vector(const std::vector<int32_t>& values) {
    return constant(ANEURALNETWORKS_TENSOR_INT32, {static_cast<uint32_t>(values.size())}, 0, 0, values.data(),
                    values.size() * sizeof(int32_t));
  }
  // PAD's paddings: [rank, 2].
  uint32_t int32Pairs(const std::vector<int32_t>& values) {
    return constant(ANEURALNETWORKS_TENSOR_INT32, {static_cast<uint32_t>(values.size() / 2), 2}, 0, 0, values.data(),
                    values.size() * sizeof(int32_t));
  }
  // An operation type of org.weft.accel in this model.
  int32_t extensionOperation(uint16_t code) {
    int32_t type = 0;
    check(ANeuralNetworksModel_getExtensionOperationType(model_, WEFT_EXTENSION_NAME, code, &type),
          "ANeuralNetworksModel_getExtensionOperationType");
    return type;
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

int32_t quant8Type(const Network& net) {
  return net.isSigned ? ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED : ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;
}

// The padding operands of NNAPI's implicit (scheme) or explicit (left, right, top, bottom) signature.
std::vector<uint32_t> paddingOperands(ModelWriter& w, const Padding& p) {
  switch (p.scheme) {
    case Padding::Scheme::kSame: return {w.int32Scalar(ANEURALNETWORKS_PADDING_SAME)};
    case Padding::Scheme::kValid: return {w.int32Scalar(ANEURALNETWORKS_PADDING_VALID)};
    case Padding::Scheme::kExplicit: break;
  }
  std::vector<uint32_t> operands;
  for (uint32_t v : {p.left, p.right, p.top, p.bottom}) operands.push_back(w.int32Scalar(static_cast<int32_t>(v)));
  return operands;
}

void append(std::vector<uint32_t>& operands, const std::vector<uint32_t>& more) {
  operands.insert(operands.end(), more.begin(), more.end());
}

// Appends the operands that follow layer `l`'s tensor inputs in NNAPI's signature of its op to
// `in` (weights, bias, padding, stride, activation...); returns the operation type.
int32_t appendParameters(ModelWriter& w, const Network& net, const Layer& l, std::vector<uint32_t>& in) {
  switch (l.op) {
    case LayerOp::kConv2d:
    case LayerOp::kDepthwiseConv2d:
    case LayerOp::kFullyConnected: {
      uint64_t weightBytes = 1;
      for (uint32_t d : l.weightShape) weightBytes *= d;
      in.push_back(l.weights.empty()
                       ? w.zeroConstant(quant8Type(net), l.weightShape, l.weightQuant.scale, l.weightQuant.zeroPoint,
                                        weightBytes)
                       : w.constant(quant8Type(net), l.weightShape, l.weightQuant.scale, l.weightQuant.zeroPoint,
                                    l.weights.data(), weightBytes));
      // NNAPI requires bias scale == input scale * weight scale, computed in float.
      in.push_back(w.constant(ANEURALNETWORKS_TENSOR_INT32, {static_cast<uint32_t>(l.bias.size())},
                              net.sourceQuant(l.inputs.front()).scale * l.weightQuant.scale, 0, l.bias.data(),
                              l.bias.size() * sizeof(int32_t)));
      if (l.op == LayerOp::kFullyConnected) {
        in.push_back(w.int32Scalar(l.activation));
        return ANEURALNETWORKS_FULLY_CONNECTED;
      }
      append(in, paddingOperands(w, l.padding));
      append(in, {w.int32Scalar(l.stride), w.int32Scalar(l.stride)});
      if (l.op == LayerOp::kDepthwiseConv2d) in.push_back(w.int32Scalar(l.depthMultiplier));
      in.push_back(w.int32Scalar(l.activation));
      if (l.dilation != 1) {  // the optional layout (NHWC) and dilation (width, height) operands
        append(in, {w.boolScalar(false), w.int32Scalar(l.dilation), w.int32Scalar(l.dilation)});
      }
      return l.op == LayerOp::kConv2d ? ANEURALNETWORKS_CONV_2D : ANEURALNETWORKS_DEPTHWISE_CONV_2D;
    }
    case LayerOp::kAveragePool2d:
    case LayerOp::kMaxPool2d:
      append(in, paddingOperands(w, l.padding));
      append(in, {w.int32Scalar(l.stride), w.int32Scalar(l.stride), w.int32Scalar(static_cast<int32_t>(l.filterW)),
                  w.int32Scalar(static_cast<int32_t>(l.filterH)), w.int32Scalar(l.activation)});
      return l.op == LayerOp::kMaxPool2d ? ANEURALNETWORKS_MAX_POOL_2D : ANEURALNETWORKS_AVERAGE_POOL_2D;
    case LayerOp::kAdd:
    case LayerOp::kSub:
    case LayerOp::kMul:
      in.push_back(w.int32Scalar(l.activation));
      return l.op == LayerOp::kAdd ? ANEURALNETWORKS_ADD : l.op == LayerOp::kSub ? ANEURALNETWORKS_SUB : ANEURALNETWORKS_MUL;
    case LayerOp::kRelu: return ANEURALNETWORKS_RELU;
    case LayerOp::kRelu1: return ANEURALNETWORKS_RELU1;
    case LayerOp::kRelu6: return ANEURALNETWORKS_RELU6;
    case LayerOp::kLogistic: return ANEURALNETWORKS_LOGISTIC;
    case LayerOp::kTanh: return ANEURALNETWORKS_TANH;
    case LayerOp::kPad:
      in.push_back(w.int32Pairs(l.paddings));
      return ANEURALNETWORKS_PAD;
    case LayerOp::kPadV2:
      append(in, {w.int32Pairs(l.paddings), w.int32Scalar(l.padValue)});
      return ANEURALNETWORKS_PAD_V2;
    case LayerOp::kConcatenation:
      in.push_back(w.int32Scalar(l.axis));
      return ANEURALNETWORKS_CONCATENATION;
    case LayerOp::kMean:
      append(in, {w.int32Vector(l.axes), w.int32Scalar(l.keepDims ? 1 : 0)});
      return ANEURALNETWORKS_MEAN;
    case LayerOp::kReshape:
      in.push_back(w.int32Vector(l.targetShape));
      return ANEURALNETWORKS_RESHAPE;
    case LayerOp::kBatchMatmul:
      append(in, {w.boolScalar(l.adjX), w.boolScalar(l.adjY)});
      return ANEURALNETWORKS_BATCH_MATMUL;
    case LayerOp::kTranspose:
      in.push_back(w.int32Vector(l.perm));
      return ANEURALNETWORKS_TRANSPOSE;
    case LayerOp::kSlice:
      append(in, {w.int32Vector(l.begin), w.int32Vector(l.size)});
      return ANEURALNETWORKS_SLICE;
    case LayerOp::kSoftmax:
      in.push_back(w.float32Scalar(l.beta));
      return ANEURALNETWORKS_SOFTMAX;
    case LayerOp::kLayerNorm: {
      const std::vector<uint32_t> row{static_cast<uint32_t>(l.affineGamma.size())};
      append(in, {w.constant(ANEURALNETWORKS_TENSOR_FLOAT32, row, 0, 0, l.affineGamma.data(), l.affineGamma.size() * sizeof(float)),
                  w.constant(ANEURALNETWORKS_TENSOR_FLOAT32, row, 0, 0, l.affineBeta.data(), l.affineBeta.size() * sizeof(float)),
                  w.float32Scalar(l.epsilon)});
      return w.extensionOperation(WEFT_LAYER_NORM);
    }
    case LayerOp::kGelu:
      in.push_back(w.int32Scalar(l.geluTanh ? WEFT_GELU_TANH : WEFT_GELU_EXACT));
      return w.extensionOperation(WEFT_GELU);
  }
  throw std::logic_error("unknown LayerOp");
}

}  // namespace

ModelPtr buildModel(const Network& net) {
  ANeuralNetworksModel* raw = nullptr;
  check(ANeuralNetworksModel_create(&raw), "ANeuralNetworksModel_create");
  ModelPtr model(raw);
  ModelWriter w(raw);

  std::vector<uint32_t> inputs;  // the operand of each network input
  for (size_t i = 0; i < net.inputCount(); ++i) {
    const int source = networkInput(i);
    inputs.push_back(w.tensor(quant8Type(net), net.sourceShape(source), net.sourceQuant(source).scale,
                              net.sourceQuant(source).zeroPoint));
  }
  std::vector<uint32_t> outputs;  // the operand of each layer's output, by layer index
  for (const Layer& l : net.layers) {
    std::vector<uint32_t> in;
    for (int source : l.inputs) {
      in.push_back(source < 0 ? inputs.at(static_cast<size_t>(kNetworkInput - source))
                              : outputs.at(static_cast<size_t>(source)));
    }
    const uint32_t out = w.tensor(quant8Type(net), l.outputShape, l.outputQuant.scale, l.outputQuant.zeroPoint);
    const int32_t type = appendParameters(w, net, l, in);
    w.operation(type, in, out, l.name);
    outputs.push_back(out);
  }
  check(ANeuralNetworksModel_identifyInputsAndOutputs(raw, static_cast<uint32_t>(inputs.size()), inputs.data(),
                                                      static_cast<uint32_t>(outputs.size()), outputs.data()),
        "ANeuralNetworksModel_identifyInputsAndOutputs");
  check(ANeuralNetworksModel_finish(raw), "ANeuralNetworksModel_finish");
  return model;
}

}  // namespace weft::tool
