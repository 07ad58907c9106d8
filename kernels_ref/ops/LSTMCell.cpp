#include "LSTMCell.h"

#include <algorithm>
#include <cmath>

#include "TensorAsFloat.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::lstm {

CellOperands cellOperands(uint32_t firstWeight, uint32_t outputState, uint32_t cellState, uint32_t firstLayerNorm,
                          uint32_t firstAuxWeight) {
  CellOperands o;
  uint32_t* const order[] = {&o.inputToInput,      &o.inputToForget,     &o.inputToCell,     &o.inputToOutput,
                             &o.recurrentToInput,  &o.recurrentToForget, &o.recurrentToCell, &o.recurrentToOutput,
                             &o.cellToInput,       &o.cellToForget,      &o.cellToOutput,    &o.inputGateBias,
                             &o.forgetGateBias,    &o.cellGateBias,      &o.outputGateBias,  &o.projectionWeights,
                             &o.projectionBias};
  for (uint32_t i = 0; i < 17; ++i) *order[i] = firstWeight + i;
  o.outputStateIn = outputState;
  o.cellStateIn = cellState;
  if (firstLayerNorm != kNoOperand) {
    o.inputLayerNorm = firstLayerNorm;
    o.forgetLayerNorm = firstLayerNorm + 1;
    o.cellLayerNorm = firstLayerNorm + 2;
    o.outputLayerNorm = firstLayerNorm + 3;
  }
  if (firstAuxWeight != kNoOperand) {
    o.auxInputToInput = firstAuxWeight;
    o.auxInputToForget = firstAuxWeight + 1;
    o.auxInputToCell = firstAuxWeight + 2;
    o.auxInputToOutput = firstAuxWeight + 3;
  }
  return o;
}

namespace {

bool present(const IOperationExecutionContext* context, uint32_t index) {
  return index != kNoOperand && index < context->getNumInputs() && !context->isOmittedInput(index);
}

Status checkMatrix(const IOperationExecutionContext* context, uint32_t index, uint32_t rows, uint32_t cols,
                   const char* what) {
  const Shape s = context->getInputShape(index);
  NN_RET_CHECK(getNumberOfDimensions(s) == 2 && s.dimensions[0] == rows && s.dimensions[1] == cols)
      << what << " must be [" << rows << ", " << cols << "], got " << toString(s.dimensions);
  return {};
}

Status checkVector(const IOperationExecutionContext* context, uint32_t index, uint32_t size, const char* what) {
  const Shape s = context->getInputShape(index);
  NN_RET_CHECK(getNumberOfDimensions(s) == 1 && s.dimensions[0] == size)
      << what << " must be [" << size << "], got " << toString(s.dimensions);
  return {};
}

}  // namespace

