// Reads one case of the converted AOSP corpus (shared/conformance/aosp/SCHEMA.md) into a TestModel:
// float literals rounded to float32 (and float16 through float32), quantized data as raw integers,
// per-channel parameters, every lifetime, referenced subgraphs.
#pragma once

#include <filesystem>
#include <string>

#include "TestModel.h"
#include "weft/nn/Result.h"

namespace weft::test {

// `version` is recorded in TestModel::version (the file's spec directory when empty).
nn::Result<TestModel> loadTestModel(const std::filesystem::path& file, const std::string& version = "");
// Parses the JSON text of one case.
nn::Result<TestModel> parseTestModel(const std::string& jsonText);

// Name <-> enum of operation and operand types as the corpus spells them ("CONV_2D", "TENSOR_FLOAT32").
nn::Result<nn::OperationType> operationTypeFromName(const std::string& name);
nn::Result<nn::OperandType> operandTypeFromName(const std::string& name);

}  // namespace weft::test
