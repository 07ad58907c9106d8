// The recurrent, detection and box operations (kernels_ref/ops/LSTM.cpp ... HeatmapMaxKeypoint.cpp):
//  - every constraint the validation checks is BAD_DATA at validation;
//  - value errors the validation cannot see (request-supplied batch indexes, boxes, scalars,
//    omitted required operands) fail the execution with BAD_DATA and leave the guard bytes around
//    the outputs intact;
//  - a few behaviours the corpus does not pin down: a selection that keeps nothing yields
//    zero-sized outputs, SVDF ages its memory, the RNN cell computes relu(Wx + Rh + b).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "OpModelBuilder.h"
#include "weft/kernels/Float16.h"

namespace weft::test {
namespace {

using nn::OperandType;
using nn::OperationType;
using Tensor = OpModelBuilder::Tensor;

Tensor q8symm(nn::Dimensions dims, float scale) { return {OperandType::TENSOR_QUANT8_SYMM, std::move(dims), scale}; }
Tensor q16(nn::Dimensions dims, float scale = 0.125f) {
  return {OperandType::TENSOR_QUANT16_ASYMM, std::move(dims), scale, 0};
}
Tensor q16symm(nn::Dimensions dims, float scale) { return {OperandType::TENSOR_QUANT16_SYMM, std::move(dims), scale}; }

uint32_t floats(OpModelBuilder& m, nn::Dimensions dims, const std::vector<float>& v) {
  return m.input(f32(std::move(dims)), OpModelBuilder::bytesOf(v));
}
uint32_t ints(OpModelBuilder& m, nn::Dimensions dims, const std::vector<int32_t>& v) {
  return m.input(i32(std::move(dims)), OpModelBuilder::bytesOf(v));
}
uint32_t float16Scalar(OpModelBuilder& m, float v) {
  return m.constant({OperandType::FLOAT16, {}}, std::vector<nn::Float16>{static_cast<nn::Float16>(v)});
}

// One operation over `inputs` with the given outputs.
OpModelBuilder& operation(OpModelBuilder& m, OperationType type, std::vector<uint32_t> inputs,
                          const std::vector<Tensor>& outputs) {
  std::vector<uint32_t> outs;
  for (const Tensor& t : outputs) outs.push_back(m.output(t));
  m.operation(type, std::move(inputs), std::move(outs));
  return m;
}

// --- RNN family ----------------------------------------------------------------------------------

// RNN with batch 2, inputSize 3, numUnits 4; `weightsDims` lets a test break the shapes.
std::vector<uint32_t> rnnInputs(OpModelBuilder& m, OperandType type, nn::Dimensions weightsDims = {4, 3},
                                uint32_t activation = 0) {
  return {zeroInput(m, {type, {2, 3}}),    zeroInput(m, {type, weightsDims}), zeroInput(m, {type, {4, 4}}),
          zeroInput(m, {type, {4}}),       zeroInput(m, {type, {2, 4}}),     m.int32Scalar(activation)};
}

TEST(SequenceOpsValidation, RnnRejectsTypeActivationAndShapes) {
  {
    OpModelBuilder m;
    operation(m, OperationType::RNN, rnnInputs(m, OperandType::TENSOR_INT32), {i32({2, 4}), i32({2, 4})});
    expectBadData(m.validate(), "unsupported input type");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::RNN, rnnInputs(m, OperandType::TENSOR_FLOAT32, {4, 3}, 7), {f32({2, 4}), f32({2, 4})});
    expectBadData(m.validate(), "invalid fused activation");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::RNN, rnnInputs(m, OperandType::TENSOR_FLOAT32, {4, 5}), {f32({2, 4}), f32({2, 4})});
    expectBadData(m.validate(), "inputSize");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::RNN, rnnInputs(m, OperandType::TENSOR_FLOAT32, {4, 3, 1}), {f32({2, 4}), f32({2, 4})});
    expectBadData(m.validate(), "rank");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::RNN, rnnInputs(m, OperandType::TENSOR_FLOAT32), {f32({2, 4}), f16({2, 4})});
    expectBadData(m.validate(), "output 1");
  }
}

TEST(SequenceOpsExecution, RnnRejectsARequestActivationOutOfRange) {
  OpModelBuilder m;
  std::vector<uint32_t> in = rnnInputs(m, OperandType::TENSOR_FLOAT32);
  in[5] = requestInt32(m, 9);
  operation(m, OperationType::RNN, in, {f32({2, 4}), f32({2, 4})});
  expectExecutionBadData(m, "invalid fused activation");
}

TEST(SequenceOpsExecution, RnnComputesReluOfTheAffineStep) {
  // One unit: h = relu(w x + r h_prev + b) with w = 2, r = -1, b = 0.5.
  OpModelBuilder m;
  std::vector<uint32_t> in = {floats(m, {2, 1}, {1.0f, -3.0f}), floats(m, {1, 1}, {2.0f}), floats(m, {1, 1}, {-1.0f}),
                              floats(m, {1}, {0.5f}), floats(m, {2, 1}, {0.25f, 1.0f}), m.int32Scalar(1)};
  operation(m, OperationType::RNN, in, {f32({2, 1}), f32({2, 1})});
  ASSERT_TRUE(m.validate().ok());
  const auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << run.result.error().message;
  EXPECT_EQ(OpModelBuilder::as<float>(run.outputs[1]), (std::vector<float>{2.25f, 0.0f}));
  EXPECT_EQ(OpModelBuilder::as<float>(run.outputs[0]), (std::vector<float>{2.25f, 0.0f}));
  EXPECT_TRUE(run.guardsIntact);
}