Result<CellConfig> checkCell(const IOperationExecutionContext* context, const CellOperands& op, uint32_t batchSize,
                             uint32_t inputSize, uint32_t auxInputSize) {
  auto has = [context](uint32_t index) { return present(context, index); };
  for (uint32_t i : {op.inputToForget, op.inputToCell, op.inputToOutput, op.recurrentToForget, op.recurrentToCell,
                     op.recurrentToOutput, op.forgetGateBias, op.cellGateBias, op.outputGateBias, op.outputStateIn,
                     op.cellStateIn}) {
    NN_RET_CHECK(has(i)) << "required input " << i << " is omitted";
  }
  CellConfig c;
  c.inputSize = inputSize;
  const Shape inputToOutput = context->getInputShape(op.inputToOutput);
  const Shape recurrentToOutput = context->getInputShape(op.recurrentToOutput);
  NN_RET_CHECK(getNumberOfDimensions(inputToOutput) == 2 && getNumberOfDimensions(recurrentToOutput) == 2)
      << "gate weights must be 2-D";
  c.numCells = inputToOutput.dimensions[0];
  c.outputSize = recurrentToOutput.dimensions[1];

  // Gate weights and biases.
  NN_TRY(checkMatrix(context, op.inputToForget, c.numCells, inputSize, "input-to-forget weights"));
  NN_TRY(checkMatrix(context, op.inputToCell, c.numCells, inputSize, "input-to-cell weights"));
  NN_TRY(checkMatrix(context, op.inputToOutput, c.numCells, inputSize, "input-to-output weights"));
  NN_TRY(checkMatrix(context, op.recurrentToForget, c.numCells, c.outputSize, "recurrent-to-forget weights"));
  NN_TRY(checkMatrix(context, op.recurrentToCell, c.numCells, c.outputSize, "recurrent-to-cell weights"));
  NN_TRY(checkMatrix(context, op.recurrentToOutput, c.numCells, c.outputSize, "recurrent-to-output weights"));
  NN_TRY(checkVector(context, op.forgetGateBias, c.numCells, "forget gate bias"));
  NN_TRY(checkVector(context, op.cellGateBias, c.numCells, "cell gate bias"));
  NN_TRY(checkVector(context, op.outputGateBias, c.numCells, "output gate bias"));

  // CIFG: the input gate's weights are all present or all absent.
  NN_RET_CHECK(has(op.inputToInput) == has(op.recurrentToInput))
      << "input-to-input and recurrent-to-input weights must both be present or both omitted (CIFG)";
  c.useCifg = !has(op.inputToInput);
  if (c.useCifg) {
    NN_RET_CHECK(!has(op.inputGateBias)) << "CIFG LSTM has no input gate bias";
  } else {
    NN_TRY(checkMatrix(context, op.inputToInput, c.numCells, inputSize, "input-to-input weights"));
    NN_TRY(checkMatrix(context, op.recurrentToInput, c.numCells, c.outputSize, "recurrent-to-input weights"));
    NN_RET_CHECK(has(op.inputGateBias)) << "the input gate bias is required without CIFG";
    NN_TRY(checkVector(context, op.inputGateBias, c.numCells, "input gate bias"));
  }

  // Peepholes: all or none (no cell-to-input with CIFG).
  const bool anyPeephole = has(op.cellToInput) || has(op.cellToForget) || has(op.cellToOutput);
  c.usePeephole = has(op.cellToOutput);
  if (anyPeephole) {
    NN_RET_CHECK(has(op.cellToForget) && has(op.cellToOutput) && (c.useCifg || has(op.cellToInput)))
        << "peephole weights must be all present or all omitted";
    NN_RET_CHECK(!c.useCifg || !has(op.cellToInput)) << "CIFG LSTM has no cell-to-input weights";
    for (uint32_t i : {op.cellToInput, op.cellToForget, op.cellToOutput}) {
      if (has(i)) NN_TRY(checkVector(context, i, c.numCells, "peephole weights"));
    }
  }

  // Projection: the bias only with the weights.
  c.useProjection = has(op.projectionWeights);
  c.useProjectionBias = has(op.projectionBias);
  NN_RET_CHECK(c.useProjection || !c.useProjectionBias) << "projection bias without projection weights";
  if (c.useProjection) {
    NN_TRY(checkMatrix(context, op.projectionWeights, c.outputSize, c.numCells, "projection weights"));
    if (c.useProjectionBias) NN_TRY(checkVector(context, op.projectionBias, c.outputSize, "projection bias"));
  } else {
    NN_RET_CHECK_EQ(c.outputSize, c.numCells) << "without projection the output size is the number of cells";
  }

  // Layer normalization: all gates or none (no input gate with CIFG).
  const bool anyLayerNorm =
      has(op.inputLayerNorm) || has(op.forgetLayerNorm) || has(op.cellLayerNorm) || has(op.outputLayerNorm);
  c.useLayerNorm = has(op.outputLayerNorm);
  if (anyLayerNorm) {
    NN_RET_CHECK(has(op.forgetLayerNorm) && has(op.cellLayerNorm) && has(op.outputLayerNorm))
        << "layer normalization weights must be all present or all omitted";
    NN_RET_CHECK(c.useCifg != has(op.inputLayerNorm))
        << (c.useCifg ? "CIFG LSTM has no input layer normalization weights"
                      : "input layer normalization weights are required with layer normalization");
    for (uint32_t i : {op.inputLayerNorm, op.forgetLayerNorm, op.cellLayerNorm, op.outputLayerNorm}) {
      if (has(i)) NN_TRY(checkVector(context, i, c.numCells, "layer normalization weights"));
    }
  }

  // Auxiliary input weights: all or none (no aux-to-input with CIFG).
  const bool anyAux = has(op.auxInputToInput) || has(op.auxInputToForget) || has(op.auxInputToCell) ||
                      has(op.auxInputToOutput);
  c.useAuxWeights = has(op.auxInputToForget);
  if (anyAux) {
    NN_RET_CHECK(auxInputSize > 0) << "auxiliary weights without an auxiliary input";
    NN_RET_CHECK(has(op.auxInputToForget) && has(op.auxInputToCell) && has(op.auxInputToOutput))
        << "auxiliary weights must be all present or all omitted";
    NN_RET_CHECK(c.useCifg != has(op.auxInputToInput))
        << (c.useCifg ? "CIFG LSTM has no aux-input-to-input weights" : "aux-input-to-input weights are required");
    c.auxInputSize = auxInputSize;
    for (uint32_t i : {op.auxInputToInput, op.auxInputToForget, op.auxInputToCell, op.auxInputToOutput}) {
      if (has(i)) NN_TRY(checkMatrix(context, i, c.numCells, auxInputSize, "auxiliary input weights"));
    }
  }

  NN_TRY(checkMatrix(context, op.outputStateIn, batchSize, c.outputSize, "output state"));
  NN_TRY(checkMatrix(context, op.cellStateIn, batchSize, c.numCells, "cell state"));
  return c;
}

