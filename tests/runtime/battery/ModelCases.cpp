// ANeuralNetworksModel_*: the invalid calls. Operand numbers are those of World::model().
#include <array>
#include <cmath>
#include <limits>

#include "Battery.h"

namespace weft::test::battery {
namespace {

constexpr int32_t kFloat = ANEURALNETWORKS_TENSOR_FLOAT32;

// An operand type whose dimensions live as long as the row.
const ANeuralNetworksOperandType* type(World& w, int32_t code, std::vector<uint32_t> dims, float scale = 0.0f,
                                       int32_t zeroPoint = 0) {
  const std::vector<uint32_t>* kept = w.keep(std::move(dims));
  return w.keep(ANeuralNetworksOperandType{code, static_cast<uint32_t>(kept->size()),
                                           kept->empty() ? nullptr : kept->data(), scale, zeroPoint});
}

int addOperand(World& w, int32_t code, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zeroPoint = 0) {
  return ANeuralNetworksModel_addOperand(w.model(), type(w, code, std::move(dims), scale, zeroPoint));
}

int addOperation(ANeuralNetworksModel* model, int32_t code, std::vector<uint32_t> inputs,
                 std::vector<uint32_t> outputs) {
  return ANeuralNetworksModel_addOperation(model, code, static_cast<uint32_t>(inputs.size()), inputs.data(),
                                           static_cast<uint32_t>(outputs.size()), outputs.data());
}

// Empty lists are passed as non-NULL arrays, as NNAPI requires.
int identify(ANeuralNetworksModel* model, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
  static const uint32_t kNone[1] = {0};
  return ANeuralNetworksModel_identifyInputsAndOutputs(
      model, static_cast<uint32_t>(inputs.size()), inputs.empty() ? kNone : inputs.data(),
      static_cast<uint32_t>(outputs.size()), outputs.empty() ? kNone : outputs.data());
}

int setPerChannel(World& w, int32_t index, uint32_t channelDim, uint32_t count, const float* scales) {
  const ANeuralNetworksSymmPerChannelQuantParams params{channelDim, count, scales};
  return ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(w.model(), index, &params);
}

// Builds a fresh model with `build`, finishes it and returns finish's result.
template <typename Build>
int finishNew(Build build) {
  ANeuralNetworksModel* model = nullptr;
  ANeuralNetworksModel_create(&model);
  build(model);
  const int result = ANeuralNetworksModel_finish(model);
  ANeuralNetworksModel_free(model);
  return result;
}

void addTensors(ANeuralNetworksModel* model, int count) {
  static const uint32_t kDims[] = {4};
  const ANeuralNetworksOperandType tensor{kFloat, 1, kDims, 0.0f, 0};
  for (int i = 0; i < count; ++i) ANeuralNetworksModel_addOperand(model, &tensor);
}

void addActivation(ANeuralNetworksModel* model) {
  const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
  ANeuralNetworksModel_addOperand(model, &scalar);
}

// Operands 0 a, 1 b (tensors), 2 act, then `extra` tensors; act is set to NONE.
ANeuralNetworksModel* sumOperands(ANeuralNetworksModel* model, int extra) {
  addTensors(model, 2);
  addActivation(model);
  const int32_t none = 0;
  ANeuralNetworksModel_setOperandValue(model, 2, &none, sizeof(none));
  addTensors(model, extra);
  return model;
}

std::vector<Case> addOperandCases() {
  using S = Subject;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  return {
      {"addOperand_nullModel", S::kNothing,
       [](World& w) { return ANeuralNetworksModel_addOperand(nullptr, type(w, kFloat, {2})); }, kNull},
      {"addOperand_nullType", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_addOperand(w.model(), nullptr); }, kNull},
      {"addOperand_negativeTypeCode", S::kModelUnderConstruction, [](World& w) { return addOperand(w, -1, {2}); },
       kBadData},
      {"addOperand_typeCodePastModel", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_MODEL + 1, {2}); }, kBadData},
      {"addOperand_unknownExtensionType", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, 0x7FFF0000, {2}); }, kBadData},
      {"addOperand_scalarWithDimensions", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_INT32, {1}); }, kBadData},
      {"addOperand_modelReferenceWithDimensions", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_MODEL, {1}); }, kBadData},
      {"addOperand_dimensionCountWithoutDimensions", S::kModelUnderConstruction,
       [](World& w) {
         const ANeuralNetworksOperandType t{kFloat, 2, nullptr, 0.0f, 0};
         return ANeuralNetworksModel_addOperand(w.model(), &t);
       },
       kBadData},
      {"addOperand_dimensionsWithZeroCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t dims[] = {2};
         const ANeuralNetworksOperandType t{kFloat, 0, dims, 0.0f, 0};
         return ANeuralNetworksModel_addOperand(w.model(), &t);
       },
       kBadData},
      {"addOperand_floatTensorWithScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, kFloat, {2}, 0.5f); }, kBadData},
      {"addOperand_floatTensorWithZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, kFloat, {2}, 0.0f, 1); }, kBadData},
      {"addOperand_int32ScalarWithScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_INT32, {}, 0.5f); }, kBadData},
      {"addOperand_uint32ScalarWithZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_UINT32, {}, 0.0f, 3); }, kBadData},
      {"addOperand_boolScalarWithScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_BOOL, {}, 1.0f); }, kBadData},
      {"addOperand_float16ScalarWithZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_FLOAT16, {}, 0.0f, 1); }, kBadData},
      {"addOperand_bool8TensorWithScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_BOOL8, {2}, 1.0f); }, kBadData},
      {"addOperand_float16TensorWithScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_FLOAT16, {2}, 1.0f); }, kBadData},
      {"addOperand_quant8ZeroScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, 0.0f); }, kBadData},
      {"addOperand_quant8NegativeScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, -1.0f); }, kBadData},
      {"addOperand_quant8NaNScale", S::kModelUnderConstruction,
       [nan](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, nan); }, kBadData},
      // Android accepts an infinite scale (it checks scale > 0 only); no real value has one.
      {"addOperand_quant8InfiniteScale", S::kModelUnderConstruction,
       [inf](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, inf); }, kBadData},
      {"addOperand_quant8ZeroPointAbove255", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, 1.0f, 256); }, kBadData},
      {"addOperand_quant8NegativeZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, 1.0f, -1); }, kBadData},
      {"addOperand_quant8SignedZeroPointAbove127", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {2}, 1.0f, 128); }, kBadData},
      {"addOperand_quant8SignedZeroPointBelowMinus128", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {2}, 1.0f, -129); }, kBadData},
      {"addOperand_quant8SignedZeroScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.0f, 0); }, kBadData},
      {"addOperand_quant8SymmNonZeroZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_SYMM, {2}, 1.0f, 1); }, kBadData},
      {"addOperand_quant8SymmZeroScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_SYMM, {2}, 0.0f, 0); }, kBadData},
      {"addOperand_quant16SymmNonZeroZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT16_SYMM, {2}, 1.0f, 1); }, kBadData},
      {"addOperand_quant16AsymmZeroPointAbove65535", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT16_ASYMM, {2}, 1.0f, 65536); }, kBadData},
      {"addOperand_quant16AsymmNegativeZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT16_ASYMM, {2}, 1.0f, -1); }, kBadData},
      {"addOperand_perChannelWithScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {2}, 0.5f); }, kBadData},
      {"addOperand_perChannelWithZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {2}, 0.0f, 1); }, kBadData},
      // Sizes are 32-bit in NNAPI: 2^32 bytes is one too many.
      {"addOperand_float32DimensionsOverflow32Bits", S::kModelUnderConstruction,
       [](World& w) {
         return addOperand(w, kFloat, {65536, 16384});
       },
       kBadData},
      {"addOperand_quant8DimensionsOverflow32Bits", S::kModelUnderConstruction,
       [](World& w) {
         return addOperand(w, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {65536, 65536}, 1.0f);
       },
       kBadData},
      {"addOperand_rank4DimensionsOverflow32Bits", S::kModelUnderConstruction,
       [](World& w) {
         return addOperand(w, ANEURALNETWORKS_TENSOR_BOOL8, {256, 256, 256, 256});
       },
       kBadData},
      {"addOperand_knownDimensionsOverflowBesideUnknownOne", S::kModelUnderConstruction,
       [](World& w) {
         return addOperand(w, ANEURALNETWORKS_TENSOR_INT32, {0, 65536, 16384});
       },
       kBadData},
      {"addOperand_dimensionsOverflow64Bits", S::kModelUnderConstruction,
       [](World& w) {
         return addOperand(w, kFloat, {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu});
       },
       kBadData},
      {"addOperand_afterFinish", S::kFinishedModel,
       [](World& w) { return ANeuralNetworksModel_addOperand(w.finishedModel(), type(w, kFloat, {2})); }, kBadState},
      {"addOperand_afterFailedFinish", S::kInvalidModel,
       [](World& w) { return ANeuralNetworksModel_addOperand(w.invalidModel(), type(w, kFloat, {2})); }, kBadState},
  };
}

std::vector<Case> setOperandValueCases() {
  using S = Subject;
  return {
      {"setOperandValue_nullModel", S::kNothing,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(nullptr, 4, w.keep(std::vector<float>(4))->data(), 16);
       },
       kNull},
      {"setOperandValue_nullBufferWithLength", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValue(w.model(), 4, nullptr, 16); }, kNull},
      {"setOperandValue_negativeIndex", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), -1, w.keep(std::vector<float>(4))->data(), 16);
       },
       kBadData},
      {"setOperandValue_indexOutOfRange", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), 8, w.keep(std::vector<float>(4))->data(), 16);
       },
       kBadData},
      {"setOperandValue_lengthTooShort", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), 4, w.keep(std::vector<float>(4))->data(), 12);
       },
       kBadData},
      {"setOperandValue_lengthTooLong", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), 4, w.keep(std::vector<float>(5))->data(), 20);
       },
       kBadData},
      {"setOperandValue_lengthBeyond4GiB", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), 4, w.keep(std::vector<float>(4))->data(),
                                                     (size_t{1} << 32) + 16);
       },
       kBadData},
      {"setOperandValue_scalarWrongLength", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), 2, w.keep(std::vector<int32_t>(2))->data(), 8);
       },
       kBadData},
      {"setOperandValue_perChannelWrongLength", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), 5, w.keep(std::vector<int8_t>(5))->data(), 5);
       },
       kBadData},
      {"setOperandValue_unspecifiedDimensions", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), 7, w.keep(std::vector<float>(4))->data(), 16);
       },
       kBadData},
      {"setOperandValue_modelReferenceOperand", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.model(), 6, w.keep(std::vector<float>(4))->data(), 16);
       },
       kBadData},
      // Android accepts a value for a model input or output here and fails finish; weft refuses
      // the call itself (the model is unchanged, and finish would fail anyway).
      {"setOperandValue_modelInput", S::kIdentifiedModel,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.identifiedModel(), 0, w.keep(std::vector<float>(4))->data(), 16);
       },
       kBadData},
      {"setOperandValue_modelOutput", S::kIdentifiedModel,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValue(w.identifiedModel(), 3, w.keep(std::vector<float>(4))->data(), 16);
       },
       kBadData},
      {"setOperandValue_afterFinish", S::kFinishedModel,
       [](World& w) { return ANeuralNetworksModel_setOperandValue(w.finishedModel(), 2, w.keep(int32_t{1}), 4); },
       kBadState},
      {"setOperandValue_afterFailedFinish", S::kInvalidModel,
       [](World& w) { return ANeuralNetworksModel_setOperandValue(w.invalidModel(), 2, w.keep(int32_t{1}), 4); },
       kBadState},

      {"setOperandValueFromMemory_nullModel", S::kNothing,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromMemory(nullptr, 4, w.fdMemory(), 0, 16); }, kNull},
      {"setOperandValueFromMemory_nullMemory", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromMemory(w.model(), 4, nullptr, 0, 16); }, kNull},
      {"setOperandValueFromMemory_indexOutOfRange", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromMemory(w.model(), 8, w.fdMemory(), 0, 16); },
       kBadData},
      {"setOperandValueFromMemory_regionBeyondMemory", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromMemory(w.model(), 4, w.fdMemory(), 56, 16); },
       kBadData},
      {"setOperandValueFromMemory_offsetWrapsAround", S::kModelUnderConstruction,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValueFromMemory(w.model(), 4, w.fdMemory(), SIZE_MAX - 7, 16);
       },
       kBadData},
      {"setOperandValueFromMemory_lengthMismatch", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromMemory(w.model(), 4, w.fdMemory(), 0, 8); },
       kBadData},
      {"setOperandValueFromMemory_unspecifiedDimensions", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromMemory(w.model(), 7, w.fdMemory(), 0, 16); },
       kBadData},
      {"setOperandValueFromMemory_descriptorMemory", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromMemory(w.model(), 4, w.descMemory(), 0, 16); },
       kBadData},
      {"setOperandValueFromMemory_modelInput", S::kIdentifiedModel,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValueFromMemory(w.identifiedModel(), 1, w.fdMemory(), 0, 16);
       },
       kBadData},
      {"setOperandValueFromMemory_afterFinish", S::kFinishedModel,
       [](World& w) {
         return ANeuralNetworksModel_setOperandValueFromMemory(w.finishedModel(), 0, w.fdMemory(), 0, 16);
       },
       kBadState},

      {"setOperandValueFromModel_nullModel", S::kNothing,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromModel(nullptr, 6, w.finishedModel()); }, kNull},
      {"setOperandValueFromModel_nullValue", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromModel(w.model(), 6, nullptr); }, kNull},
      {"setOperandValueFromModel_indexOutOfRange", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromModel(w.model(), 8, w.finishedModel()); },
       kBadData},
      // Android records the reference and fails finish on the tensor; weft refuses at once.
      {"setOperandValueFromModel_tensorOperand", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromModel(w.model(), 4, w.finishedModel()); },
       kBadData},
      {"setOperandValueFromModel_unfinishedValue", S::kModelUnderConstruction,
       [](World& w) {
         ANeuralNetworksModel* unfinished = nullptr;
         ANeuralNetworksModel_create(&unfinished);
         const int result = ANeuralNetworksModel_setOperandValueFromModel(w.model(), 6, unfinished);
         ANeuralNetworksModel_free(unfinished);
         return result;
       },
       kBadState},
      {"setOperandValueFromModel_invalidValue", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromModel(w.model(), 6, w.invalidModel()); },
       kBadState},
      {"setOperandValueFromModel_afterFinish", S::kFinishedModel,
       [](World& w) { return ANeuralNetworksModel_setOperandValueFromModel(w.finishedModel(), 0, w.finishedModel()); },
       kBadState},

      {"setOperandSymmPerChannelQuantParams_nullModel", S::kNothing,
       [](World& w) {
         return ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
             nullptr, 5,
             w.keep(ANeuralNetworksSymmPerChannelQuantParams{0, 2, w.keep(std::vector<float>{1, 1})->data()}));
       },
       kNull},
      {"setOperandSymmPerChannelQuantParams_nullParams", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(w.model(), 5, nullptr); }, kNull},
      {"setOperandSymmPerChannelQuantParams_indexOutOfRange", S::kModelUnderConstruction,
       [](World& w) {
         return setPerChannel(w, 8, 0, 2, w.keep(std::vector<float>{1, 1})->data());
       },
       kBadData},
      {"setOperandSymmPerChannelQuantParams_notPerChannelOperand", S::kModelUnderConstruction,
       [](World& w) {
         return setPerChannel(w, 4, 0, 4, w.keep(std::vector<float>{1, 1, 1, 1})->data());
       },
       kBadData},
      {"setOperandSymmPerChannelQuantParams_channelDimOutOfRange", S::kModelUnderConstruction,
       [](World& w) {
         return setPerChannel(w, 5, 2, 2, w.keep(std::vector<float>{1, 1})->data());
       },
       kBadData},
      {"setOperandSymmPerChannelQuantParams_scaleCountMismatch", S::kModelUnderConstruction,
       [](World& w) {
         return setPerChannel(w, 5, 0, 3, w.keep(std::vector<float>{1, 1, 1})->data());
       },
       kBadData},
      {"setOperandSymmPerChannelQuantParams_nullScalesWithCount", S::kModelUnderConstruction,
       [](World& w) { return setPerChannel(w, 5, 0, 2, nullptr); }, kBadData},
      {"setOperandSymmPerChannelQuantParams_zeroScale", S::kModelUnderConstruction,
       [](World& w) {
         return setPerChannel(w, 5, 0, 2, w.keep(std::vector<float>{1, 0})->data());
       },
       kBadData},
      {"setOperandSymmPerChannelQuantParams_negativeScale", S::kModelUnderConstruction,
       [](World& w) {
         return setPerChannel(w, 5, 1, 3, w.keep(std::vector<float>{1, -1, 1})->data());
       },
       kBadData},
      {"setOperandSymmPerChannelQuantParams_nanScale", S::kModelUnderConstruction,
       [](World& w) {
         return setPerChannel(w, 5, 0, 2, w.keep(std::vector<float>{std::nanf(""), 1})->data());
       },
       kBadData},
      {"setOperandSymmPerChannelQuantParams_afterFinish", S::kFinishedModel,
       [](World& w) {
         return ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
             w.finishedModel(), 0,
             w.keep(ANeuralNetworksSymmPerChannelQuantParams{0, 4, w.keep(std::vector<float>{1, 1, 1, 1})->data()}));
       },
       kBadState},
  };
}

