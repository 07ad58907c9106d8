// An ONNX node as the converters and the constant folder read it: its inputs and outputs by
// name (an empty name is an omitted optional input), its attributes with defaults, and a label
// for errors ("node 'conv1' (Conv)").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "HostTensor.h"

namespace onnx {
class NodeProto;
class AttributeProto;
}  // namespace onnx

namespace weft::onnx {

class Node {
 public:
  Node(const ::onnx::NodeProto& proto, int index, int64_t opset);

  const std::string& op() const;
  const std::string& name() const;  // may be empty
  int index() const { return index_; }
  int64_t opset() const { return opset_; }  // the default domain's opset the model imports
  std::string label() const;               // "node 'conv1' (Conv)" or "node #12 (Conv)"

  size_t inputCount() const;  // as written, omitted optional inputs included
  size_t outputCount() const;
  // The i-th input's name; empty when absent or omitted.
  std::string input(size_t i) const;
  bool hasInput(size_t i) const { return !input(i).empty(); }
  std::string output(size_t i) const;
  bool hasOutput(size_t i) const { return !output(i).empty(); }

  bool has(const std::string& attribute) const;
  int64_t attrInt(const std::string& attribute, int64_t fallback) const;
  float attrFloat(const std::string& attribute, float fallback) const;
  std::string attrString(const std::string& attribute, const std::string& fallback) const;
  std::vector<int64_t> attrInts(const std::string& attribute, const std::vector<int64_t>& fallback = {}) const;
  std::vector<float> attrFloats(const std::string& attribute) const;
  std::vector<std::string> attrStrings(const std::string& attribute, const std::vector<std::string>& fallback = {}) const;
  std::optional<HostTensor> attrTensor(const std::string& attribute) const;
  // Every attribute's name, for refusing the ones a converter does not read.
  std::vector<std::string> attributeNames() const;

  // An ImportError message: "<label>: <what>".
  std::string error(const std::string& what) const;

  const ::onnx::NodeProto& proto() const { return *proto_; }

 private:
  const ::onnx::AttributeProto* find(const std::string& attribute) const;

  const ::onnx::NodeProto* proto_;
  int index_;
  int64_t opset_;
};

}  // namespace weft::onnx
