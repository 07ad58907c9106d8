#include "weft/nn/ModelSerialization.h"

#include <cstring>
#include <limits>
#include <string>

namespace weft::nn {
namespace {

// Ends the structure: a reader that does not find it read a different format.
constexpr uint32_t kStructureEnd = 0x57454654;  // "WEFT"

class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(v); }
  void u16(uint16_t v) { raw(v, 2); }
  void u32(uint32_t v) { raw(v, 4); }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void u64(uint64_t v) { raw(v, 8); }
  void f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    u32(bits);
  }
  void bytes(const uint8_t* data, size_t size) {
    u64(size);
    out_.insert(out_.end(), data, data + size);
  }
  void string(const std::string& s) { bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
  void indexes(const std::vector<uint32_t>& list) {
    u32(static_cast<uint32_t>(list.size()));
    for (uint32_t v : list) u32(v);
  }

 private:
  void raw(uint64_t v, int size) {
    for (int i = 0; i < size; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t>& out_;
};

class Reader {
 public:
  explicit Reader(const std::vector<uint8_t>& in) : in_(in) {}
  Result<uint64_t> raw(int size) {
    NN_RET_CHECK_LE(size_t(size), in_.size() - position_) << "the data ends early";
    uint64_t v = 0;
    for (int i = 0; i < size; ++i) v |= uint64_t{in_[position_ + i]} << (8 * i);
    position_ += size;
    return v;
  }
  Result<uint32_t> u32() {
    auto v = raw(4);
    if (!v.ok()) return v.error();
    return static_cast<uint32_t>(*v);
  }
  // A count of items of at least `itemBytes` bytes each: no larger than what is left to read.
  Result<uint32_t> count(size_t itemBytes) {
    auto n = u32();
    if (!n.ok()) return n.error();
    NN_RET_CHECK_LE(size_t{*n} * itemBytes, in_.size() - position_) << "a count of " << *n << " exceeds the data";
    return *n;
  }
  Result<std::vector<uint8_t>> bytes() {
    auto size = raw(8);
    if (!size.ok()) return size.error();
    NN_RET_CHECK_LE(*size, in_.size() - position_) << "a block of " << *size << " bytes exceeds the data";
    std::vector<uint8_t> out(in_.begin() + static_cast<std::ptrdiff_t>(position_),
                             in_.begin() + static_cast<std::ptrdiff_t>(position_ + *size));
    position_ += *size;
    return out;
  }
  Result<std::vector<uint32_t>> indexes() {
    auto n = count(4);
    if (!n.ok()) return n.error();
    std::vector<uint32_t> list(*n);
    for (uint32_t& v : list) {
      auto value = u32();
      if (!value.ok()) return value.error();
      v = *value;
    }
    return list;
  }
  bool atEnd() const { return position_ == in_.size(); }

 private:
  const std::vector<uint8_t>& in_;
  size_t position_ = 0;
};

// A pool read back from a cache: the bytes, owned.
class HostMemory final : public Memory {
 public:
  explicit HostMemory(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  uint8_t* data() override { return bytes_.empty() ? nullptr : bytes_.data(); }
  size_t size() const override { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

enum class ExtraParamsTag : uint8_t { kNone = 0, kPerChannel = 1, kExtension = 2 };

void writeSubgraph(Writer& w, const Subgraph& subgraph) {
  w.u32(static_cast<uint32_t>(subgraph.operands.size()));
  for (const Operand& operand : subgraph.operands) {
    w.i32(static_cast<int32_t>(operand.type));
    w.indexes(operand.dimensions);
    w.f32(operand.scale);
    w.i32(operand.zeroPoint);
    w.i32(static_cast<int32_t>(operand.lifetime));
    w.u32(operand.location.poolIndex);
    w.u32(operand.location.offset);
    w.u32(operand.location.length);
    if (const auto* perChannel = std::get_if<SymmPerChannelQuantParams>(&operand.extraParams)) {
      w.u8(static_cast<uint8_t>(ExtraParamsTag::kPerChannel));
      w.u32(perChannel->channelDim);
      w.u32(static_cast<uint32_t>(perChannel->scales.size()));
      for (float scale : perChannel->scales) w.f32(scale);
    } else if (const auto* data = std::get_if<std::vector<uint8_t>>(&operand.extraParams)) {
      w.u8(static_cast<uint8_t>(ExtraParamsTag::kExtension));
      w.bytes(data->data(), data->size());
    } else {
      w.u8(static_cast<uint8_t>(ExtraParamsTag::kNone));
    }
  }
  w.u32(static_cast<uint32_t>(subgraph.operations.size()));
  for (const Operation& operation : subgraph.operations) {
    w.i32(static_cast<int32_t>(operation.type));
    w.indexes(operation.inputs);
    w.indexes(operation.outputs);
  }
  w.indexes(subgraph.inputIndexes);
  w.indexes(subgraph.outputIndexes);
}

Result<ExtraParams> readExtraParams(Reader& r) {
  auto tag = r.raw(1);
  if (!tag.ok()) return tag.error();
  switch (static_cast<ExtraParamsTag>(*tag)) {
    case ExtraParamsTag::kNone:
      return ExtraParams{};
    case ExtraParamsTag::kPerChannel: {
      SymmPerChannelQuantParams params;
      auto channelDim = r.u32();
      if (!channelDim.ok()) return channelDim.error();
      params.channelDim = *channelDim;
      auto n = r.count(4);
      if (!n.ok()) return n.error();
      params.scales.resize(*n);
      for (float& scale : params.scales) {
        auto bits = r.u32();
        if (!bits.ok()) return bits.error();
        std::memcpy(&scale, &*bits, sizeof(scale));
      }
      return ExtraParams{std::move(params)};
    }
    case ExtraParamsTag::kExtension: {
      auto data = r.bytes();
      if (!data.ok()) return data.error();
      return ExtraParams{std::move(data).value()};
    }
  }
  return NN_ERROR(BAD_DATA) << "unknown extra-parameters tag " << *tag;
}

Result<Operand> readOperand(Reader& r) {
  Operand operand;
  auto type = r.u32();
  if (!type.ok()) return type.error();
  operand.type = static_cast<OperandType>(*type);
  auto dims = r.indexes();
  if (!dims.ok()) return dims.error();
  operand.dimensions = std::move(dims).value();
  auto scale = r.u32();
  if (!scale.ok()) return scale.error();
  std::memcpy(&operand.scale, &*scale, sizeof(float));
  auto zeroPoint = r.u32();
  if (!zeroPoint.ok()) return zeroPoint.error();
  operand.zeroPoint = static_cast<int32_t>(*zeroPoint);
  auto lifetime = r.u32();
  if (!lifetime.ok()) return lifetime.error();
  NN_RET_CHECK_LE(*lifetime, static_cast<uint32_t>(Operand::LifeTime::SUBGRAPH)) << "bad lifetime " << *lifetime;
  operand.lifetime = static_cast<Operand::LifeTime>(*lifetime);
  for (uint32_t* field : {&operand.location.poolIndex, &operand.location.offset, &operand.location.length}) {
    auto value = r.u32();
    if (!value.ok()) return value.error();
    *field = *value;
  }
  auto extra = readExtraParams(r);
  if (!extra.ok()) return extra.error();
  operand.extraParams = std::move(extra).value();
  return operand;
}

Result<Subgraph> readSubgraph(Reader& r) {
  Subgraph subgraph;
  auto operands = r.count(30);  // an operand takes at least 30 bytes
  if (!operands.ok()) return operands.error();
  for (uint32_t i = 0; i < *operands; ++i) {
    auto operand = readOperand(r);
    if (!operand.ok()) return operand.error();
    subgraph.operands.push_back(std::move(operand).value());
  }
  auto operations = r.count(12);
  if (!operations.ok()) return operations.error();
  for (uint32_t i = 0; i < *operations; ++i) {
    Operation operation;
    auto type = r.u32();
    if (!type.ok()) return type.error();
    operation.type = static_cast<OperationType>(*type);
    auto inputs = r.indexes();
    if (!inputs.ok()) return inputs.error();
    auto outputs = r.indexes();
    if (!outputs.ok()) return outputs.error();
    operation.inputs = std::move(inputs).value();
    operation.outputs = std::move(outputs).value();
    for (const std::vector<uint32_t>* list : {&operation.inputs, &operation.outputs}) {
      for (uint32_t index : *list) NN_RET_CHECK_LT(index, subgraph.operands.size()) << "operand index out of range";
    }
    subgraph.operations.push_back(std::move(operation));
  }
  for (std::vector<uint32_t>* list : {&subgraph.inputIndexes, &subgraph.outputIndexes}) {
    auto read = r.indexes();
    if (!read.ok()) return read.error();
    *list = std::move(read).value();
    for (uint32_t index : *list) NN_RET_CHECK_LT(index, subgraph.operands.size()) << "operand index out of range";
  }
  return subgraph;
}

// Every constant lies inside the bytes it names, every model reference names a subgraph.
Status checkLocations(const Model& model, const Subgraph& subgraph) {
  for (const Operand& operand : subgraph.operands) {
    const DataLocation& at = operand.location;
    const uint64_t end = uint64_t{at.offset} + at.length;
    switch (operand.lifetime) {
      case Operand::LifeTime::CONSTANT_COPY:
        NN_RET_CHECK_LE(end, model.operandValues.size()) << "a constant lies outside the operand values";
        break;
      case Operand::LifeTime::CONSTANT_REFERENCE:
        NN_RET_CHECK_LT(at.poolIndex, model.pools.size()) << "a constant names a missing pool";
        NN_RET_CHECK_LE(end, model.pools[at.poolIndex]->size()) << "a constant lies outside its pool";
        break;
      case Operand::LifeTime::SUBGRAPH:
        NN_RET_CHECK_LT(at.offset, model.referenced.size()) << "a model reference names a missing subgraph";
        break;
      case Operand::LifeTime::POINTER:
        return NN_ERROR(BAD_DATA) << "a serialized model has no POINTER operands";
      default:
        break;
    }
  }
  return {};
}

}  // namespace

Result<SerializedModel> serializeModel(const Model& model) {
  SerializedModel out;
  Writer w(out.structure);
  w.u32(model.relaxComputationFloat32toFloat16 ? 1 : 0);
  w.u32(static_cast<uint32_t>(model.extensionNameToPrefix.size()));
  for (const ExtensionNameAndPrefix& entry : model.extensionNameToPrefix) {
    w.string(entry.name);
    w.u16(entry.prefix);
  }
  w.u32(static_cast<uint32_t>(model.referenced.size()));
  std::vector<const Subgraph*> subgraphs{&model.main};
  for (const Subgraph& subgraph : model.referenced) subgraphs.push_back(&subgraph);
  for (const Subgraph* subgraph : subgraphs) {
    for (const Operand& operand : subgraph->operands) {
      NN_RET_CHECK(operand.lifetime != Operand::LifeTime::POINTER) << "POINTER operands cannot be serialized";
    }
    writeSubgraph(w, *subgraph);
  }
  w.u32(static_cast<uint32_t>(model.pools.size()));
  w.u32(kStructureEnd);

  Writer c(out.constants);
  c.bytes(model.operandValues.data(), model.operandValues.size());
  for (const SharedMemory& pool : model.pools) {
    NN_RET_CHECK(pool != nullptr) << "a pool is missing";
    c.bytes(pool->data(), pool->size());
  }
  return out;
}

Result<Model> deserializeModel(const std::vector<uint8_t>& structure, const std::vector<uint8_t>& constants) {
  Model model;
  Reader r(structure);
  auto relaxed = r.u32();
  if (!relaxed.ok()) return relaxed.error();
  model.relaxComputationFloat32toFloat16 = *relaxed != 0;
  auto extensions = r.count(10);
  if (!extensions.ok()) return extensions.error();
  for (uint32_t i = 0; i < *extensions; ++i) {
    auto name = r.bytes();
    if (!name.ok()) return name.error();
    auto prefix = r.raw(2);
    if (!prefix.ok()) return prefix.error();
    model.extensionNameToPrefix.push_back({std::string(name->begin(), name->end()), static_cast<uint16_t>(*prefix)});
  }
  auto referenced = r.count(16);  // a subgraph takes at least 16 bytes
  if (!referenced.ok()) return referenced.error();
  auto main = readSubgraph(r);
  if (!main.ok()) return main.error();
  model.main = std::move(main).value();
  for (uint32_t i = 0; i < *referenced; ++i) {
    auto subgraph = readSubgraph(r);
    if (!subgraph.ok()) return subgraph.error();
    model.referenced.push_back(std::move(subgraph).value());
  }
  auto pools = r.u32();
  if (!pools.ok()) return pools.error();
  auto end = r.u32();
  if (!end.ok()) return end.error();
  NN_RET_CHECK(*end == kStructureEnd && r.atEnd()) << "the structure does not end where it should";

  Reader c(constants);
  auto values = c.bytes();
  if (!values.ok()) return values.error();
  model.operandValues = std::move(values).value();
  for (uint32_t i = 0; i < *pools; ++i) {
    auto bytes = c.bytes();
    if (!bytes.ok()) return bytes.error();
    model.pools.push_back(std::make_shared<HostMemory>(std::move(bytes).value()));
  }
  NN_RET_CHECK(c.atEnd()) << "the constants do not end where they should";

  NN_TRY(checkLocations(model, model.main));
  for (const Subgraph& subgraph : model.referenced) NN_TRY(checkLocations(model, subgraph));
  return model;
}

}  // namespace weft::nn