Status validateCellShapes(DimensionAgreement& dims, const CellOperands& op, const std::string& prefix,
                          const char* inputSize, const char* batch) {
  const std::string cellsName = prefix + "numCells", outputName = prefix + "outputSize";
  const char* cells = cellsName.c_str();
  const char* outputs = outputName.c_str();
  for (uint32_t i : {op.inputToInput, op.inputToForget, op.inputToCell, op.inputToOutput}) {
    NN_TRY(dims.input(i, {cells, inputSize}));
  }
  for (uint32_t i : {op.recurrentToInput, op.recurrentToForget, op.recurrentToCell, op.recurrentToOutput}) {
    NN_TRY(dims.input(i, {cells, outputs}));
  }
  for (uint32_t i : {op.cellToInput, op.cellToForget, op.cellToOutput, op.inputGateBias, op.forgetGateBias,
                     op.cellGateBias, op.outputGateBias, op.inputLayerNorm, op.forgetLayerNorm, op.cellLayerNorm,
                     op.outputLayerNorm}) {
    NN_TRY(dims.input(i, {cells}));
  }
  NN_TRY(dims.input(op.projectionWeights, {outputs, cells}));
  NN_TRY(dims.input(op.projectionBias, {outputs}));
  NN_TRY(dims.input(op.outputStateIn, {batch, outputs}));
  NN_TRY(dims.input(op.cellStateIn, {batch, cells}));
  for (uint32_t i : {op.auxInputToInput, op.auxInputToForget, op.auxInputToCell, op.auxInputToOutput}) {
    NN_TRY(dims.input(i, {cells, "auxInputSize"}));
  }
  return {};
}

bool isValidActivation(int32_t activation) {
  return activation == 0 || activation == 1 || activation == 3 || activation == 4 || activation == 6;
}

Status validateOperandTypes(const IOperationValidationContext* context, uint32_t activation, uint32_t cellClip,
                            uint32_t projClip, std::initializer_list<uint32_t> flags) {
  const OperandType type = context->getInputType(0);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const OperandType scalar = type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  for (uint32_t i = 0; i < context->getNumInputs(); ++i) {
    if (context->isOmittedInput(i)) continue;
    OperandType expected = type;
    if (i == activation) expected = OperandType::INT32;
    if (i == cellClip || i == projClip) expected = scalar;
    if (std::find(flags.begin(), flags.end(), i) != flags.end()) expected = OperandType::BOOL;
    NN_RET_CHECK(context->getInputType(i) == expected)
        << "input " << i << " has type " << toString(context->getInputType(i)) << ", expected " << toString(expected);
  }
  for (uint32_t i = 0; i < context->getNumOutputs(); ++i) {
    NN_RET_CHECK(context->getOutputType(i) == type) << "output " << i << " must have the input's type";
  }
  int32_t activationCode = 0;
  if (getConstantScalar(context, activation, &activationCode)) {
    NN_RET_CHECK(isValidActivation(activationCode)) << "unsupported LSTM activation " << activationCode;
  }
  return {};
}