std::vector<uint32_t> sequenceRnnInputs(OpModelBuilder& m, uint32_t timeMajorOperand) {
  return {zeroInput(m, f32({2, 5, 3})), zeroInput(m, f32({4, 3})), zeroInput(m, f32({4, 4})),
          zeroInput(m, f32({4})),       zeroInput(m, f32({2, 4})), m.int32Scalar(0),
          timeMajorOperand};
}

TEST(SequenceOpsValidation, UnidirectionalSequenceRnnRejectsTimeMajorAndOutputCount) {
  {
    OpModelBuilder m;
    operation(m, OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, sequenceRnnInputs(m, m.int32Scalar(2)),
              {f32({2, 5, 4})});
    expectBadData(m.validate(), "timeMajor");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, sequenceRnnInputs(m, m.int32Scalar(0)),
              {f32({2, 5, 4}), f32({2, 4}), f32({2, 4})});
    expectBadData(m.validate(), "1 output, or 2");
  }
  {
    // Batch-major: the output's first dimension is the batch (2), not 5.
    OpModelBuilder m;
    operation(m, OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, sequenceRnnInputs(m, m.int32Scalar(0)),
              {f32({5, 2, 4})});
    expectBadData(m.validate(), "batch");
  }
}

TEST(SequenceOpsExecution, UnidirectionalSequenceRnnRejectsARequestTimeMajor) {
  OpModelBuilder m;
  operation(m, OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, sequenceRnnInputs(m, requestInt32(m, 3)),
            {f32({2, 5, 4})});
  expectExecutionBadData(m, "timeMajor");
}

// BIDIRECTIONAL_SEQUENCE_RNN, batch-major [2, 5, 3], 4 units each way; aux operands omitted
// unless given.
std::vector<uint32_t> bidirectionalRnnInputs(OpModelBuilder& m, bool merge, bool fwAuxWeightsOnly = false) {
  std::vector<uint32_t> in = {zeroInput(m, f32({2, 5, 3}))};
  for (int direction = 0; direction < 2; ++direction) {
    in.push_back(zeroInput(m, f32({4, 3})));
    in.push_back(zeroInput(m, f32({4, 4})));
    in.push_back(zeroInput(m, f32({4})));
    in.push_back(zeroInput(m, f32({2, 4})));
  }
  in.push_back(m.omitted(OperandType::TENSOR_FLOAT32));
  in.push_back(fwAuxWeightsOnly ? zeroInput(m, f32({4, 3})) : m.omitted(OperandType::TENSOR_FLOAT32));
  in.push_back(m.omitted(OperandType::TENSOR_FLOAT32));
  in.push_back(m.int32Scalar(1));
  in.push_back(m.boolScalar(false));
  in.push_back(m.boolScalar(merge));
  return in;
}

TEST(SequenceOpsValidation, BidirectionalSequenceRnnRejectsOutputsThatDoNotFitTheMergeFlag) {
  OpModelBuilder m;
  operation(m, OperationType::BIDIRECTIONAL_SEQUENCE_RNN, bidirectionalRnnInputs(m, /*merge=*/true),
            {f32({2, 5, 8}), f32({2, 5, 4})});
  expectBadData(m.validate(), "mergeOutputs");
}

TEST(SequenceOpsExecution, BidirectionalSequenceRnnRejectsAuxWeightsWithoutAuxInput) {
  OpModelBuilder m;
  operation(m, OperationType::BIDIRECTIONAL_SEQUENCE_RNN, bidirectionalRnnInputs(m, false, /*fwAuxWeightsOnly=*/true),
            {f32({2, 5, 4}), f32({2, 5, 4})});
  expectExecutionBadData(m, "auxiliary weights");
}

// --- SVDF ------------------------------------------------------------------------------------------

// batch 1, inputSize 2, numFilters 2, memorySize 3, rank `rank`; bias omitted.
std::vector<uint32_t> svdfInputs(OpModelBuilder& m, uint32_t rankOperand, const std::vector<float>& state) {
  return {floats(m, {1, 2}, {1.0f, 2.0f}), floats(m, {2, 2}, {1.0f, 0.0f, 0.0f, 1.0f}),
          floats(m, {2, 3}, {1.0f, 1.0f, 1.0f, 0.0f, 0.0f, 1.0f}), m.omitted(OperandType::TENSOR_FLOAT32),
          floats(m, {1, 6}, state), rankOperand, m.int32Scalar(0)};
}

