// Builds a conformance TestModel through the NNAPI C API, as AOSP's CTS harness does
// (GeneratedTestUtils createModel): referenced subgraphs become finished models referenced by
// ANeuralNetworksModel_setOperandValueFromModel, CONSTANT_REFERENCE values live in one shared
// memory at 4-byte-aligned offsets, empty constants are omitted operands.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "TestModel.h"
#include "android/NeuralNetworks.h"

namespace weft::test {

class ApiModelBuilder {
 public:
  explicit ApiModelBuilder(const TestModel& testModel);
  ~ApiModelBuilder();
  ApiModelBuilder(const ApiModelBuilder&) = delete;
  ApiModelBuilder& operator=(const ApiModelBuilder&) = delete;

  // The finished main model, or nullptr with failure() saying which call failed.
  ANeuralNetworksModel* model() const { return main_; }
  const std::string& failure() const { return failure_; }
  // The main graph's operation ANeuralNetworksModel_addOperation refused, when that failed.
  std::optional<size_t> failedOperation() const { return failedOperation_; }

 private:
  bool createConstantMemory();
  ANeuralNetworksModel* build(const TestSubgraph& subgraph, bool isMain);
  ANeuralNetworksModel* referencedModel(uint32_t index);
  bool check(int result, const std::string& call);
  // The type the C API takes for `type` (an operand's or, when `operation`, an operation's): the
  // type itself, or for an extension's type the one the API gives this model for its extension
  // name and code. nullopt (failure_ set) when the API refuses, e.g. a program not allowed
  // extensions.
  std::optional<int32_t> apiType(ANeuralNetworksModel* model, int32_t type, bool operation, const std::string& where);

  const TestModel& testModel_;
  std::vector<ANeuralNetworksModel*> owned_;
  std::vector<ANeuralNetworksModel*> referenced_;  // built on first use, by referenced index
  std::vector<int> building_;                      // cycle guard per referenced index
  ANeuralNetworksMemory* constants_ = nullptr;
  int constantsFd_ = -1;
  size_t constantsSize_ = 0;
  std::vector<std::vector<size_t>> constantOffsets_;  // [subgraph (0 = main, k+1 = referenced k)][operand]
  ANeuralNetworksModel* main_ = nullptr;
  std::string failure_;
  std::optional<size_t> failedOperation_;
};

}  // namespace weft::test
