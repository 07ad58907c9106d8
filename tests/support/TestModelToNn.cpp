#include "TestModelToNn.h"

#include <cstring>

namespace weft::test {

namespace {

using LifeTime = nn::Operand::LifeTime;

constexpr size_t align(size_t offset, size_t alignment) { return (offset + alignment - 1) / alignment * alignment; }

// Lays out byte blocks one after the other at aligned offsets.
struct Layout {
  size_t size = 0;
  size_t add(size_t bytes, size_t alignment) {
    const size_t offset = align(size, alignment);
    size = offset + bytes;
    return offset;
  }
};

nn::Subgraph convertSubgraph(const TestSubgraph& sg, nn::Model& model, Layout& referenceLayout,
                             std::vector<std::pair<size_t, const TestBuffer*>>& referenceValues) {
  nn::Subgraph out;
  out.inputIndexes = sg.inputIndexes;
  out.outputIndexes = sg.outputIndexes;
  for (const TestOperation& op : sg.operations) out.operations.push_back({op.type, op.inputs, op.outputs});
  for (const TestOperand& t : sg.operands) {
    nn::Operand o;
    o.type = t.type;
    o.dimensions = t.dimensions;
    o.scale = t.scale;
    o.zeroPoint = t.zeroPoint;
    o.lifetime = t.lifetime;
    if (t.type == nn::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) o.extraParams = t.channelQuant;
    switch (t.lifetime) {
      case LifeTime::CONSTANT_COPY:
        if (t.data.empty()) {
          o.lifetime = LifeTime::NO_VALUE;  // CTS passes (nullptr, 0): no value
          break;
        }
        {
          const size_t offset = align(model.operandValues.size(), 8);
          model.operandValues.resize(offset + t.data.size());
          std::memcpy(model.operandValues.data() + offset, t.data.data(), t.data.size());
          o.location.offset = static_cast<uint32_t>(offset);
          o.location.length = static_cast<uint32_t>(t.data.size());
        }
        break;
      case LifeTime::CONSTANT_REFERENCE: {
        const size_t offset = referenceLayout.add(t.data.size(), 4);
        referenceValues.emplace_back(offset, &t.data);
        o.location.poolIndex = 0;
        o.location.offset = static_cast<uint32_t>(offset);
        o.location.length = static_cast<uint32_t>(t.data.size());
        break;
      }
      case LifeTime::SUBGRAPH:
        o.location.offset = t.data.size() >= sizeof(uint32_t) ? t.data.at<uint32_t>(0) : UINT32_MAX;
        break;
      default:
        break;
    }
    out.operands.push_back(std::move(o));
  }
  return out;
}

}  // namespace

nn::Model createModel(const TestModel& testModel) {
  nn::Model model;
  Layout referenceLayout;
  std::vector<std::pair<size_t, const TestBuffer*>> referenceValues;
  model.main = convertSubgraph(testModel.main, model, referenceLayout, referenceValues);
  for (const TestSubgraph& sg : testModel.referenced) {
    model.referenced.push_back(convertSubgraph(sg, model, referenceLayout, referenceValues));
  }
  if (!referenceValues.empty()) {
    auto pool = std::make_shared<VectorMemory>(referenceLayout.size);
    for (const auto& [offset, buffer] : referenceValues) std::memcpy(pool->data() + offset, buffer->data(), buffer->size());
    model.pools.push_back(std::move(pool));
  }
  model.relaxComputationFloat32toFloat16 = testModel.isRelaxed;
  return model;
}

TestRequest::TestRequest(const TestModel& testModel) {
  const TestSubgraph& main = testModel.main;
  Layout inputLayout, outputLayout;
  std::vector<size_t> inputOffsets, outputOffsets;
  for (uint32_t index : main.inputIndexes) inputOffsets.push_back(inputLayout.add(main.operands[index].data.size(), 64));
  std::vector<size_t> outputSizes;
  for (uint32_t index : main.outputIndexes) {
    const TestOperand& o = main.operands[index];
    // Room for the expected values; zero-sized outputs still get one byte, as in CTS.
    const size_t bytes = std::max<size_t>(nn::sizeOfData(o.type, o.dimensions), 1);
    outputSizes.push_back(bytes);
    outputOffsets.push_back(outputLayout.add(bytes, 64));
  }
  inputPool_ = std::make_shared<VectorMemory>(std::max<size_t>(inputLayout.size, 1));
  outputPool_ = std::make_shared<VectorMemory>(std::max<size_t>(outputLayout.size, 1));
  request_.pools = {inputPool_, outputPool_};
  for (size_t i = 0; i < main.inputIndexes.size(); ++i) {
    const TestOperand& o = main.operands[main.inputIndexes[i]];
    nn::RequestArgument arg;
    if (o.data.empty()) {
      arg.lifetime = nn::RequestArgument::LifeTime::NO_VALUE;  // omitted optional input
    } else {
      arg.lifetime = nn::RequestArgument::LifeTime::POOL;
      arg.location.poolIndex = 0;
      arg.location.offset = static_cast<uint32_t>(inputOffsets[i]);
      arg.location.length = static_cast<uint32_t>(o.data.size());
      std::memcpy(inputPool_->data() + inputOffsets[i], o.data.data(), o.data.size());
    }
    request_.inputs.push_back(std::move(arg));
  }
  for (size_t i = 0; i < main.outputIndexes.size(); ++i) {
    nn::RequestArgument arg;
    arg.lifetime = nn::RequestArgument::LifeTime::POOL;
    arg.location.poolIndex = 1;
    arg.location.offset = static_cast<uint32_t>(outputOffsets[i]);
    arg.location.length = static_cast<uint32_t>(outputSizes[i]);
    request_.outputs.push_back(std::move(arg));
  }
}

TestBuffer TestRequest::output(size_t i) const {
  const nn::RequestArgument& arg = request_.outputs.at(i);
  return TestBuffer(outputPool_->data() + arg.location.offset, arg.location.length);
}

}  // namespace weft::test