TEST(SequenceOpsValidation, SvdfRejectsRank) {
  {
    OpModelBuilder m;
    operation(m, OperationType::SVDF, svdfInputs(m, m.int32Scalar(0), std::vector<float>(6)),
              {f32({1, 6}), f32({1, 2})});
    expectBadData(m.validate(), "rank must be positive");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::SVDF, svdfInputs(m, m.int32Scalar(3), std::vector<float>(6)),
              {f32({1, 6}), f32({1, 1})});
    expectBadData(m.validate(), "multiple of rank");
  }
}

TEST(SequenceOpsExecution, SvdfRejectsARequestRankThatDoesNotDivideTheFilters) {
  OpModelBuilder m;
  operation(m, OperationType::SVDF, svdfInputs(m, requestInt32(m, 3), std::vector<float>(6)),
            {f32({1, 6}), f32({1, 0})});
  expectExecutionBadData(m, "multiple of rank");
}

TEST(SequenceOpsExecution, SvdfFiltersTheMemoryAndAgesIt) {
  // Filter 0 sees feature x0 = 1 and sums its memory; filter 1 sees x1 = 2 and keeps the newest.
  OpModelBuilder m;
  operation(m, OperationType::SVDF, svdfInputs(m, m.int32Scalar(1), {10, 20, 30, 40, 50, 60}),
            {f32({1, 6}), f32({1, 2})});
  ASSERT_TRUE(m.validate().ok());
  const auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << run.result.error().message;
  // Memory after the new activation: [10, 20, 1], [40, 50, 2]; filtered: 31 and 2.
  EXPECT_EQ(OpModelBuilder::as<float>(run.outputs[1]), (std::vector<float>{31.0f, 2.0f}));
  // Aged one step: the oldest drops out, the newest slot is cleared.
  EXPECT_EQ(OpModelBuilder::as<float>(run.outputs[0]), (std::vector<float>{20, 1, 0, 50, 2, 0}));
}

// --- LSTM family -----------------------------------------------------------------------------------

// LSTM inputs 0-22 (or 0-26 with layer norm) for batch 1, inputSize 2, 3 cells, no projection:
// a plain LSTM without peepholes.
std::vector<uint32_t> lstmInputs(OpModelBuilder& m, OperandType type, bool layerNorm = false) {
  const auto t = [type](nn::Dimensions d) { return Tensor{type, std::move(d)}; };
  std::vector<uint32_t> in = {zeroInput(m, t({1, 2}))};
  for (int i = 0; i < 4; ++i) in.push_back(zeroInput(m, t({3, 2})));
  for (int i = 0; i < 4; ++i) in.push_back(zeroInput(m, t({3, 3})));
  for (int i = 0; i < 3; ++i) in.push_back(m.omitted(type));
  for (int i = 0; i < 4; ++i) in.push_back(zeroInput(m, t({3})));
  in.push_back(m.omitted(type));
  in.push_back(m.omitted(type));
  in.push_back(zeroInput(m, t({1, 3})));
  in.push_back(zeroInput(m, t({1, 3})));
  in.push_back(m.int32Scalar(4));
  in.push_back(m.floatScalar(0.0f));
  in.push_back(m.floatScalar(0.0f));
  if (layerNorm) {
    for (int i = 0; i < 4; ++i) in.push_back(zeroInput(m, t({3})));
  }
  return in;
}

std::vector<Tensor> lstmOutputs() { return {f32({1, 12}), f32({1, 3}), f32({1, 3}), f32({1, 3})}; }

TEST(SequenceOpsValidation, LstmRejectsCountsActivationClipTypeAndShapes) {
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = lstmInputs(m, OperandType::TENSOR_FLOAT32);
    in.push_back(zeroInput(m, f32({3})));
    operation(m, OperationType::LSTM, in, lstmOutputs());
    expectBadData(m.validate(), "23 or 27 inputs");
  }
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = lstmInputs(m, OperandType::TENSOR_FLOAT32);
    in[20] = m.int32Scalar(2);  // RELU1 is not an LSTM activation
    operation(m, OperationType::LSTM, in, lstmOutputs());
    expectBadData(m.validate(), "unsupported LSTM activation");
  }
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = lstmInputs(m, OperandType::TENSOR_FLOAT32);
    in[21] = float16Scalar(m, 0.0f);
    operation(m, OperationType::LSTM, in, lstmOutputs());
    expectBadData(m.validate(), "expected FLOAT32");
  }
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = lstmInputs(m, OperandType::TENSOR_FLOAT32);
    in[7] = zeroInput(m, f32({5, 3}));  // recurrent-to-cell weights with 5 cells instead of 3
    operation(m, OperationType::LSTM, in, lstmOutputs());
    expectBadData(m.validate(), "numCells");
  }
}

