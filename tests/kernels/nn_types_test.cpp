// The canonical types' own utilities: SHA-256 against the FIPS 180-4 examples, and the model
// serialization (a round trip, and every truncation or corruption of the bytes read back as an
// error or a model whose locations are in bounds, never a crash).
#include <gtest/gtest.h>

#include <string>

#include "weft/nn/ModelSerialization.h"
#include "weft/nn/Sha256.h"

namespace weft::nn {
namespace {

std::string hex(const Sha256Digest& digest) {
  std::string s;
  for (uint8_t byte : digest) {
    s += "0123456789abcdef"[byte >> 4];
    s += "0123456789abcdef"[byte & 15];
  }
  return s;
}

TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(hex(sha256("", 0)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256("abc", 3)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(hex(sha256(twoBlocks.data(), twoBlocks.size())),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 millionA;
  const std::string thousand(1000, 'a');
  for (int i = 0; i < 1000; ++i) millionA.update(thousand.data(), thousand.size());
  EXPECT_EQ(hex(millionA.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

class HostPool final : public Memory {
 public:
  explicit HostPool(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  uint8_t* data() override { return bytes_.data(); }
  size_t size() const override { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

// Every lifetime and kind of extra parameters, a referenced subgraph and a pool.
Model sampleModel() {
  Model model;
  model.relaxComputationFloat32toFloat16 = true;
  model.extensionNameToPrefix = {{"org.weft.accel", 1}};
  Operand input;
  input.type = OperandType::TENSOR_FLOAT32;
  input.dimensions = {2, 3};
  input.lifetime = Operand::LifeTime::SUBGRAPH_INPUT;
  Operand copy = input;
  copy.lifetime = Operand::LifeTime::CONSTANT_COPY;
  copy.location = {nullptr, 0, 0, 24};
  Operand reference = input;
  reference.type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  reference.lifetime = Operand::LifeTime::CONSTANT_REFERENCE;
  reference.location = {nullptr, 0, 2, 6};
  reference.extraParams = SymmPerChannelQuantParams{{0.5f, 0.25f}, 0};
  Operand extension = input;
  extension.type = static_cast<OperandType>(0x10000);
  extension.extraParams = std::vector<uint8_t>{1, 2, 3, 4};
  extension.lifetime = Operand::LifeTime::SUBGRAPH_OUTPUT;
  Operand subgraph;
  subgraph.type = OperandType::SUBGRAPH;
  subgraph.lifetime = Operand::LifeTime::SUBGRAPH;
  model.main.operands = {input, copy, reference, extension, subgraph};
  model.main.operations = {{OperationType::ADD, {0, 1, 2}, {3}}, {static_cast<OperationType>(0x10000), {3, 4}, {3}}};
  model.main.inputIndexes = {0};
  model.main.outputIndexes = {3};
  Subgraph referenced;
  referenced.operands = {input};
  referenced.inputIndexes = {0};
  model.referenced = {referenced};
  model.operandValues.assign(24, 7);
  model.pools = {std::make_shared<HostPool>(std::vector<uint8_t>{9, 9, 1, 2, 3, 4, 5, 6})};
  return model;
}

TEST(ModelSerialization, RoundTrip) {
  const Model model = sampleModel();
  Result<SerializedModel> bytes = serializeModel(model);
  ASSERT_TRUE(bytes.ok());
  Result<Model> back = deserializeModel(bytes->structure, bytes->constants);
  ASSERT_TRUE(back.ok()) << back.error().message;
  Result<SerializedModel> again = serializeModel(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->structure, bytes->structure);  // deterministic, nothing lost
  EXPECT_EQ(again->constants, bytes->constants);
  EXPECT_EQ(back->extensionNameToPrefix[0].name, "org.weft.accel");
  EXPECT_EQ(std::get<std::vector<uint8_t>>(back->main.operands[3].extraParams), (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(back->pools[0]->data()[2], 1);
}

TEST(ModelSerialization, PointerOperandsAreRefused) {
  Model model = sampleModel();
  static const float values[6] = {};
  model.main.operands[1].lifetime = Operand::LifeTime::POINTER;
  model.main.operands[1].location.pointer = values;
  EXPECT_FALSE(serializeModel(model).ok());
}

TEST(ModelSerialization, DamagedBytesAreErrorsNotCrashes) {
  Result<SerializedModel> bytes = serializeModel(sampleModel());
  ASSERT_TRUE(bytes.ok());
  for (size_t length = 0; length < bytes->structure.size(); ++length) {
    const std::vector<uint8_t> truncated(bytes->structure.begin(), bytes->structure.begin() + length);
    EXPECT_FALSE(deserializeModel(truncated, bytes->constants).ok()) << length;
  }
  for (size_t length = 0; length < bytes->constants.size(); ++length) {
    const std::vector<uint8_t> truncated(bytes->constants.begin(), bytes->constants.begin() + length);
    EXPECT_FALSE(deserializeModel(bytes->structure, truncated).ok()) << length;
  }
  // Any single byte changed: either refused, or a model whose constants lie within its bytes.
  for (size_t at = 0; at < bytes->structure.size(); ++at) {
    std::vector<uint8_t> changed = bytes->structure;
    changed[at] ^= 0xA5;
    Result<Model> model = deserializeModel(changed, bytes->constants);
    if (!model.ok()) continue;
    for (const Operand& operand : model->main.operands) {
      if (operand.lifetime == Operand::LifeTime::CONSTANT_COPY) {
        EXPECT_LE(size_t{operand.location.offset} + operand.location.length, model->operandValues.size());
      }
    }
  }
}

}  // namespace
}  // namespace weft::nn