std::vector<Case> addOperationCases() {
  using S = Subject;
  const auto add = [](World& w, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
    return addOperation(w.model(), ANEURALNETWORKS_ADD, std::move(inputs), std::move(outputs));
  };
  return {
      {"addOperation_nullModel", S::kNothing,
       [](World&) {
         const uint32_t i[] = {0, 1, 2}, o[] = {4};
         return ANeuralNetworksModel_addOperation(nullptr, ANEURALNETWORKS_ADD, 3, i, 1, o);
       },
       kNull},
      {"addOperation_nullInputsWithCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t o[] = {4};
         return ANeuralNetworksModel_addOperation(w.model(), ANEURALNETWORKS_ADD, 3, nullptr, 1, o);
       },
       kNull},
      {"addOperation_nullOutputsWithCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t i[] = {0, 1, 2};
         return ANeuralNetworksModel_addOperation(w.model(), ANEURALNETWORKS_ADD, 3, i, 1, nullptr);
       },
       kNull},
      // NNAPI wants the arrays even when they are empty.
      {"addOperation_nullInputsWithZeroCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t o[] = {4};
         return ANeuralNetworksModel_addOperation(w.model(), ANEURALNETWORKS_ADD, 0, nullptr, 1, o);
       },
       kNull},
      {"addOperation_nullOutputsWithZeroCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t i[] = {0, 1, 2};
         return ANeuralNetworksModel_addOperation(w.model(), ANEURALNETWORKS_ADD, 3, i, 0, nullptr);
       },
       kNull},
      {"addOperation_negativeTypeCode", S::kModelUnderConstruction,
       [](World& w) {
         return addOperation(w.model(), -1, {0, 1, 2}, {4});
       },
       kBadData},
      {"addOperation_typeCodePastLast", S::kModelUnderConstruction,
       [](World& w) {
         return addOperation(w.model(), ANEURALNETWORKS_REVERSE + 1, {0, 1, 2}, {4});
       },
       kBadData},
      {"addOperation_unknownExtensionOperation", S::kModelUnderConstruction,
       [](World& w) {
         return addOperation(w.model(), 0x7FFF0001, {0, 1, 2}, {4});
       },
       kBadData},
      {"addOperation_inputIndexOutOfRange", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 1, 99}, {4});
       },
       kBadData},
      {"addOperation_outputIndexOutOfRange", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 1, 2}, {99});
       },
       kBadData},
      {"addOperation_tooFewInputs", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 1}, {4});
       },
       kBadData},
      {"addOperation_tooManyInputs", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 1, 2, 2}, {4});
       },
       kBadData},
      {"addOperation_noOutputs", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t i[] = {0, 1, 2}, o[] = {4};
         return ANeuralNetworksModel_addOperation(w.model(), ANEURALNETWORKS_ADD, 3, i, 0, o);
       },
       kBadData},
      {"addOperation_twoOutputsForOne", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 1, 2}, {4, 7});
       },
       kBadData},
      {"addOperation_mismatchedInputTypes", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 5, 2}, {4});
       },
       kBadData},
      {"addOperation_tensorWhereScalarExpected", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 1, 4}, {7});
       },
       kBadData},
      {"addOperation_modelReferenceAsInput", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 6, 2}, {4});
       },
       kBadData},
      {"addOperation_wrongOutputType", S::kModelUnderConstruction,
       [add](World& w) {
         return add(w, {0, 1, 2}, {5});
       },
       kBadData},
      {"addOperation_afterFinish", S::kFinishedModel,
       [](World& w) {
         return addOperation(w.finishedModel(), ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
       },
       kBadState},
      {"addOperation_afterFailedFinish", S::kInvalidModel,
       [](World& w) {
         return addOperation(w.invalidModel(), ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
       },
       kBadState},
  };
}