TEST(SequenceOpsExecution, LstmRejectsOmittedRequiredInputsAndHalfCifg) {
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = lstmInputs(m, OperandType::TENSOR_FLOAT32);
    in[2] = m.omitted(OperandType::TENSOR_FLOAT32);  // input-to-forget weights are required
    operation(m, OperationType::LSTM, in, lstmOutputs());
    expectExecutionBadData(m, "required input 2 is omitted");
  }
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = lstmInputs(m, OperandType::TENSOR_FLOAT32);
    in[5] = m.omitted(OperandType::TENSOR_FLOAT32);  // recurrent-to-input without input-to-input
    operation(m, OperationType::LSTM, in, lstmOutputs());
    expectExecutionBadData(m, "CIFG");
  }
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = lstmInputs(m, OperandType::TENSOR_FLOAT32, /*layerNorm=*/true);
    in[24] = m.omitted(OperandType::TENSOR_FLOAT32);  // forget layer norm missing
    operation(m, OperationType::LSTM, in, lstmOutputs());
    expectExecutionBadData(m, "layer normalization");
  }
}

TEST(SequenceOpsValidation, UnidirectionalSequenceLstmRejectsOutputCount) {
  OpModelBuilder m;
  std::vector<uint32_t> in = lstmInputs(m, OperandType::TENSOR_FLOAT32, /*layerNorm=*/true);
  in[0] = zeroInput(m, f32({4, 1, 2}));
  in.insert(in.begin() + 23, m.boolScalar(true));  // timeMajor
  operation(m, OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, in, {f32({4, 1, 3}), f32({1, 3})});
  expectBadData(m.validate(), "1 output, or 3");
}

TEST(SequenceOpsValidation, BidirectionalSequenceLstmRejectsOutputsThatDoNotFitTheMergeFlag) {
  OpModelBuilder m;
  std::vector<uint32_t> in(61);
  const std::vector<uint32_t> cell = lstmInputs(m, OperandType::TENSOR_FLOAT32);
  in[0] = zeroInput(m, f32({4, 1, 2}));
  for (int i = 1; i <= 17; ++i) in[i] = in[i + 17] = cell[i];
  in[35] = in[37] = cell[18];
  in[36] = in[38] = cell[19];
  for (int i = 39; i <= 47; ++i) in[i] = m.omitted(OperandType::TENSOR_FLOAT32);
  in[48] = m.int32Scalar(4);
  in[49] = in[50] = m.floatScalar(0.0f);
  in[51] = m.boolScalar(true);  // merged outputs: one sequence output, not two
  in[52] = m.boolScalar(true);
  for (int i = 53; i <= 60; ++i) in[i] = m.omitted(OperandType::TENSOR_FLOAT32);
  operation(m, OperationType::BIDIRECTIONAL_SEQUENCE_LSTM, in, {f32({4, 1, 6}), f32({4, 1, 3})});
  expectBadData(m.validate(), "mergeOutputs");
}

// QUANTIZED_16BIT_LSTM with batch 1, inputSize 2, outputSize 2.
std::vector<uint32_t> quantized16BitLstmInputs(OpModelBuilder& m, float inputScale, float cellScale) {
  const float weightsScale = 0.25f;
  std::vector<uint32_t> in = {zeroInput(m, q8({1, 2}, inputScale, 128))};
  for (int i = 0; i < 4; ++i) in.push_back(zeroInput(m, q8({2, 2}, weightsScale, 100)));
  for (int i = 0; i < 4; ++i) in.push_back(zeroInput(m, q8({2, 2}, weightsScale, 100)));
  for (int i = 0; i < 4; ++i) in.push_back(zeroInput(m, {OperandType::TENSOR_INT32, {2}, weightsScale / 128, 0}));
  in.push_back(zeroInput(m, q16symm({1, 2}, cellScale)));
  in.push_back(zeroInput(m, q8({1, 2}, 1.0f / 128, 128)));
  return in;
}

TEST(SequenceOpsValidation, Quantized16BitLstmRejectsActivationAndCellStateQuantization) {
  {
    OpModelBuilder m;
    operation(m, OperationType::QUANTIZED_16BIT_LSTM, quantized16BitLstmInputs(m, 1.0f / 256, 1.0f / 2048),
              {q16symm({1, 2}, 1.0f / 2048), q8({1, 2}, 1.0f / 128, 128)});
    expectBadData(m.validate(), "scale 1/128");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::QUANTIZED_16BIT_LSTM, quantized16BitLstmInputs(m, 1.0f / 128, 1.0f / 1024),
              {q16symm({1, 2}, 1.0f / 2048), q8({1, 2}, 1.0f / 128, 128)});
    expectBadData(m.validate(), "2^-11");
  }
}

