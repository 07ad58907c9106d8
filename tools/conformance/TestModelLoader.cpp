#include "TestModelLoader.h"

#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "weft/common/files.h"

namespace weft::test {

using nlohmann::json;
using nn::OperandType;
using LifeTime = nn::Operand::LifeTime;

nn::Result<nn::OperationType> operationTypeFromName(const std::string& name) {
  static const std::map<std::string, nn::OperationType> table = [] {
    std::map<std::string, nn::OperationType> t;
    for (int32_t i = 0; i < nn::kNumOperationTypes; ++i) {
      t[nn::toString(static_cast<nn::OperationType>(i))] = static_cast<nn::OperationType>(i);
    }
    return t;
  }();
  auto it = table.find(name);
  if (it == table.end()) return NN_ERROR(BAD_DATA) << "unknown operation type \"" << name << "\"";
  return it->second;
}

nn::Result<nn::OperandType> operandTypeFromName(const std::string& name) {
  static const std::map<std::string, OperandType> table = [] {
    std::map<std::string, OperandType> t;
    for (int32_t i = 0; i <= static_cast<int32_t>(OperandType::SUBGRAPH); ++i) {
      t[nn::toString(static_cast<OperandType>(i))] = static_cast<OperandType>(i);
    }
    return t;
  }();
  auto it = table.find(name);
  if (it == table.end()) return NN_ERROR(BAD_DATA) << "unknown operand type \"" << name << "\"";
  return it->second;
}

namespace {

nn::Result<LifeTime> lifetimeFromName(const std::string& name) {
  static const std::map<std::string, LifeTime> table = {
      {"TEMPORARY_VARIABLE", LifeTime::TEMPORARY_VARIABLE}, {"SUBGRAPH_INPUT", LifeTime::SUBGRAPH_INPUT},
      {"SUBGRAPH_OUTPUT", LifeTime::SUBGRAPH_OUTPUT},       {"CONSTANT_COPY", LifeTime::CONSTANT_COPY},
      {"CONSTANT_REFERENCE", LifeTime::CONSTANT_REFERENCE}, {"NO_VALUE", LifeTime::NO_VALUE},
      {"SUBGRAPH", LifeTime::SUBGRAPH}};
  auto it = table.find(name);
  if (it == table.end()) return NN_ERROR(BAD_DATA) << "unknown lifetime \"" << name << "\"";
  return it->second;
}

// The JSON number as the C++ float literal the generator printed: rounded to nearest float32.
float toFloat32(const json& v) { return static_cast<float>(v.get<double>()); }

template <typename T>
nn::Result<T> toInteger(const json& v) {
  if (!v.is_number_integer()) return NN_ERROR(BAD_DATA) << "expected an integer, got " << v.dump();
  const int64_t x = v.get<int64_t>();
  if (x < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      x > static_cast<int64_t>(std::numeric_limits<T>::max())) {
    return NN_ERROR(BAD_DATA) << "value " << x << " out of range of its operand type";
  }
  return static_cast<T>(x);
}

template <typename T>
nn::Status appendInteger(const json& v, std::vector<uint8_t>& bytes) {
  auto x = toInteger<T>(v);
  if (!x.ok()) return x.error();
  const T value = *x;
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  bytes.insert(bytes.end(), p, p + sizeof(T));
  return {};
}

template <typename T>
void appendValue(T value, std::vector<uint8_t>& bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  bytes.insert(bytes.end(), p, p + sizeof(T));
}

nn::Status appendElement(OperandType type, const json& v, std::vector<uint8_t>& bytes) {
  switch (type) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32:
      NN_RET_CHECK(v.is_number()) << "expected a number, got " << v.dump();
      appendValue(toFloat32(v), bytes);
      return {};
    case OperandType::FLOAT16:
    case OperandType::TENSOR_FLOAT16:
      NN_RET_CHECK(v.is_number()) << "expected a number, got " << v.dump();
      // The literal is a float (f suffix) first, then converted to _Float16.
      appendValue(static_cast<_Float16>(toFloat32(v)), bytes);
      return {};
    case OperandType::INT32:
    case OperandType::TENSOR_INT32:
      return appendInteger<int32_t>(v, bytes);
    case OperandType::UINT32:
    case OperandType::SUBGRAPH:
      return appendInteger<uint32_t>(v, bytes);
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
      NN_RET_CHECK(v.is_boolean()) << "expected true/false, got " << v.dump();
      appendValue<uint8_t>(v.get<bool>() ? 1 : 0, bytes);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM:
      return appendInteger<uint8_t>(v, bytes);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return appendInteger<int8_t>(v, bytes);
    case OperandType::TENSOR_QUANT16_ASYMM:
      return appendInteger<uint16_t>(v, bytes);
    case OperandType::TENSOR_QUANT16_SYMM:
      return appendInteger<int16_t>(v, bytes);
  }
  return NN_ERROR(BAD_DATA) << "unsupported operand type";
}

nn::Result<std::vector<uint32_t>> toIndexList(const json& v) {
  NN_RET_CHECK(v.is_array()) << "expected a list of indexes";
  std::vector<uint32_t> out;
  for (const json& x : v) {
    auto i = toInteger<uint32_t>(x);
    if (!i.ok()) return i.error();
    out.push_back(*i);
  }
  return out;
}

nn::Result<TestOperand> parseOperand(const json& j) {
  TestOperand o;
  o.name = j.value("name", "");
  auto type = operandTypeFromName(j.at("type").get<std::string>());
  if (!type.ok()) return type.error();
  o.type = *type;
  auto dims = toIndexList(j.at("dimensions"));
  if (!dims.ok()) return dims.error();
  o.dimensions = std::move(dims).value();
  o.scale = toFloat32(j.at("scale"));
  auto zp = toInteger<int32_t>(j.at("zeroPoint"));
  if (!zp.ok()) return zp.error();
  o.zeroPoint = *zp;
  auto lifetime = lifetimeFromName(j.at("lifetime").get<std::string>());
  if (!lifetime.ok()) return lifetime.error();
  o.lifetime = *lifetime;
  o.isIgnored = j.value("isIgnored", false);
  if (auto it = j.find("channelQuant"); it != j.end()) {
    auto channelDim = toInteger<uint32_t>(it->at("channelDim"));
    if (!channelDim.ok()) return channelDim.error();
    o.channelQuant.channelDim = *channelDim;
    for (const json& s : it->at("scales")) o.channelQuant.scales.push_back(toFloat32(s));
  }
  const json& data = j.at("data");
  if (!data.is_null()) {
    NN_RET_CHECK(data.is_array()) << "operand data must be null or a list";
    std::vector<uint8_t> bytes;
    bytes.reserve(data.size() * testElementSize(o.type));
    for (const json& v : data) NN_TRY(appendElement(o.type, v, bytes));
    if (!data.empty() && o.type != OperandType::SUBGRAPH) {
      NN_RET_CHECK_EQ(data.size(), nn::numberOfElements(o.dimensions))
          << "operand \"" << o.name << "\" has " << data.size() << " values for its shape";
    }
    o.data = TestBuffer(std::move(bytes));
  }
  return o;
}

nn::Result<TestSubgraph> parseSubgraph(const json& j) {
  TestSubgraph sg;
  for (const json& operand : j.at("operands")) {
    auto o = parseOperand(operand);
    if (!o.ok()) return NN_ERROR(BAD_DATA) << "operand " << sg.operands.size() << ": " << o.error().message;
    sg.operands.push_back(std::move(o).value());
  }
  for (const json& operation : j.at("operations")) {
    TestOperation op;
    auto type = operationTypeFromName(operation.at("type").get<std::string>());
    if (!type.ok()) return type.error();
    op.type = *type;
    auto ins = toIndexList(operation.at("inputs"));
    if (!ins.ok()) return ins.error();
    auto outs = toIndexList(operation.at("outputs"));
    if (!outs.ok()) return outs.error();
    op.inputs = std::move(ins).value();
    op.outputs = std::move(outs).value();
    for (uint32_t i : op.inputs) NN_RET_CHECK_LT(i, sg.operands.size()) << "operation input index";
    for (uint32_t i : op.outputs) NN_RET_CHECK_LT(i, sg.operands.size()) << "operation output index";
    sg.operations.push_back(std::move(op));
  }
  auto ins = toIndexList(j.at("inputIndexes"));
  if (!ins.ok()) return ins.error();
  auto outs = toIndexList(j.at("outputIndexes"));
  if (!outs.ok()) return outs.error();
  sg.inputIndexes = std::move(ins).value();
  sg.outputIndexes = std::move(outs).value();
  for (uint32_t i : sg.inputIndexes) NN_RET_CHECK_LT(i, sg.operands.size()) << "subgraph input index";
  for (uint32_t i : sg.outputIndexes) NN_RET_CHECK_LT(i, sg.operands.size()) << "subgraph output index";
  return sg;
}

nn::Result<TestModel> parseJson(const json& j) {
  TestModel m;
  m.name = j.at("name").get<std::string>();
  m.source = j.value("source", "");
  auto main = parseSubgraph(j);
  if (!main.ok()) return main.error();
  m.main = std::move(main).value();
  if (auto it = j.find("referenced"); it != j.end()) {
    for (const json& r : *it) {
      auto sg = parseSubgraph(r);
      if (!sg.ok()) return NN_ERROR(BAD_DATA) << "referenced subgraph " << m.referenced.size() << ": "
                                              << sg.error().message;
      m.referenced.push_back(std::move(sg).value());
    }
  }
  m.isRelaxed = j.at("relaxed").get<bool>();
  m.expectFailure = j.at("expectFailure").get<bool>();
  m.minSupportedVersion = j.value("minSupportedVersion", "");
  if (auto it = j.find("expectedMultinomialDistributionTolerance"); it != j.end()) {
    m.expectedMultinomialDistributionTolerance = toFloat32(*it);
  }
  // SUBGRAPH operands name an entry of the top-level referenced list.
  auto checkSubgraphRefs = [&](const TestSubgraph& sg) -> nn::Status {
    for (const TestOperand& o : sg.operands) {
      if (o.lifetime != LifeTime::SUBGRAPH) continue;
      NN_RET_CHECK_EQ(o.data.size(), sizeof(uint32_t)) << "SUBGRAPH operand needs one index";
      NN_RET_CHECK_LT(o.data.at<uint32_t>(0), m.referenced.size()) << "SUBGRAPH operand index";
    }
    return {};
  };
  NN_TRY(checkSubgraphRefs(m.main));
  for (const TestSubgraph& sg : m.referenced) NN_TRY(checkSubgraphRefs(sg));
  return m;
}

}  // namespace

nn::Result<TestModel> parseTestModel(const std::string& jsonText) {
  try {
    return parseJson(json::parse(jsonText));
  } catch (const json::exception& e) {
    return NN_ERROR(BAD_DATA) << "malformed test case JSON: " << e.what();
  }
}

nn::Result<TestModel> loadTestModel(const std::filesystem::path& file, const std::string& version) {
  const auto text = common::readFile(file.string());
  if (!text) return NN_ERROR(BAD_DATA) << "cannot open " << file.string();
  auto model = parseTestModel(*text);
  if (!model.ok()) return NN_ERROR(BAD_DATA) << file.string() << ": " << model.error().message;
  model->version = version.empty() ? file.parent_path().filename().string() : version;
  return model;
}

}  // namespace weft::test