std::vector<Case> identifyCases() {
  using S = Subject;
  return {
      {"identifyInputsAndOutputs_nullModel", S::kNothing,
       [](World&) {
         const uint32_t i[] = {0, 1}, o[] = {3};
         return ANeuralNetworksModel_identifyInputsAndOutputs(nullptr, 2, i, 1, o);
       },
       kNull},
      {"identifyInputsAndOutputs_nullInputsWithCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t o[] = {3};
         return ANeuralNetworksModel_identifyInputsAndOutputs(w.model(), 2, nullptr, 1, o);
       },
       kNull},
      {"identifyInputsAndOutputs_nullOutputsWithCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t i[] = {0, 1};
         return ANeuralNetworksModel_identifyInputsAndOutputs(w.model(), 2, i, 1, nullptr);
       },
       kNull},
      {"identifyInputsAndOutputs_nullInputsWithZeroCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t o[] = {3};
         return ANeuralNetworksModel_identifyInputsAndOutputs(w.model(), 0, nullptr, 1, o);
       },
       kNull},
      {"identifyInputsAndOutputs_nullOutputsWithZeroCount", S::kModelUnderConstruction,
       [](World& w) {
         const uint32_t i[] = {0, 1};
         return ANeuralNetworksModel_identifyInputsAndOutputs(w.model(), 2, i, 0, nullptr);
       },
       kNull},
      {"identifyInputsAndOutputs_inputOutOfRange", S::kModelUnderConstruction,
       [](World& w) {
         return identify(w.model(), {0, 99}, {3});
       },
       kBadData},
      {"identifyInputsAndOutputs_outputOutOfRange", S::kModelUnderConstruction,
       [](World& w) {
         return identify(w.model(), {0, 1}, {99});
       },
       kBadData},
      {"identifyInputsAndOutputs_constantAsInput", S::kModelUnderConstruction,
       [](World& w) {
         return identify(w.model(), {0, 1, 2}, {3});
       },
       kBadData},
      {"identifyInputsAndOutputs_constantAsOutput", S::kModelUnderConstruction,
       [](World& w) {
         return identify(w.model(), {0, 1}, {2});
       },
       kBadData},
      {"identifyInputsAndOutputs_duplicateInput", S::kModelUnderConstruction,
       [](World& w) {
         return identify(w.model(), {0, 1, 0}, {3});
       },
       kBadData},
      {"identifyInputsAndOutputs_duplicateOutput", S::kModelUnderConstruction,
       [](World& w) {
         return identify(w.model(), {0, 1}, {3, 3});
       },
       kBadData},
      {"identifyInputsAndOutputs_inputAlsoOutput", S::kModelUnderConstruction,
       [](World& w) {
         return identify(w.model(), {0, 1}, {3, 0});
       },
       kBadData},
      // NNAPI names a model's inputs and outputs once; Android finds them no longer temporaries.
      {"identifyInputsAndOutputs_secondCall", S::kIdentifiedModel,
       [](World& w) {
         return identify(w.identifiedModel(), {0, 1}, {3});
       },
       kBadData},
      {"identifyInputsAndOutputs_afterFinish", S::kFinishedModel,
       [](World& w) {
         return identify(w.finishedModel(), {0, 1}, {3});
       },
       kBadState},
      {"identifyInputsAndOutputs_afterFailedFinish", S::kInvalidModel,
       [](World& w) {
         return identify(w.invalidModel(), {0, 1}, {3});
       },
       kBadState},

      {"relaxComputationFloat32toFloat16_nullModel", S::kNothing,
       [](World&) { return ANeuralNetworksModel_relaxComputationFloat32toFloat16(nullptr, true); }, kNull},
      {"relaxComputationFloat32toFloat16_afterFinish", S::kFinishedModel,
       [](World& w) { return ANeuralNetworksModel_relaxComputationFloat32toFloat16(w.finishedModel(), true); },
       kBadState},
      {"relaxComputationFloat32toFloat16_afterFailedFinish", S::kInvalidModel,
       [](World& w) { return ANeuralNetworksModel_relaxComputationFloat32toFloat16(w.invalidModel(), false); },
       kBadState},
  };
}