Result<Params> readParams(const IOperationExecutionContext* context, uint32_t activationIndex, uint32_t cellClipIndex,
                          uint32_t projClipIndex) {
  for (uint32_t i : {activationIndex, cellClipIndex, projClipIndex}) {
    NN_RET_CHECK(!context->isOmittedInput(i)) << "required input " << i << " is omitted";
  }
  Params p;
  p.activation = context->getInputValue<int32_t>(activationIndex);
  NN_RET_CHECK(isValidActivation(p.activation)) << "unsupported LSTM activation " << p.activation;
  p.cellClip = scalarAsFloat(context, cellClipIndex);
  p.projClip = scalarAsFloat(context, projClipIndex);
  NN_RET_CHECK(p.cellClip >= 0 && p.projClip >= 0) << "clipping thresholds must be >= 0";
  return p;
}

CellWeights loadCell(const IOperationExecutionContext* context, const CellOperands& op, const CellConfig& config) {
  CellWeights w;
  w.config = config;
  auto load = [context](uint32_t index) {
    return present(context, index) ? inputAsFloat(context, index) : std::vector<float>();
  };
  w.inputToInput = load(op.inputToInput);
  w.inputToForget = load(op.inputToForget);
  w.inputToCell = load(op.inputToCell);
  w.inputToOutput = load(op.inputToOutput);
  w.recurrentToInput = load(op.recurrentToInput);
  w.recurrentToForget = load(op.recurrentToForget);
  w.recurrentToCell = load(op.recurrentToCell);
  w.recurrentToOutput = load(op.recurrentToOutput);
  w.cellToInput = load(op.cellToInput);
  w.cellToForget = load(op.cellToForget);
  w.cellToOutput = load(op.cellToOutput);
  w.inputGateBias = load(op.inputGateBias);
  w.forgetGateBias = load(op.forgetGateBias);
  w.cellGateBias = load(op.cellGateBias);
  w.outputGateBias = load(op.outputGateBias);
  w.projectionWeights = load(op.projectionWeights);
  w.projectionBias = load(op.projectionBias);
  w.inputLayerNorm = load(op.inputLayerNorm);
  w.forgetLayerNorm = load(op.forgetLayerNorm);
  w.cellLayerNorm = load(op.cellLayerNorm);
  w.outputLayerNorm = load(op.outputLayerNorm);
  w.auxInputToInput = load(op.auxInputToInput);
  w.auxInputToForget = load(op.auxInputToForget);
  w.auxInputToCell = load(op.auxInputToCell);
  w.auxInputToOutput = load(op.auxInputToOutput);
  return w;
}