// QUANTIZED_LSTM with batch 1, inputSize 2, 2 units, CIFG, layer norm, no projection.
std::vector<uint32_t> quantizedLstmInputs(OpModelBuilder& m, float cellScale, float cellClip) {
  std::vector<uint32_t> in = {zeroInput(m, q8s({1, 2}, 1.0f / 128))};
  in.push_back(m.omitted(OperandType::TENSOR_QUANT8_SYMM));
  for (int i = 0; i < 3; ++i) in.push_back(zeroInput(m, q8symm({2, 2}, 1.0f / 128)));
  in.push_back(m.omitted(OperandType::TENSOR_QUANT8_SYMM));
  for (int i = 0; i < 3; ++i) in.push_back(zeroInput(m, q8symm({2, 2}, 1.0f / 128)));
  for (int i = 0; i < 3; ++i) in.push_back(m.omitted(OperandType::TENSOR_QUANT16_SYMM));
  in.push_back(m.omitted(OperandType::TENSOR_INT32));
  for (int i = 0; i < 3; ++i) in.push_back(zeroInput(m, i32({2})));
  in.push_back(m.omitted(OperandType::TENSOR_QUANT8_SYMM));
  in.push_back(m.omitted(OperandType::TENSOR_INT32));
  in.push_back(zeroInput(m, q8s({1, 2}, 1.0f / 128)));
  in.push_back(zeroInput(m, q16symm({1, 2}, cellScale)));
  in.push_back(m.omitted(OperandType::TENSOR_QUANT16_SYMM));
  for (int i = 0; i < 3; ++i) in.push_back(zeroInput(m, q16symm({2}, 1.0f / 32768)));
  in.push_back(m.floatScalar(cellClip));
  in.push_back(m.floatScalar(0.0f));
  for (int i = 0; i < 4; ++i) in.push_back(m.floatScalar(0.007f));
  in.push_back(m.int32Scalar(0));
  in.push_back(m.floatScalar(0.007f));
  return in;
}

std::vector<Tensor> quantizedLstmOutputs(float cellScale) {
  return {q8s({1, 2}, 1.0f / 128), q16symm({1, 2}, cellScale), q8s({1, 2}, 1.0f / 128)};
}

TEST(SequenceOpsValidation, QuantizedLstmRejectsTypesClipsAndCellScale) {
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = quantizedLstmInputs(m, 1.0f / 32768, 0.0f);
    in[2] = zeroInput(m, q8({2, 2}, 1.0f / 128, 0));  // weights must be TENSOR_QUANT8_SYMM
    operation(m, OperationType::QUANTIZED_LSTM, in, quantizedLstmOutputs(1.0f / 32768));
    expectBadData(m.validate(), "input 2 has type");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::QUANTIZED_LSTM, quantizedLstmInputs(m, 1.0f / 32768, -1.0f),
              quantizedLstmOutputs(1.0f / 32768));
    expectBadData(m.validate(), "clipping");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::QUANTIZED_LSTM, quantizedLstmInputs(m, 0.001f, 0.0f), quantizedLstmOutputs(0.001f));
    expectBadData(m.validate(), "power of two");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::QUANTIZED_LSTM, quantizedLstmInputs(m, 1.0f / 128, 0.0f),
              quantizedLstmOutputs(1.0f / 128));
    expectBadData(m.validate(), "-15 <= k <= -9");
  }
}

TEST(SequenceOpsExecution, QuantizedLstmRunsWithZeroStateAndKeepsTheGuards) {
  OpModelBuilder m;
  operation(m, OperationType::QUANTIZED_LSTM, quantizedLstmInputs(m, 1.0f / 32768, 0.0f),
            quantizedLstmOutputs(1.0f / 32768));
  ASSERT_TRUE(m.validate().ok());
  const auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << run.result.error().message;
  // Zero input, state and weights: the cell stays at 0 and the output at the hidden zero point.
  EXPECT_EQ(OpModelBuilder::as<int16_t>(run.outputs[1]), (std::vector<int16_t>{0, 0}));
  EXPECT_EQ(OpModelBuilder::as<int8_t>(run.outputs[2]), (std::vector<int8_t>{0, 0}));
  EXPECT_TRUE(run.guardsIntact);
}

// --- Boxes ------------------------------------------------------------------------------------------

TEST(DetectionOpsValidation, AxisAlignedBboxTransformRejectsQuantizationAndShapes) {
  {
    OpModelBuilder m;
    operation(m, OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
              {zeroInput(m, q16({2, 4}, 0.25f)), zeroInput(m, q8({2, 8}, 0.05f, 128)), zeroInput(m, i32({2})),
               zeroInput(m, q16({1, 2}))},
              {q16({2, 8})});
    expectBadData(m.validate(), "scale 0.125");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
              {zeroInput(m, f32({2, 3})), zeroInput(m, f32({2, 8})), zeroInput(m, i32({2})), zeroInput(m, f32({1, 2}))},
              {f32({2, 8})});
    expectBadData(m.validate(), "must be 4");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
              {zeroInput(m, f32({2, 4})), zeroInput(m, f32({2, 6})), zeroInput(m, i32({2})), zeroInput(m, f32({1, 2}))},
              {f32({2, 6})});
    expectBadData(m.validate(), "4 per class");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
              {zeroInput(m, f32({2, 4})), zeroInput(m, f16({2, 8})), zeroInput(m, i32({2})), zeroInput(m, f32({1, 2}))},
              {f32({2, 8})});
    expectBadData(m.validate(), "input 1 has type");
  }
}

TEST(DetectionOpsExecution, AxisAlignedBboxTransformRejectsBadBatchesAndBoxes) {
  {
    OpModelBuilder m;
    operation(m, OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
              {floats(m, {1, 4}, {0, 0, 4, 4}), zeroInput(m, f32({1, 4})), ints(m, {1}, {3}),
               floats(m, {1, 2}, {8, 8})},
              {f32({1, 4})});
    expectExecutionBadData(m, "names batch 3");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
              {floats(m, {1, 4}, {5, 0, 4, 4}), zeroInput(m, f32({1, 4})), ints(m, {1}, {0}),
               floats(m, {1, 2}, {8, 8})},
              {f32({1, 4})});
    expectExecutionBadData(m, "x2 < x1");
  }
}