std::vector<Case> finishCases() {
  using S = Subject;
  return {
      {"finish_nullModel", S::kNothing, [](World&) { return ANeuralNetworksModel_finish(nullptr); }, kNull},
      {"finish_twice", S::kFinishedModel, [](World& w) { return ANeuralNetworksModel_finish(w.finishedModel()); },
       kBadState},
      {"finish_afterFailedFinish", S::kInvalidModel,
       [](World& w) { return ANeuralNetworksModel_finish(w.invalidModel()); }, kBadState},
      // "Every model must have at least one input and one output."
      {"finish_modelWithoutInputs", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 1);
           static const float kValues[4] = {1, 2, 3, 4};
           ANeuralNetworksModel_setOperandValue(m, 0, kValues, sizeof(kValues));
           ANeuralNetworksModel_setOperandValue(m, 1, kValues, sizeof(kValues));
           addOperation(m, ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
           identify(m, {}, {3});
         });
       },
       kBadData},
      {"finish_modelWithoutOutputs", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 1);
           addOperation(m, ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
           identify(m, {0, 1}, {});
         });
       },
       kBadData},
      {"finish_neverIdentified", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 1);
           addOperation(m, ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
         });
       },
       kBadData},
      {"finish_emptyModel", S::kNothing, [](World&) { return finishNew([](ANeuralNetworksModel*) {}); }, kBadData},
      {"finish_noOperations", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           addTensors(m, 2);
           identify(m, {0}, {1});
         });
       },
       kBadData},
      {"finish_outputNeverWritten", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 2);
           addOperation(m, ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
           identify(m, {0, 1}, {3, 4});
         });
       },
       kBadData},
      {"finish_temporaryNeverWritten", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 2);
           addOperation(m, ANEURALNETWORKS_ADD, {0, 4, 2}, {3});
           identify(m, {0}, {3});
         });
       },
       kBadData},
      {"finish_operandWrittenTwice", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 1);
           addOperation(m, ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
           addOperation(m, ANEURALNETWORKS_MUL, {0, 1, 2}, {3});
           identify(m, {0, 1}, {3});
         });
       },
       kBadData},
      {"finish_cycle", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 3);
           addOperation(m, ANEURALNETWORKS_ADD, {4, 0, 2}, {3});
           addOperation(m, ANEURALNETWORKS_ADD, {3, 1, 2}, {4});
           addOperation(m, ANEURALNETWORKS_ADD, {3, 4, 2}, {5});
           identify(m, {0, 1}, {5});
         });
       },
       kBadData},
      {"finish_perChannelOperandWithoutParameters", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 1);
           const uint32_t dims[] = {2};
           const ANeuralNetworksOperandType perChannel{ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, 1, dims, 0.0f,
                                                       0};
           ANeuralNetworksModel_addOperand(m, &perChannel);
           const int8_t values[2] = {1, 2};
           ANeuralNetworksModel_setOperandValue(m, 4, values, 2);
           addOperation(m, ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
           identify(m, {0, 1}, {3});
         });
       },
       kBadData},
      {"finish_modelOperandWithoutModel", S::kNothing,
       [](World&) {
         return finishNew([](ANeuralNetworksModel* m) {
           sumOperands(m, 1);
           const ANeuralNetworksOperandType reference{ANEURALNETWORKS_MODEL, 0, nullptr, 0.0f, 0};
           ANeuralNetworksModel_addOperand(m, &reference);
           addOperation(m, ANEURALNETWORKS_ADD, {0, 1, 2}, {3});
           identify(m, {0, 1}, {3});
         });
       },
       kBadData},
  };
}

