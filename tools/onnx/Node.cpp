#include "Node.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "ImportError.h"

namespace weft::onnx {

Node::Node(const ::onnx::NodeProto& proto, int index, int64_t opset) : proto_(&proto), index_(index), opset_(opset) {}

const std::string& Node::op() const { return proto_->op_type(); }
const std::string& Node::name() const { return proto_->name(); }

std::string Node::label() const {
  return proto_->name().empty() ? fmt::format("node #{} ({})", index_, op())
                                : fmt::format("node '{}' ({})", proto_->name(), op());
}

size_t Node::inputCount() const { return static_cast<size_t>(proto_->input_size()); }
size_t Node::outputCount() const { return static_cast<size_t>(proto_->output_size()); }

std::string Node::input(size_t i) const {
  return i < inputCount() ? proto_->input(static_cast<int>(i)) : std::string();
}

std::string Node::output(size_t i) const {
  return i < outputCount() ? proto_->output(static_cast<int>(i)) : std::string();
}

const ::onnx::AttributeProto* Node::find(const std::string& attribute) const {
  for (const auto& a : proto_->attribute()) {
    if (a.name() == attribute) return &a;
  }
  return nullptr;
}

bool Node::has(const std::string& attribute) const { return find(attribute) != nullptr; }

int64_t Node::attrInt(const std::string& attribute, int64_t fallback) const {
  const auto* a = find(attribute);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::INT) throw ImportError(error("attribute '" + attribute + "' is not an int"));
  return a->i();
}

float Node::attrFloat(const std::string& attribute, float fallback) const {
  const auto* a = find(attribute);
  if (a == nullptr) return fallback;
  if (a->type() == ::onnx::AttributeProto::INT) return static_cast<float>(a->i());
  if (a->type() != ::onnx::AttributeProto::FLOAT) throw ImportError(error("attribute '" + attribute + "' is not a float"));
  return a->f();
}

std::string Node::attrString(const std::string& attribute, const std::string& fallback) const {
  const auto* a = find(attribute);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::STRING) {
    throw ImportError(error("attribute '" + attribute + "' is not a string"));
  }
  return a->s();
}

std::vector<int64_t> Node::attrInts(const std::string& attribute, const std::vector<int64_t>& fallback) const {
  const auto* a = find(attribute);
  if (a == nullptr) return fallback;
  if (a->type() == ::onnx::AttributeProto::INT) return {a->i()};
  if (a->type() != ::onnx::AttributeProto::INTS) throw ImportError(error("attribute '" + attribute + "' is not ints"));
  return {a->ints().begin(), a->ints().end()};
}

std::vector<float> Node::attrFloats(const std::string& attribute) const {
  const auto* a = find(attribute);
  if (a == nullptr) return {};
  if (a->type() == ::onnx::AttributeProto::FLOAT) return {a->f()};
  if (a->type() != ::onnx::AttributeProto::FLOATS) {
    throw ImportError(error("attribute '" + attribute + "' is not floats"));
  }
  return {a->floats().begin(), a->floats().end()};
}

std::vector<std::string> Node::attrStrings(const std::string& attribute, const std::vector<std::string>& fallback) const {
  const auto* a = find(attribute);
  if (a == nullptr) return fallback;
  if (a->type() == ::onnx::AttributeProto::STRING) return {a->s()};
  if (a->type() != ::onnx::AttributeProto::STRINGS) {
    throw ImportError(error("attribute '" + attribute + "' is not strings"));
  }
  return {a->strings().begin(), a->strings().end()};
}

std::optional<HostTensor> Node::attrTensor(const std::string& attribute) const {
  const auto* a = find(attribute);
  if (a == nullptr) return std::nullopt;
  if (a->type() != ::onnx::AttributeProto::TENSOR) {
    throw ImportError(error("attribute '" + attribute + "' is not a tensor"));
  }
  return fromProto(a->t(), label());
}

std::vector<std::string> Node::attributeNames() const {
  std::vector<std::string> names;
  for (const auto& a : proto_->attribute()) names.push_back(a.name());
  return names;
}

std::string Node::error(const std::string& what) const { return label() + ": " + what; }

}  // namespace weft::onnx