// BOX_WITH_NMS_LIMIT over 2 rois x 2 classes of one image.
std::vector<uint32_t> boxWithNmsInputs(OpModelBuilder& m, const std::vector<float>& boxes, uint32_t kernel,
                                       float scoreThreshold = 0.1f) {
  return {floats(m, {2, 2}, {0.1f, 0.9f, 0.2f, 0.8f}), floats(m, {2, 8}, boxes), ints(m, {2}, {0, 0}),
          m.floatScalar(scoreThreshold), m.int32Scalar(-1), kernel, m.floatScalar(0.5f), m.floatScalar(1.0f),
          m.floatScalar(0.1f)};
}
const std::vector<float> kDisjointBoxes = {0, 0, 1, 1, 0, 0, 1, 1, 5, 5, 6, 6, 5, 5, 6, 6};
std::vector<Tensor> boxWithNmsOutputs(uint32_t n) { return {f32({n}), f32({n, 4}), i32({n}), i32({n})}; }

TEST(DetectionOpsValidation, BoxWithNmsLimitRejectsKernelAndShapes) {
  {
    OpModelBuilder m;
    operation(m, OperationType::BOX_WITH_NMS_LIMIT, boxWithNmsInputs(m, kDisjointBoxes, m.int32Scalar(3)),
              boxWithNmsOutputs(0));
    expectBadData(m.validate(), "unknown NMS kernel");
  }
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = boxWithNmsInputs(m, kDisjointBoxes, m.int32Scalar(0));
    in[1] = zeroInput(m, f32({2, 4}));  // one box per roi, but two classes
    operation(m, OperationType::BOX_WITH_NMS_LIMIT, in, boxWithNmsOutputs(0));
    expectBadData(m.validate(), "boxesPerRoi");
  }
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = boxWithNmsInputs(m, kDisjointBoxes, m.int32Scalar(0));
    in[0] = zeroInput(m, q8({2, 2}, 0.01f, 0));
    in[1] = zeroInput(m, q16({2, 8}, 0.5f));
    operation(m, OperationType::BOX_WITH_NMS_LIMIT, in,
              {q8({0}, 0.01f, 0), q16({0, 4}, 0.5f), i32({0}), i32({0})});
    expectBadData(m.validate(), "scale 0.125");
  }
}

TEST(DetectionOpsExecution, BoxWithNmsLimitRejectsARequestKernelAndInvertedBoxes) {
  {
    OpModelBuilder m;
    operation(m, OperationType::BOX_WITH_NMS_LIMIT, boxWithNmsInputs(m, kDisjointBoxes, requestInt32(m, 7)),
              boxWithNmsOutputs(0));
    expectExecutionBadData(m, "unknown NMS kernel 7");
  }
  {
    std::vector<float> boxes = kDisjointBoxes;
    boxes[4] = 2;  // x1 > x2
    OpModelBuilder m;
    operation(m, OperationType::BOX_WITH_NMS_LIMIT, boxWithNmsInputs(m, boxes, m.int32Scalar(0)),
              boxWithNmsOutputs(0));
    expectExecutionBadData(m, "x2 < x1");
  }
}

TEST(DetectionOpsExecution, BoxWithNmsLimitSizesItsOutputsByTheSelection) {
  {
    // Class 1 of both (disjoint) rois survives; ordered by score.
    OpModelBuilder m;
    operation(m, OperationType::BOX_WITH_NMS_LIMIT, boxWithNmsInputs(m, kDisjointBoxes, m.int32Scalar(0)),
              boxWithNmsOutputs(0));
    ASSERT_TRUE(m.validate().ok());
    const OpModelBuilder::Run run = m.run();
    ASSERT_TRUE(run.result.ok()) << run.result.error().message;
    // The request's buffers were sized for the declared [0]: the executor reports the real size.
    EXPECT_FALSE((*run.result)[0].isSufficient);
    EXPECT_EQ((*run.result)[0].dimensions, (nn::Dimensions{2}));
    EXPECT_TRUE(run.guardsIntact);
  }
  {
    // A score threshold above every score selects nothing: zero-sized outputs.
    OpModelBuilder m;
    operation(m, OperationType::BOX_WITH_NMS_LIMIT, boxWithNmsInputs(m, kDisjointBoxes, m.int32Scalar(1), 0.95f),
              boxWithNmsOutputs(0));
    ASSERT_TRUE(m.validate().ok());
    const OpModelBuilder::Run run = m.run();
    ASSERT_TRUE(run.result.ok()) << run.result.error().message;
    EXPECT_EQ((*run.result)[1].dimensions, (nn::Dimensions{0, 4}));
    EXPECT_TRUE(run.guardsIntact);
  }
}