// The type org.weft.accel's accumulator has in the model under construction.
int32_t accumulatorType(World& w) {
  int32_t type = 0;
  ANeuralNetworksModel_getExtensionOperandType(w.model(), "org.weft.accel", 0, &type);
  return type;
}

std::vector<Case> extensionTypeCases() {
  using S = Subject;
  return {
      {"addOperand_extensionTypeWithScale", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, accumulatorType(w), {2}, 0.5f); }, kBadData},
      {"addOperand_extensionTypeWithZeroPoint", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, accumulatorType(w), {2}, 0.0f, 1); }, kBadData},
      {"addOperand_extensionCodeTheExtensionDoesNotDefine", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, accumulatorType(w) + 9, {2}); }, kBadData},
      {"addOperand_extensionPrefixNotHandedOut", S::kModelUnderConstruction,
       [](World& w) { return addOperand(w, accumulatorType(w) + 0x10000, {2}); }, kBadData},
      {"addOperand_extensionTensorOverflows32Bits", S::kModelUnderConstruction,
       [](World& w) {
         return addOperand(w, accumulatorType(w), {65536, 16384});
       },
       kBadData},
      {"addOperand_extensionTensorCountWithoutDimensions", S::kModelUnderConstruction,
       [](World& w) {
         const ANeuralNetworksOperandType t{accumulatorType(w), 2, nullptr, 0.0f, 0};
         return ANeuralNetworksModel_addOperand(w.model(), &t);
       },
       kBadData},
      {"addOperation_extensionPrefixNotHandedOut", S::kModelUnderConstruction,
       [](World& w) {
         return addOperation(w.model(), 0x00050000, {0, 1}, {4});
       },
       kBadData},
      // A prefix is part of the model: a finished model gets none for an extension it did not use.
      // (Android's prefixes are process-wide and keep coming.)
      {"getExtensionOperandType_newExtensionAfterFinish", S::kFinishedModel,
       [](World& w) {
         int32_t t;
         return ANeuralNetworksModel_getExtensionOperandType(w.finishedModel(), "org.weft.accel", 0, &t);
       },
       kBadState},
  };
}