namespace {

// result[b][r] += sum_c m[r][c] * v[b][c], each dot product summed on its own first.
void accumulateMatVec(const std::vector<float>& m, uint32_t rows, uint32_t cols, const float* v, uint32_t batch,
                      float* result) {
  for (uint32_t b = 0; b < batch; ++b) {
    const float* x = v + size_t{b} * cols;
    for (uint32_t r = 0; r < rows; ++r) {
      const float* row = m.data() + size_t{r} * cols;
      float dot = 0.0f;
      for (uint32_t c = 0; c < cols; ++c) dot += row[c] * x[c];
      result[size_t{b} * rows + r] += dot;
    }
  }
}

// gate[b][i] += p[i] * c[b][i] (peephole).
void accumulatePeephole(const std::vector<float>& p, const float* c, uint32_t n, uint32_t batch, float* gate) {
  for (uint32_t b = 0; b < batch; ++b) {
    for (uint32_t i = 0; i < n; ++i) gate[size_t{b} * n + i] += p[i] * c[size_t{b} * n + i];
  }
}

// Normalizes each row to zero mean and unit variance, scales by w and adds the bias.
void layerNorm(const std::vector<float>& w, const std::vector<float>& bias, uint32_t n, uint32_t batch, float* gate) {
  constexpr float kEpsilon = 1e-8f;
  for (uint32_t b = 0; b < batch; ++b) {
    float* row = gate + size_t{b} * n;
    float sum = 0.0f;
    for (uint32_t i = 0; i < n; ++i) sum += row[i];
    const float mean = sum / static_cast<float>(n);
    float sumDiffSq = 0.0f;
    for (uint32_t i = 0; i < n; ++i) sumDiffSq += (row[i] - mean) * (row[i] - mean);
    const float stddevInv = 1.0f / std::sqrt(sumDiffSq / static_cast<float>(n) + kEpsilon);
    for (uint32_t i = 0; i < n; ++i) row[i] = (row[i] - mean) * stddevInv * w[i] + bias[i];
  }
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

float activate(int32_t activation, float x) {
  switch (activation) {
    case 1:
      return std::max(0.0f, x);
    case 3:
      return std::min(std::max(0.0f, x), 6.0f);
    case 4:
      return std::tanh(x);
    case 6:
      return sigmoid(x);
    default:
      return x;
  }
}

void clip(float* v, size_t n, float limit) {
  for (size_t i = 0; i < n; ++i) v[i] = std::max(std::min(limit, v[i]), -limit);
}

// Per-step gate buffers, [batch, numCells] each.
struct Gates {
  std::vector<float> input, forget, cell, output;
};

// One step: reads x, aux, the states h and c, and overwrites h and c with the new states.
void step(const CellWeights& w, const Params& p, uint32_t batch, const float* x, const float* aux, float* h,
          float* c, Gates& g, std::vector<float>& newCell, std::vector<float>& out) {
  const CellConfig& cfg = w.config;
  const uint32_t nc = cfg.numCells;
  const size_t size = size_t{batch} * nc;
  // Gate pre-activations start at the bias, or at zero when layer norm adds the bias later.
  auto init = [&](std::vector<float>& gate, const std::vector<float>& bias) {
    gate.assign(size, 0.0f);
    if (cfg.useLayerNorm) return;
    for (uint32_t b = 0; b < batch; ++b) std::copy(bias.begin(), bias.end(), gate.begin() + size_t{b} * nc);
  };
  if (!cfg.useCifg) init(g.input, w.inputGateBias);
  init(g.forget, w.forgetGateBias);
  init(g.cell, w.cellGateBias);
  init(g.output, w.outputGateBias);

  if (!cfg.useCifg) accumulateMatVec(w.inputToInput, nc, cfg.inputSize, x, batch, g.input.data());
  accumulateMatVec(w.inputToForget, nc, cfg.inputSize, x, batch, g.forget.data());
  accumulateMatVec(w.inputToCell, nc, cfg.inputSize, x, batch, g.cell.data());
  accumulateMatVec(w.inputToOutput, nc, cfg.inputSize, x, batch, g.output.data());
  if (cfg.useAuxWeights && aux != nullptr) {
    if (!cfg.useCifg) accumulateMatVec(w.auxInputToInput, nc, cfg.auxInputSize, aux, batch, g.input.data());
    accumulateMatVec(w.auxInputToForget, nc, cfg.auxInputSize, aux, batch, g.forget.data());
    accumulateMatVec(w.auxInputToCell, nc, cfg.auxInputSize, aux, batch, g.cell.data());
    accumulateMatVec(w.auxInputToOutput, nc, cfg.auxInputSize, aux, batch, g.output.data());
  }
  if (!cfg.useCifg) accumulateMatVec(w.recurrentToInput, nc, cfg.outputSize, h, batch, g.input.data());
  accumulateMatVec(w.recurrentToForget, nc, cfg.outputSize, h, batch, g.forget.data());
  accumulateMatVec(w.recurrentToCell, nc, cfg.outputSize, h, batch, g.cell.data());
  accumulateMatVec(w.recurrentToOutput, nc, cfg.outputSize, h, batch, g.output.data());

  if (!cfg.useCifg) {
    if (cfg.usePeephole) accumulatePeephole(w.cellToInput, c, nc, batch, g.input.data());
    if (cfg.useLayerNorm) layerNorm(w.inputLayerNorm, w.inputGateBias, nc, batch, g.input.data());
    for (float& v : g.input) v = sigmoid(v);
  }
  if (cfg.usePeephole) accumulatePeephole(w.cellToForget, c, nc, batch, g.forget.data());
  if (cfg.useLayerNorm) layerNorm(w.forgetLayerNorm, w.forgetGateBias, nc, batch, g.forget.data());
  for (float& v : g.forget) v = sigmoid(v);

  if (cfg.useLayerNorm) layerNorm(w.cellLayerNorm, w.cellGateBias, nc, batch, g.cell.data());
  newCell.resize(size);
  for (size_t i = 0; i < size; ++i) newCell[i] = g.forget[i] * c[i];
  for (float& v : g.cell) v = activate(p.activation, v);
  if (cfg.useCifg) {
    // The input gate is 1 - forget gate.
    for (size_t i = 0; i < size; ++i) {
      g.forget[i] = 1.0f - g.forget[i];
      newCell[i] += g.cell[i] * g.forget[i];
    }
  } else {
    for (size_t i = 0; i < size; ++i) newCell[i] += g.cell[i] * g.input[i];
  }
  if (p.cellClip > 0.0f) clip(newCell.data(), size, p.cellClip);

  if (cfg.usePeephole) accumulatePeephole(w.cellToOutput, newCell.data(), nc, batch, g.output.data());
  if (cfg.useLayerNorm) layerNorm(w.outputLayerNorm, w.outputGateBias, nc, batch, g.output.data());
  for (float& v : g.output) v = sigmoid(v);
  for (size_t i = 0; i < size; ++i) {
    g.cell[i] = activate(p.activation, newCell[i]);
    g.output[i] *= g.cell[i];
  }

  const size_t outSize = size_t{batch} * cfg.outputSize;
  out.assign(outSize, 0.0f);
  if (cfg.useProjection) {
    if (cfg.useProjectionBias) {
      for (uint32_t b = 0; b < batch; ++b) {
        std::copy(w.projectionBias.begin(), w.projectionBias.end(), out.begin() + size_t{b} * cfg.outputSize);
      }
    }
    accumulateMatVec(w.projectionWeights, cfg.outputSize, nc, g.output.data(), batch, out.data());
    if (p.projClip > 0.0f) clip(out.data(), outSize, p.projClip);
  } else {
    std::copy(g.output.begin(), g.output.begin() + outSize, out.begin());
  }
  std::copy(out.begin(), out.end(), h);
  std::copy(newCell.begin(), newCell.end(), c);
}

}  // namespace

void runSequence(const CellWeights& weights, const Params& params, uint32_t maxTime, uint32_t batchSize,
                 const float* input, const float* auxInput, const float* outputStateIn, const float* cellStateIn,
                 bool forward, const SequenceOutput& out) {
  const CellConfig& cfg = weights.config;
  std::vector<float> h(outputStateIn, outputStateIn + size_t{batchSize} * cfg.outputSize);
  std::vector<float> c(cellStateIn, cellStateIn + size_t{batchSize} * cfg.numCells);
  Gates gates;
  std::vector<float> newCell, stepOutput;
  for (uint32_t i = 0; i < maxTime; ++i) {
    const uint32_t t = forward ? i : maxTime - 1 - i;
    const float* x = input + size_t{t} * batchSize * cfg.inputSize;
    const float* aux = auxInput != nullptr ? auxInput + size_t{t} * batchSize * cfg.auxInputSize : nullptr;
    step(weights, params, batchSize, x, aux, h.data(), c.data(), gates, newCell, stepOutput);
    for (uint32_t b = 0; b < batchSize; ++b) {
      std::copy_n(stepOutput.data() + size_t{b} * cfg.outputSize, cfg.outputSize,
                  out.output + (size_t{t} * batchSize + b) * out.outputStride);
    }
  }
  if (out.outputState != nullptr) std::copy(h.begin(), h.end(), out.outputState);
  if (out.cellState != nullptr) std::copy(c.begin(), c.end(), out.cellState);
  if (out.scratch != nullptr) {
    // The reference's scratch layout: [input,] cell, forget, output gate buffers.
    out.scratch->clear();
    if (!cfg.useCifg) out.scratch->insert(out.scratch->end(), gates.input.begin(), gates.input.end());
    for (const std::vector<float>* gate : {&gates.cell, &gates.forget, &gates.output}) {
      out.scratch->insert(out.scratch->end(), gate->begin(), gate->end());
    }
  }
}

}  // namespace weft::nn::lstm