TEST(DetectionOpsValidation, GenerateProposalsRejectsQuantizationAndShapes) {
  const auto inputs = [](OpModelBuilder& m, Tensor scores, Tensor deltas, Tensor anchors, Tensor imageInfo) {
    return std::vector<uint32_t>{zeroInput(m, scores),   zeroInput(m, deltas), zeroInput(m, anchors),
                                 zeroInput(m, imageInfo), m.floatScalar(1),     m.floatScalar(1),
                                 m.int32Scalar(-1),       m.int32Scalar(-1),    m.floatScalar(0.3f),
                                 m.floatScalar(1),        m.boolScalar(false)};
  };
  {
    OpModelBuilder m;
    operation(m, OperationType::GENERATE_PROPOSALS,
              inputs(m, q8({1, 2, 2, 2}, 0.1f, 0), q8({1, 2, 2, 8}, 0.1f, 128), q16symm({2, 4}, 0.25f),
                     q16({1, 2})),
              {q8({0}, 0.1f, 0), q16({0, 4}), i32({0})});
    expectBadData(m.validate(), "anchors");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::GENERATE_PROPOSALS,
              inputs(m, f32({1, 2, 2, 2}), f32({1, 2, 2, 4}), f32({2, 4}), f32({1, 2})),
              {f32({0}), f32({0, 4}), i32({0})});
    expectBadData(m.validate(), "deltasPerPosition");
  }
}

TEST(DetectionOpsExecution, GenerateProposalsRejectsAnInvertedAnchor) {
  OpModelBuilder m;
  operation(m, OperationType::GENERATE_PROPOSALS,
            {floats(m, {1, 1, 1, 1}, {0.5f}), zeroInput(m, f32({1, 1, 1, 4})), floats(m, {1, 4}, {4, 0, 0, 4}),
             floats(m, {1, 2}, {8, 8}), m.floatScalar(1), m.floatScalar(1), m.int32Scalar(-1), m.int32Scalar(-1),
             m.floatScalar(0.3f), m.floatScalar(0), m.boolScalar(false)},
            {f32({0}), f32({0, 4}), i32({0})});
  expectExecutionBadData(m, "x2 < x1");
}

// DETECTION_POSTPROCESSING over 1 batch, 2 anchors, 3 classes.
std::vector<uint32_t> detectionInputs(OpModelBuilder& m, uint32_t maxDetections) {
  return {zeroInput(m, f32({1, 2, 3})), zeroInput(m, f32({1, 2, 4})), floats(m, {2, 4}, {1, 1, 2, 2, 5, 5, 2, 2}),
          m.floatScalar(10), m.floatScalar(10), m.floatScalar(5), m.floatScalar(5), m.boolScalar(false), maxDetections,
          m.int32Scalar(1), m.int32Scalar(1), m.floatScalar(0.0f), m.floatScalar(0.5f), m.boolScalar(false)};
}

TEST(DetectionOpsValidation, DetectionPostprocessingRejectsDetectionsAndType) {
  {
    OpModelBuilder m;
    operation(m, OperationType::DETECTION_POSTPROCESSING, detectionInputs(m, m.int32Scalar(0)),
              {f32({1, 1}), f32({1, 1, 4}), i32({1, 1}), i32({1})});
    expectBadData(m.validate(), "maxNumDetections must be positive");
  }
  {
    OpModelBuilder m;
    std::vector<uint32_t> in = detectionInputs(m, m.int32Scalar(1));
    in[0] = zeroInput(m, q8({1, 2, 3}, 0.1f, 0));
    operation(m, OperationType::DETECTION_POSTPROCESSING, in, {f32({1, 1}), f32({1, 1, 4}), i32({1, 1}), i32({1})});
    expectBadData(m.validate(), "unsupported scores type");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::DETECTION_POSTPROCESSING, detectionInputs(m, m.int32Scalar(2)),
              {f32({1, 3}), f32({1, 3, 4}), i32({1, 3}), i32({1})});
    expectBadData(m.validate(), "numDetections");
  }
}

TEST(DetectionOpsExecution, DetectionPostprocessingRejectsARequestMaxDetections) {
  OpModelBuilder m;
  operation(m, OperationType::DETECTION_POSTPROCESSING, detectionInputs(m, requestInt32(m, 0)),
            {f32({1, 1}), f32({1, 1, 4}), i32({1, 1}), i32({1})});
  expectExecutionBadData(m, "maxNumDetections must be positive");
}

// --- Regions of interest and heatmaps ------------------------------------------------------------

// ROI_ALIGN / ROI_POOLING over a 1x4x4x1 NHWC feature map with 1:1 strides.
std::vector<uint32_t> roiInputs(OpModelBuilder& m, OperationType type, Tensor input, uint32_t rois, uint32_t batches,
                                int32_t outSize, int32_t samplingRatio) {
  std::vector<uint32_t> in = {zeroInput(m, input), rois, batches, m.int32Scalar(outSize), m.int32Scalar(outSize),
                              m.floatScalar(1.0f), m.floatScalar(1.0f)};
  if (type == OperationType::ROI_ALIGN) {
    in.push_back(m.int32Scalar(samplingRatio));
    in.push_back(m.int32Scalar(samplingRatio));
  }
  in.push_back(m.boolScalar(false));
  return in;
}