std::vector<Case> supportAndExtensionCases() {
  using S = Subject;
  const auto supported = [](World& w, ANeuralNetworksModel* model, std::vector<const ANeuralNetworksDevice*> devices,
                            uint32_t count) {
    const auto* list = w.keep(std::move(devices));
    bool* result = w.keep(std::array<bool, 4>{})->data();
    return ANeuralNetworksModel_getSupportedOperationsForDevices(model, list->data(), count, result);
  };
  return {
      {"getSupportedOperationsForDevices_nullModel", S::kNothing,
       [](World& w) {
         const ANeuralNetworksDevice* d = w.cpu();
         bool s[1];
         return ANeuralNetworksModel_getSupportedOperationsForDevices(nullptr, &d, 1, s);
       },
       kNull},
      {"getSupportedOperationsForDevices_nullDevices", S::kFinishedModel,
       [](World& w) {
         bool s[1];
         return ANeuralNetworksModel_getSupportedOperationsForDevices(w.finishedModel(), nullptr, 1, s);
       },
       kNull},
      {"getSupportedOperationsForDevices_nullResult", S::kFinishedModel,
       [](World& w) {
         const ANeuralNetworksDevice* d = w.cpu();
         return ANeuralNetworksModel_getSupportedOperationsForDevices(w.finishedModel(), &d, 1, nullptr);
       },
       kNull},
      {"getSupportedOperationsForDevices_zeroDevices", S::kFinishedModel,
       [supported](World& w) { return supported(w, w.finishedModel(), {w.cpu()}, 0); }, kBadData},
      {"getSupportedOperationsForDevices_duplicateDevices", S::kFinishedModel,
       [supported](World& w) {
         return supported(w, w.finishedModel(), {w.cpu(), w.cpu()}, 2);
       },
       kBadData},
      {"getSupportedOperationsForDevices_nullDeviceInList", S::kFinishedModel,
       [supported](World& w) {
         return supported(w, w.finishedModel(), {w.cpu(), nullptr}, 2);
       },
       kNull},
      {"getSupportedOperationsForDevices_notADevice", S::kFinishedModel,
       [supported](World& w) { return supported(w, w.finishedModel(), {w.bogusDevice()}, 1); }, kBadData},
      {"getSupportedOperationsForDevices_unfinishedModel", S::kModelUnderConstruction,
       [supported](World& w) { return supported(w, w.model(), {w.cpu()}, 1); }, kBadState},
      {"getSupportedOperationsForDevices_invalidModel", S::kInvalidModel,
       [supported](World& w) { return supported(w, w.invalidModel(), {w.cpu()}, 1); }, kBadState},

      {"getExtensionOperandType_nullModel", S::kNothing,
       [](World&) {
         int32_t t;
         return ANeuralNetworksModel_getExtensionOperandType(nullptr, "org.weft.accel", 0, &t);
       },
       kNull},
      {"getExtensionOperandType_nullName", S::kModelUnderConstruction,
       [](World& w) {
         int32_t t;
         return ANeuralNetworksModel_getExtensionOperandType(w.model(), nullptr, 0, &t);
       },
       kNull},
      {"getExtensionOperandType_nullType", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_getExtensionOperandType(w.model(), "org.weft.accel", 0, nullptr); },
       kNull},
      // Android hands out a type for any name and refuses it at addOperand; weft refuses a name
      // no device supports at once.
      {"getExtensionOperandType_unsupportedExtension", S::kModelUnderConstruction,
       [](World& w) {
         int32_t t;
         return ANeuralNetworksModel_getExtensionOperandType(w.model(), "com.example.nothing", 0, &t);
       },
       kBadData},
      {"getExtensionOperationType_nullModel", S::kNothing,
       [](World&) {
         ANeuralNetworksOperationType t;
         return ANeuralNetworksModel_getExtensionOperationType(nullptr, "org.weft.accel", 0, &t);
       },
       kNull},
      {"getExtensionOperationType_nullName", S::kModelUnderConstruction,
       [](World& w) {
         ANeuralNetworksOperationType t;
         return ANeuralNetworksModel_getExtensionOperationType(w.model(), nullptr, 0, &t);
       },
       kNull},
      {"getExtensionOperationType_nullType", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_getExtensionOperationType(w.model(), "org.weft.accel", 0, nullptr); },
       kNull},
      {"getExtensionOperationType_unsupportedExtension", S::kModelUnderConstruction,
       [](World& w) {
         ANeuralNetworksOperationType t;
         return ANeuralNetworksModel_getExtensionOperationType(w.model(), "com.example.nothing", 0, &t);
       },
       kBadData},
      {"setOperandExtensionData_nullModel", S::kNothing,
       [](World& w) { return ANeuralNetworksModel_setOperandExtensionData(nullptr, 4, w.keep(int32_t{0}), 4); }, kNull},
      {"setOperandExtensionData_nullDataWithLength", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandExtensionData(w.model(), 4, nullptr, 4); }, kNull},
      {"setOperandExtensionData_indexOutOfRange", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandExtensionData(w.model(), 8, w.keep(int32_t{0}), 4); },
       kBadData},
      {"setOperandExtensionData_baseOperandType", S::kModelUnderConstruction,
       [](World& w) { return ANeuralNetworksModel_setOperandExtensionData(w.model(), 4, w.keep(int32_t{0}), 4); },
       kBadData},
      {"setOperandExtensionData_afterFinish", S::kFinishedModel,
       [](World& w) {
         return ANeuralNetworksModel_setOperandExtensionData(w.finishedModel(), 0, w.keep(int32_t{0}), 4);
       },
       kBadState},
  };
}

}  // namespace

std::vector<Case> modelCases() {
  std::vector<Case> cases;
  cases.push_back(
      {"create_nullModel", Subject::kNothing, [](World&) { return ANeuralNetworksModel_create(nullptr); }, kNull});
  for (auto part : {addOperandCases(), setOperandValueCases(), addOperationCases(), identifyCases(), finishCases(),
                    supportAndExtensionCases(), extensionTypeCases()}) {
    for (Case& c : part) {
      c.name = "Model_" + c.name;
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace weft::test::battery