TEST(RoiOpsValidation, RoiAlignRejectsSamplingOutputSizeAndShapes) {
  {
    OpModelBuilder m;
    operation(m, OperationType::ROI_ALIGN,
              roiInputs(m, OperationType::ROI_ALIGN, f32({1, 4, 4, 1}), floats(m, {1, 4}, {0, 0, 2, 2}),
                        ints(m, {1}, {0}), 2, -1),
              {f32({1, 2, 2, 1})});
    expectBadData(m.validate(), "sampling ratio");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::ROI_ALIGN,
              roiInputs(m, OperationType::ROI_ALIGN, f32({1, 4, 4, 1}), floats(m, {1, 4}, {0, 0, 2, 2}),
                        ints(m, {1}, {0}), 0, 2),
              {f32({1, 1, 1, 1})});
    expectBadData(m.validate(), "output size must be positive");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::ROI_ALIGN,
              roiInputs(m, OperationType::ROI_ALIGN, f32({1, 4, 4, 1}), floats(m, {1, 4}, {0, 0, 2, 2}),
                        ints(m, {2}, {0, 0}), 2, 2),
              {f32({1, 2, 2, 1})});
    expectBadData(m.validate(), "numRois");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::ROI_ALIGN,
              roiInputs(m, OperationType::ROI_ALIGN, q8({1, 4, 4, 1}, 0.1f, 0), zeroInput(m, q16({1, 4}, 0.5f)),
                        ints(m, {1}, {0}), 2, 2),
              {q8({1, 2, 2, 1}, 0.1f, 0)});
    expectBadData(m.validate(), "scale 0.125");
  }
}

TEST(RoiOpsExecution, RoiAlignRejectsBadBatchesAndOutOfMapRois) {
  {
    OpModelBuilder m;
    operation(m, OperationType::ROI_ALIGN,
              roiInputs(m, OperationType::ROI_ALIGN, f32({1, 4, 4, 1}), floats(m, {1, 4}, {0, 0, 2, 2}),
                        ints(m, {1}, {1}), 2, 2),
              {f32({1, 2, 2, 1})});
    expectExecutionBadData(m, "names batch 1");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::ROI_ALIGN,
              roiInputs(m, OperationType::ROI_ALIGN, f32({1, 4, 4, 1}), floats(m, {1, 4}, {0, 0, 9, 2}),
                        ints(m, {1}, {0}), 2, 2),
              {f32({1, 2, 2, 1})});
    expectExecutionBadData(m, "outside the feature map");
  }
}

TEST(RoiOpsValidation, RoiPoolingRejectsType) {
  OpModelBuilder m;
  operation(m, OperationType::ROI_POOLING,
            roiInputs(m, OperationType::ROI_POOLING, i32({1, 4, 4, 1}), zeroInput(m, i32({1, 4})),
                      ints(m, {1}, {0}), 2, 0),
            {i32({1, 2, 2, 1})});
  expectBadData(m.validate(), "unsupported input type");
}

TEST(RoiOpsExecution, RoiPoolingRejectsANegativeCoordinate) {
  OpModelBuilder m;
  operation(m, OperationType::ROI_POOLING,
            roiInputs(m, OperationType::ROI_POOLING, f32({1, 4, 4, 1}), floats(m, {1, 4}, {-1, 0, 2, 2}),
                      ints(m, {1}, {0}), 2, 0),
            {f32({1, 2, 2, 1})});
  expectExecutionBadData(m, "negative coordinate");
}

TEST(RoiOpsValidation, HeatmapMaxKeypointRejectsBoxQuantizationAndTinyHeatmaps) {
  {
    OpModelBuilder m;
    operation(m, OperationType::HEATMAP_MAX_KEYPOINT,
              {zeroInput(m, q8({1, 3, 3, 1}, 0.1f, 0)), zeroInput(m, q16({1, 4}, 0.5f)), m.boolScalar(false)},
              {q8({1, 1}, 0.1f, 0), q16({1, 1, 2})});
    expectBadData(m.validate(), "0.125");
  }
  {
    OpModelBuilder m;
    operation(m, OperationType::HEATMAP_MAX_KEYPOINT,
              {zeroInput(m, f32({1, 1, 1, 2})), zeroInput(m, f32({1, 4})), m.boolScalar(false)},
              {f32({1, 2}), f32({1, 2, 2})});
    expectBadData(m.validate(), "2 x 2");
  }
}

TEST(RoiOpsExecution, HeatmapMaxKeypointRejectsAnInvertedBox) {
  OpModelBuilder m;
  operation(m, OperationType::HEATMAP_MAX_KEYPOINT,
            {zeroInput(m, f32({1, 3, 3, 1})), floats(m, {1, 4}, {0, 4, 2, 2}), m.boolScalar(false)},
            {f32({1, 1}), f32({1, 1, 2})});
  expectExecutionBadData(m, "x2 < x1");
}

}  // namespace
}  // namespace weft::test
