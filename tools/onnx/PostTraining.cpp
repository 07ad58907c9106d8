#include "PostTraining.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

#include "ImportError.h"
#include "weft/WeftExtension.h"

namespace weft::onnx {
namespace {

using LifeTime = nn::Operand::LifeTime;
using Op = nn::OperationType;
using nn::OperandType;

bool isConstant(const test::TestOperand& o) {
  return o.lifetime == LifeTime::CONSTANT_COPY || o.lifetime == LifeTime::CONSTANT_REFERENCE;
}

bool isComputedFloat(const test::TestOperand& o) {
  return o.type == OperandType::TENSOR_FLOAT32 && !isConstant(o) && o.lifetime != LifeTime::NO_VALUE;
}

std::vector<float> floatsOf(const test::TestOperand& o) {
  std::vector<float> v(o.data.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), o.data.data(), v.size() * sizeof(float));
  return v;
}

template <typename T>
test::TestBuffer bufferOf(const std::vector<T>& values) {
  return test::TestBuffer::fromVector(values);
}

int8_t quantizeValue(float v, float scale, int32_t zeroPoint) {
  const double q = std::nearbyint(static_cast<double>(v) / scale) + zeroPoint;
  return static_cast<int8_t>(std::clamp(q, -128.0, 127.0));
}

// How an operation's quantized form sets its output's quantization.
enum class Rule {
  kFloat,        // no quantized form here: it stays float32 between DEQUANTIZE and QUANTIZE
  kCalibrated,   // the observed range of its output
  kSameAsInput,  // NNAPI requires the input's quantization (moves, selects, pools, Relu)
  kFixed,        // NNAPI's fixed output quantization (SOFTMAX, LOGISTIC, TANH)
};

Rule ruleOf(Op type) {
  switch (type) {
    case Op::CONV_2D:
    case Op::DEPTHWISE_CONV_2D:
    case Op::GROUPED_CONV_2D:
    case Op::TRANSPOSE_CONV_2D:
    case Op::FULLY_CONNECTED:
    case Op::ADD:
    case Op::SUB:
    case Op::MUL:
    case Op::CONCATENATION:
    case Op::PRELU:
    case Op::BATCH_MATMUL:  // both operands activations, each with its calibrated range
      return Rule::kCalibrated;
    case Op::AVERAGE_POOL_2D:
    case Op::MAX_POOL_2D:
    case Op::RELU:
    case Op::RELU1:
    case Op::RELU6:
    case Op::RESHAPE:
    case Op::SQUEEZE:
    case Op::EXPAND_DIMS:
    case Op::TRANSPOSE:
    case Op::PAD:
    case Op::PAD_V2:
    case Op::MEAN:
    case Op::SLICE:
    case Op::STRIDED_SLICE:
    case Op::GATHER:  // input 0 the values; the indices stay TENSOR_INT32
    case Op::DEPTH_TO_SPACE:
    case Op::SPACE_TO_DEPTH:
    case Op::BATCH_TO_SPACE_ND:
    case Op::SPACE_TO_BATCH_ND:
    case Op::RESIZE_BILINEAR:
    case Op::RESIZE_NEAREST_NEIGHBOR:
    case Op::REDUCE_MAX:
    case Op::REDUCE_MIN:
    case Op::CHANNEL_SHUFFLE:
    case Op::MIRROR_PAD:
      return Rule::kSameAsInput;
    case Op::SOFTMAX:
    case Op::LOGISTIC:
    case Op::TANH:
      return Rule::kFixed;
    default:
      return Rule::kFloat;
  }
}

Quantization fixedOutput(Op type) {
  if (type == Op::TANH) return {{1.0f / 128}, {0}, -1};
  return {{1.0f / 256}, {-128}, -1};  // SOFTMAX, LOGISTIC: [0, 1)
}

// The weights of a convolution's or FULLY_CONNECTED's input 1 and the axis of their output
// channels (-1: one scale for the tensor, as NNAPI's FULLY_CONNECTED takes them).
int64_t weightChannelAxis(Op type) {
  switch (type) {
    case Op::CONV_2D:
    case Op::GROUPED_CONV_2D:
    case Op::TRANSPOSE_CONV_2D:
      return 0;  // OHWI
    case Op::DEPTHWISE_CONV_2D:
      return 3;  // 1HW(C*multiplier)
    default:
      return -1;
  }
}

bool hasWeights(Op type) { return type == Op::FULLY_CONNECTED || weightChannelAxis(type) >= 0; }

// The input holding an operation's fused activation code, for the operations a following RELU
// can fold into (NNAPI's rule for implicit padding: the padding scheme's signature).
std::optional<size_t> activationInput(const test::TestSubgraph& g, const test::TestOperation& op) {
  const size_t n = op.inputs.size();
  const auto isBool = [&](size_t k) { return k < n && g.operands[op.inputs[k]].type == OperandType::BOOL; };
  switch (op.type) {
    case Op::ADD:
    case Op::SUB:
    case Op::MUL:
      return 2;
    case Op::FULLY_CONNECTED:
      return 3;
    case Op::CONV_2D:
      return n == 7 || (n >= 8 && isBool(7)) ? 6 : 9;
    case Op::DEPTHWISE_CONV_2D:
      return n == 8 || (n >= 9 && isBool(8)) ? 7 : 10;
    case Op::GROUPED_CONV_2D:  // implicit padding: 9 inputs, explicit: 12
      return n == 9 ? 7 : 10;
    case Op::TRANSPOSE_CONV_2D:  // implicit padding (an output shape): 9 inputs, explicit: 11
      return n == 9 ? 7 : 9;
    default:
      return std::nullopt;
  }
}

std::optional<int32_t> fusedCodeOf(Op relu) {
  if (relu == Op::RELU) return 1;
  if (relu == Op::RELU1) return 2;
  if (relu == Op::RELU6) return 3;
  return std::nullopt;
}

class Quantizer {
 public:
  Quantizer(const test::TestModel& model, const std::map<uint32_t, Range>& ranges, bool weftExtensions)
      : in_(model.main), extensions_(model.extensionNameToPrefix), ranges_(ranges), weftExtensions_(weftExtensions) {
    out_.model.name = model.name;
    out_.model.extensionNameToPrefix = model.extensionNameToPrefix;
    out_.model.main.operands = in_.operands;
    out_.model.main.inputIndexes = in_.inputIndexes;
    out_.model.main.outputIndexes = in_.outputIndexes;
  }

  QuantizedModel run() {
    findFusions();
    findReciprocalSquareRoots();
    findConcatenationTies();
    decideQuantizations();
    keepFloatValuesBetweenFloatOperations();
    for (uint32_t i = 0; i < in_.operands.size(); ++i) {
      if (quant_.count(i) != 0) setQuantized(i, quant_.at(i));
    }
    for (size_t i = 0; i < in_.operations.size(); ++i) {
      if (absorbed_.count(i) != 0) continue;
      if (floatOps_.count(i) != 0) {
        emitInFloat(i);
      } else {
        emitQuantized(i);
      }
    }
    // Integer and boolean inputs (token ids, masks) have no quantization: they stay as they are.
    for (uint32_t i : in_.inputIndexes) out_.inputs.push_back(quant_.count(i) != 0 ? quant_.at(i) : Quantization{});
    for (uint32_t i : in_.outputIndexes) out_.outputs.push_back(quant_.at(i));
    return std::move(out_);
  }

 private:
  auto& operands() { return out_.model.main.operands; }

  const Range& rangeOf(uint32_t operand) const {
    auto r = ranges_.find(operand);
    if (r == ranges_.end()) {
      const auto& o = in_.operands[operand];
      throw ImportError(fmt::format("no calibration range for '{}' (operand {})", o.name, operand));
    }
    return r->second;
  }

  // A convolution whose weights are computed at run time stays float: its weights' scales would
  // have to be known before they exist.
  bool runtimeWeights(const test::TestOperation& op) const {
    return hasWeights(op.type) && (op.inputs.size() < 2 || !isConstant(in_.operands[op.inputs[1]]));
  }

  // A RELU, RELU1 or RELU6 that alone reads a quantized operation's output (not a model output)
  // folds into that operation as its fused activation, as TFLite's converter folds them: one
  // pass less, and the output's int8 range is the activation's, not the wider one before it.
  void findFusions() {
    std::map<uint32_t, std::vector<size_t>> readers;
    for (size_t i = 0; i < in_.operations.size(); ++i) {
      for (uint32_t input : in_.operations[i].inputs) readers[input].push_back(i);
    }
    for (size_t i = 0; i < in_.operations.size(); ++i) {
      const auto& op = in_.operations[i];
      const auto act = activationInput(in_, op);
      if (!act || *act >= op.inputs.size() || op.outputs.size() != 1 || runtimeWeights(op)) continue;
      const auto& code = in_.operands[op.inputs[*act]];
      if (!isConstant(code) || code.data.size() < sizeof(int32_t) || code.data.at<int32_t>(0) != 0) continue;
      const uint32_t out = op.outputs[0];
      const auto& r = readers[out];
      if (in_.operands[out].lifetime != LifeTime::TEMPORARY_VARIABLE || r.size() != 1) continue;
      const auto& relu = in_.operations[r[0]];
      if (!fusedCodeOf(relu.type) || relu.inputs.at(0) != out) continue;
      fusedInto_[i] = r[0];
      absorbed_.insert(r[0]);
    }
  }

  // 1 / sqrt(v) as exporters write torch.rsqrt (RMSNorm's, LLaMA's): SQRT, then DIV of a constant
  // 1 by it (ONNX's Reciprocal imports so), the square root read by nothing else. One RSQRT of v
  // instead, which NNAPI quantizes (the accelerator looks it up in a 256-entry table) where SQRT
  // and DIV by a computed value stay float.
  void findReciprocalSquareRoots() {
    std::map<uint32_t, std::vector<size_t>> readers;
    std::map<uint32_t, size_t> writer;
    for (size_t i = 0; i < in_.operations.size(); ++i) {
      for (uint32_t input : in_.operations[i].inputs) readers[input].push_back(i);
      for (uint32_t output : in_.operations[i].outputs) writer[output] = i;
    }
    for (size_t i = 0; i < in_.operations.size(); ++i) {
      const auto& div = in_.operations[i];
      if (div.type != Op::DIV || div.inputs.size() != 3 || div.outputs.size() != 1) continue;
      const auto &one = in_.operands[div.inputs[0]], &code = in_.operands[div.inputs[2]];
      if (one.type != OperandType::TENSOR_FLOAT32 || !isConstant(one) || !isConstant(code) ||
          code.data.size() < sizeof(int32_t) || code.data.at<int32_t>(0) != 0) {
        continue;
      }
      const std::vector<float> ones = floatsOf(one);
      if (ones.empty() || std::any_of(ones.begin(), ones.end(), [](float v) { return v != 1.0f; })) continue;
      auto w = writer.find(div.inputs[1]);
      if (w == writer.end() || in_.operations[w->second].type != Op::SQRT) continue;
      const auto& sqrt = in_.operations[w->second];
      if (in_.operands[div.inputs[1]].lifetime != LifeTime::TEMPORARY_VARIABLE || readers[div.inputs[1]].size() != 1 ||
          in_.operands[div.outputs[0]].dimensions != in_.operands[sqrt.inputs[0]].dimensions) {
        continue;
      }
      rsqrtOf_[i] = w->second;
      absorbed_.insert(w->second);
    }
  }

  // Every computed float32 tensor's int8 quantization, in operation order (so an input's is
  // known before an operation that keeps it).
  void decideQuantizations() {
    for (uint32_t i = 0; i < in_.operands.size(); ++i) {
      const auto& o = in_.operands[i];
      if (o.type == OperandType::TENSOR_FLOAT16 || (o.type == OperandType::FLOAT16)) {
        throw ImportError("a float16 model cannot be quantized here (quantize its float32 form)");
      }
      if (o.lifetime == LifeTime::SUBGRAPH_INPUT && isComputedFloat(o)) quant_[i] = int8Quantization(rangeOf(i));
    }
    for (size_t i = 0; i < in_.operations.size(); ++i) {
      const auto& op = in_.operations[i];
      for (uint32_t o : op.outputs) {
        if (!isComputedFloat(in_.operands[o])) continue;
        Rule rule = ruleOfOperation(i);
        if (absorbed_.count(i) != 0) rule = Rule::kCalibrated;  // a folded activation's output: its own range
        const uint32_t first = op.inputs.empty() ? o : op.inputs[0];
        // A constant's values (an embedding table a GATHER reads, a constant reshaped) are
        // quantized over their own range (constantTensor): the output takes that quantization.
        const auto& firstOperand = in_.operands[first];
        const bool constantFirst = rule == Rule::kSameAsInput && quant_.count(first) == 0 &&
                                   firstOperand.type == OperandType::TENSOR_FLOAT32 && isConstant(firstOperand);
        if (rule == Rule::kSameAsInput && quant_.count(first) == 0 && !constantFirst) rule = Rule::kCalibrated;
        if (constantFirst) {
          quant_[o] = constantQuantization(firstOperand, floatsOf(firstOperand));
        } else if (rule == Rule::kSameAsInput) {
          quant_[o] = quant_.at(first);
        } else if (rule == Rule::kFixed) {
          quant_[o] = fixedOutput(op.type);
        } else if (auto masked = maskedSum(op)) {
          quant_[o] = int8Quantization(*masked);
        } else {
          quant_[o] = int8Quantization(softmaxInputRange(o, tiedRange(o)));
        }
      }
    }
  }

  // An ADD of a mask constant (an entry of kMaskMagnitude or more): its unmasked sums, the other
  // operand's range moved by the constant's unmasked entries, and the masked ones noted. nullopt
  // for any other operation.
  std::optional<Range> maskedSum(const test::TestOperation& op) const {
    if (op.type != Op::ADD || op.inputs.size() < 2) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const auto& c = in_.operands[op.inputs[side]];
      if (c.type != OperandType::TENSOR_FLOAT32 || !isConstant(c)) continue;
      Range mask;
      for (float v : floatsOf(c)) widen(mask, v, kMaskMagnitude);
      if (!mask.maskedLow && !mask.maskedHigh) continue;
      const auto& other = in_.operands[op.inputs[1 - side]];
      if (isConstant(other)) return std::nullopt;
      Range r = rangeOf(op.inputs[1 - side]);
      r.lo += mask.lo;
      r.hi += mask.hi;
      r.maskedLow |= mask.maskedLow || r.maskedLow;
      r.maskedHigh |= mask.maskedHigh || r.maskedHigh;
      return r;
    }
    return std::nullopt;
  }

  // The rule an operation follows here, kFloat recorded in floatOps_: no quantized form or weights
  // computed at run time. A LOGISTIC/TANH whose input steps are too fine for NNAPI's fixed-point
  // kernel (it rescales the input to Q4.27: the input scale must exceed 2^-27) reads its input
  // rescaled (rescaledInput).
  Rule ruleOfOperation(size_t i) {
    const auto& op = in_.operations[i];
    Rule rule = runtimeWeights(op) ? Rule::kFloat : ruleOfType(op.type);
    if (op.type == Op::DIV && reciprocal(op)) rule = Rule::kCalibrated;  // quantized as a MUL
    if (op.type == Op::DIV && !reciprocal(op) && divisorReciprocalRange(op)) rule = Rule::kCalibrated;  // RECIPROCAL (, MUL)
    if (op.type == Op::REDUCE_SUM && summedCount(op)) rule = Rule::kCalibrated;  // a MEAN times the count
    if (op.type == Op::POW && powerAsUnary(op)) rule = Rule::kCalibrated;  // a square root or reciprocal
    if ((op.type == Op::MAXIMUM || op.type == Op::MINIMUM) && boundedByAConstant(op)) rule = Rule::kCalibrated;
    if (rsqrtOf_.count(i) != 0) rule = Rule::kCalibrated;  // an RSQRT
    if (op.type == Op::LOGISTIC || op.type == Op::TANH) {
      auto q = quant_.find(op.inputs.at(0));
      if (q != quant_.end() && static_cast<double>(q->second.scales[0]) * (1 << 27) <= 1.0) rescaled_.insert(i);
    }
    if (rule == Rule::kFloat && absorbed_.count(i) == 0) floatOps_.insert(i);
    return rule;
  }

  // A LOGISTIC's or TANH's input of steps of 2^-27 or finer (EfficientNet's and MaxViT's
  // squeeze-excitation gates with random weights: activations of 1e-7 and less), requantized to
  // steps of 2^-26 by an ADD of zero, which NNAPI's kernels take. Its whole range, under 255 steps
  // of 2^-27, is then within 128 steps of zero, where the function moves by less than 2^-19: far
  // below its output's step (1/256, 1/128), so the output is what the float function's would be,
  // and the operation stays quantized (on the accelerator) instead of float on the CPU.
  uint32_t rescaledInput(uint32_t x, size_t index) {
    const Quantization& q = quant_.at(x);
    const double step = q.scales.front(), rescaled = std::ldexp(1.0, -26);
    const double middle = (-0.5 - q.zeroPoints.front()) * step;  // of x's int8 range
    test::TestOperand t = operands()[x];
    t.name += "_rescaled";
    t.lifetime = LifeTime::TEMPORARY_VARIABLE;
    t.data = {};
    t.scale = static_cast<float>(rescaled);
    t.zeroPoint = static_cast<int32_t>(std::clamp<long>(-std::lround(middle / rescaled), -128, 127));
    const uint32_t out = push(std::move(t));
    test::TestOperand zero;
    zero.name = in_.operands[x].name + "_zero_int8";
    zero.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    zero.dimensions = {1};
    zero.scale = static_cast<float>(rescaled);
    zero.lifetime = LifeTime::CONSTANT_COPY;
    zero.data = bufferOf(std::vector<int8_t>{0});
    const uint32_t c = push(std::move(zero));
    addOperation(Op::ADD, {x, c, fuseNone()}, {out}, index, "rescale");
    return out;
  }

  // An ADD's or MUL's fused activation NONE, for the operations the quantizer writes itself.
  uint32_t fuseNone() { return int32Scalar("fuse_none", 0); }

  // CONCATENATION copies its inputs' bytes when they share its quantization (the accelerator
  // runs only that form): the inputs an operation of calibrated output writes take the
  // concatenation's quantization, over the union of their ranges (TFLite's converter does the same).
  void findConcatenationTies() {
    std::map<uint32_t, size_t> writer;
    for (size_t i = 0; i < in_.operations.size(); ++i) {
      for (uint32_t o : in_.operations[i].outputs) writer[o] = i;
    }
    for (const auto& op : in_.operations) {
      if (op.type != Op::CONCATENATION || op.outputs.size() != 1 || !isComputedFloat(in_.operands[op.outputs[0]])) continue;
      for (size_t k = 0; k + 1 < op.inputs.size(); ++k) {
        const uint32_t input = op.inputs[k];
        auto w = writer.find(input);
        if (w == writer.end() || !isComputedFloat(in_.operands[input])) continue;
        const auto& producer = in_.operations[w->second];
        const bool calibrated = absorbed_.count(w->second) != 0 ||
                                (ruleOfType(producer.type) == Rule::kCalibrated && !runtimeWeights(producer));
        if (calibrated) tie_[root(input)] = root(op.outputs[0]);
      }
    }
  }

  uint32_t root(uint32_t operand) {
    auto it = tie_.find(operand);
    if (it == tie_.end() || it->second == operand) return operand;
    return it->second = root(it->second);
  }

  static void join(Range& r, const Range& other) {
    r.lo = std::min(r.lo, other.lo);
    r.hi = std::max(r.hi, other.hi);
    r.maskedLow |= other.maskedLow;
    r.maskedHigh |= other.maskedHigh;
  }

  // A value only SOFTMAX reads, in no tie group: its range kept within kSoftmaxDepth / beta below
  // its top (or 0). exp of anything deeper is below the output's step of 1/256 by a factor of
  // 10^25, and a range as wide as a fill of -10000 (masked_fill of a row masked whole, which the
  // importer keeps a SELECT) makes a step NNAPI's softmax cannot scale (its input multiplier
  // overflows at a step of 32): such values sit at the bottom instead, where they weigh as little.
  Range softmaxInputRange(uint32_t operand, Range r) {
    if (readers_.empty()) {
      for (size_t k = 0; k < in_.operations.size(); ++k) {
        for (uint32_t i : in_.operations[k].inputs) readers_[i].push_back(k);
      }
    }
    const auto readers = readers_.find(operand);
    if (readers == readers_.end() || tie_.count(operand) != 0) return r;
    for (const auto& [member, parent] : tie_) {
      if (parent == operand) return r;
    }
    float beta = 0.0f;
    for (size_t k : readers->second) {
      const auto& op = in_.operations[k];
      if (op.type != Op::SOFTMAX || op.inputs.size() < 2 || op.inputs[0] != operand) return r;
      const auto& b = in_.operands[op.inputs[1]];
      if (b.type != OperandType::FLOAT32 || b.data.size() < sizeof(float)) return r;
      const float v = b.data.at<float>(0);
      if (!(v > 0.0f)) return r;
      beta = beta == 0.0f ? v : std::min(beta, v);
    }
    const float top = std::max(0.0f, r.hi);
    r.lo = std::max(r.lo, top - kSoftmaxDepth / beta);
    return r;
  }

  // An operand's observed range, widened to its tie group's.
  Range tiedRange(uint32_t operand) {
    Range r = rangeOf(operand);
    if (tie_.empty()) return r;
    const uint32_t group = root(operand);
    for (const auto& [member, parent] : tie_) {
      (void)parent;
      if (root(member) != group) continue;
      join(r, rangeOf(member));
    }
    join(r, rangeOf(group));
    return r;
  }

  // A value written by an operation kept in float and read only by such operations (not a
  // model output) stays float32: no QUANTIZE/DEQUANTIZE pair, no precision lost between them.
  void keepFloatValuesBetweenFloatOperations() {
    std::map<uint32_t, bool> allReadersFloat;
    for (size_t k = 0; k < in_.operations.size(); ++k) {
      const auto& op = in_.operations[k];
      const bool isFloat = floatOps_.count(k) != 0;
      for (uint32_t i : op.inputs) {
        auto [it, fresh] = allReadersFloat.try_emplace(i, isFloat);
        if (!fresh) it->second = it->second && isFloat;
      }
    }
    for (size_t k = 0; k < in_.operations.size(); ++k) {
      const auto& op = in_.operations[k];
      if (floatOps_.count(k) == 0) continue;
      for (uint32_t o : op.outputs) {
        auto r = allReadersFloat.find(o);
        if (r != allReadersFloat.end() && r->second && in_.operands[o].lifetime == LifeTime::TEMPORARY_VARIABLE) {
          quant_.erase(o);
        }
      }
    }
  }

  void setQuantized(uint32_t index, const Quantization& q) {
    auto& o = operands()[index];
    o.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    o.scale = q.scales.front();
    o.zeroPoint = q.zeroPoints.front();
    o.data = {};
  }

  uint32_t push(test::TestOperand o) {
    operands().push_back(std::move(o));
    return static_cast<uint32_t>(operands().size() - 1);
  }

  // A constant INT32 scalar (a parameter: WEFT_UNARY's function, keep_dims, a fuse code).
  uint32_t int32Scalar(const std::string& name, int32_t value) {
    test::TestOperand t;
    t.type = OperandType::INT32;
    t.lifetime = LifeTime::CONSTANT_COPY;
    t.name = name;
    t.data = bufferOf(std::vector<int32_t>{value});
    return push(std::move(t));
  }

  uint32_t floatTemporary(const test::TestOperand& like, const std::string& suffix) {
    test::TestOperand t;
    t.name = like.name + suffix;
    t.type = OperandType::TENSOR_FLOAT32;
    t.dimensions = like.dimensions;
    return push(std::move(t));
  }

  void addOperation(Op type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs, size_t origin,
                    const std::string& role, int64_t folded = -1) {
    out_.model.main.operations.push_back({type, std::move(inputs), std::move(outputs)});
    out_.origin.push_back(origin);
    out_.role.push_back(role);
    out_.folded.push_back(folded);
  }

  // The operation on float32 values: DEQUANTIZE for its quantized inputs, QUANTIZE for its outputs.
  void emitInFloat(size_t index) {
    const auto& op = in_.operations[index];
    out_.keptInFloat.push_back(fmt::format("{}#{}", nn::toString(op.type), index));
    std::vector<uint32_t> inputs = op.inputs, outputs = op.outputs;
    for (uint32_t& i : inputs) {
      if (quant_.count(i) == 0) continue;
      const uint32_t f = floatTemporary(in_.operands[i], "_dequantized");
      addOperation(Op::DEQUANTIZE, {i}, {f}, index, "dequantize");
      i = f;
    }
    std::vector<std::pair<uint32_t, uint32_t>> requantize;
    for (uint32_t& o : outputs) {
      if (quant_.count(o) == 0) continue;
      const uint32_t f = floatTemporary(in_.operands[o], "_float");
      requantize.emplace_back(f, o);
      o = f;
    }
    addOperation(op.type, inputs, outputs, index, "");
    for (auto [f, q] : requantize) addOperation(Op::QUANTIZE, {f}, {q}, index, "quantize");
  }

  // MAXIMUM or MINIMUM of a computed value and a constant (Clip's bounds): quantized, the constant
  // over its own range (the accelerator looks a one-value bound up in a table).
  bool boundedByAConstant(const test::TestOperation& op) const {
    if (op.inputs.size() != 2) return false;
    const bool first = isConstant(in_.operands[op.inputs[0]]), second = isConstant(in_.operands[op.inputs[1]]);
    return first != second;
  }

  // A DIV by a computed value whose calibrated range keeps away from 0 (F.normalize's norm, cosine
  // similarity's): the range of its reciprocal, which WEFT_UNARY looks up before a MUL. nullopt
  // otherwise (a range through 0 has no reciprocal range).
  std::optional<Range> divisorReciprocalRange(const test::TestOperation& op) const {
    if (!weftExtensions_ || op.inputs.size() < 2) return std::nullopt;
    const uint32_t y = op.inputs[1];
    if (!isComputedFloat(in_.operands[y]) || (!isComputedFloat(in_.operands[op.inputs[0]]) && !ones(op.inputs[0]))) {
      return std::nullopt;
    }
    auto found = ranges_.find(y);
    if (found == ranges_.end()) return std::nullopt;
    const Range& r = found->second;
    if (r.maskedLow || r.maskedHigh || r.least > r.most || !((r.least > 0) || (r.most < 0))) return std::nullopt;
    Range inverse;
    inverse.lo = std::min(1 / r.least, 1 / r.most);
    inverse.hi = std::max(1 / r.least, 1 / r.most);
    if (!std::isfinite(inverse.lo) || !std::isfinite(inverse.hi)) return std::nullopt;
    return inverse;
  }

  // A constant of ones (Reciprocal's 1 / y).
  bool ones(uint32_t operand) const {
    const auto& o = in_.operands[operand];
    if (o.type != OperandType::TENSOR_FLOAT32 || !isConstant(o)) return false;
    const std::vector<float> values = floatsOf(o);
    return !values.empty() && std::all_of(values.begin(), values.end(), [](float v) { return v == 1.0f; }) &&
           nn::numberOfElements(o.dimensions) <= 1;
  }

  // x / y as MUL(x, WEFT_UNARY RECIPROCAL(y)): the reciprocal over its range, then the product in
  // the DIV's calibrated quantization; both on the accelerator, where DIV stayed float. 1 / y is
  // the RECIPROCAL alone, into the DIV's quantization.
  void emitDivisionByAValue(size_t index, const Range& inverse) {
    const auto& op = in_.operations[index];
    const auto function = [&](const std::string& name) { return int32Scalar(name + "_function", WEFT_UNARY_RECIPROCAL); };
    if (ones(op.inputs[0])) {  // 1 / y: the reciprocal alone
      addOperation(weftOperation(WEFT_UNARY), {op.inputs[1], function(operands()[op.outputs[0]].name)}, op.outputs,
                   index, "");
      return;
    }
    const Quantization q = int8Quantization(inverse);
    test::TestOperand r = operands()[op.outputs[0]];
    r.name = operands()[op.inputs[1]].name + "_reciprocal";
    r.dimensions = operands()[op.inputs[1]].dimensions;
    r.scale = q.scales[0];
    r.zeroPoint = q.zeroPoints[0];
    r.lifetime = LifeTime::TEMPORARY_VARIABLE;
    const uint32_t reciprocal = push(std::move(r));
    addOperation(weftOperation(WEFT_UNARY), {op.inputs[1], function(operands()[reciprocal].name)}, {reciprocal}, index,
                 "reciprocal");
    addOperation(Op::MUL, {op.inputs[0], reciprocal, op.inputs[2]}, op.outputs, index, "");
  }

  // POW by a constant exponent of 0.5, -0.5 or -1 ((x ** 2).mean() ** 0.5, hand-written norms):
  // the WEFT_UNARY function, or NNAPI's RSQRT, it is (NNAPI's POW is float only; squares are
  // MULs already). nullopt for any other POW.
  std::optional<std::pair<Op, int32_t>> powerAsUnary(const test::TestOperation& op) const {
    if (op.inputs.size() < 2 || !isComputedFloat(in_.operands[op.inputs[0]])) return std::nullopt;
    const auto& e = in_.operands[op.inputs[1]];
    if (e.type != OperandType::TENSOR_FLOAT32 || !isConstant(e) || nn::numberOfElements(e.dimensions) > 1) {
      return std::nullopt;
    }
    const std::vector<float> v = floatsOf(e);
    if (v.size() != 1) return std::nullopt;
    if (v[0] == -0.5f) return std::make_pair(Op::RSQRT, 0);
    if (!weftExtensions_) return std::nullopt;
    if (v[0] == 0.5f) return std::make_pair(Op::POW, static_cast<int32_t>(WEFT_UNARY_SQRT));
    if (v[0] == -1.0f) return std::make_pair(Op::POW, static_cast<int32_t>(WEFT_UNARY_RECIPROCAL));
    return std::nullopt;
  }

  // REDUCE_SUM of constant axes: how many values each sum adds; nullopt otherwise.
  std::optional<int64_t> summedCount(const test::TestOperation& op) const {
    if (op.inputs.size() < 2) return std::nullopt;
    const auto& axes = in_.operands[op.inputs[1]];
    const auto& dims = in_.operands[op.inputs[0]].dimensions;
    if (axes.type != OperandType::TENSOR_INT32 || !isConstant(axes)) return std::nullopt;
    std::set<int64_t> seen;
    int64_t count = 1;
    const auto rank = static_cast<int64_t>(dims.size());
    for (size_t k = 0; k < axes.data.size() / sizeof(int32_t); ++k) {
      const int64_t a = axes.data.at<int32_t>(k);
      const int64_t axis = a < 0 ? a + rank : a;
      if (axis < 0 || axis >= rank) return std::nullopt;
      if (seen.insert(axis).second) count *= dims[static_cast<size_t>(axis)];
    }
    return count > 0 ? std::optional<int64_t>(count) : std::nullopt;
  }

  // REDUCE_SUM (no 8-bit form in NNAPI) as the MEAN of the same axes (in its input's
  // quantization, as NNAPI's 8-bit MEAN keeps it), then a MUL by the count into the sum's own
  // quantization: both on the accelerator, where REDUCE_SUM stayed float.
  void emitSumAsMean(size_t index, int64_t count) {
    const auto& op = in_.operations[index];
    test::TestOperand mean = operands()[op.outputs[0]];
    mean.name += "_mean";
    mean.scale = operands()[op.inputs[0]].scale;
    mean.zeroPoint = operands()[op.inputs[0]].zeroPoint;
    mean.lifetime = LifeTime::TEMPORARY_VARIABLE;
    const uint32_t m = push(std::move(mean));
    const auto& keep = in_.operands[op.inputs.at(2)];
    const int32_t keepDims = keep.data.size() > 0 && keep.data.at<uint8_t>(0) != 0 ? 1 : 0;
    addOperation(Op::MEAN, {op.inputs[0], op.inputs[1], int32Scalar(operands()[m].name + "_keep_dims", keepDims)}, {m},
                 index, "");
    test::TestOperand n;
    n.name = operands()[op.outputs[0]].name + "_count";
    n.type = OperandType::TENSOR_FLOAT32;
    n.dimensions = {1};
    n.lifetime = LifeTime::CONSTANT_COPY;
    const uint32_t times = quantizedConstant(n, {static_cast<float>(count)}, "_int8");
    addOperation(Op::MUL, {m, times, fuseNone()}, op.outputs, index, "times_count");
  }

  void emitQuantized(size_t index) {
    const auto& op = in_.operations[index];
    if (op.type == Op::REDUCE_SUM) {
      emitSumAsMean(index, *summedCount(op));
      return;
    }
    if (op.type == Op::POW) {
      const auto [as, function] = *powerAsUnary(op);
      if (as == Op::RSQRT) {
        addOperation(Op::RSQRT, {op.inputs[0]}, op.outputs, index, "");
        return;
      }
      addOperation(weftOperation(WEFT_UNARY), {op.inputs[0], int32Scalar(operands()[op.outputs[0]].name + "_function", function)},
                   op.outputs, index, "");
      return;
    }
    if (op.type == Op::DIV && rsqrtOf_.count(index) == 0 && !reciprocal(op)) {
      if (auto inverse = divisorReciprocalRange(op)) {
        emitDivisionByAValue(index, *inverse);
        return;
      }
    }
    if (auto sqrt = rsqrtOf_.find(index); sqrt != rsqrtOf_.end()) {
      operands()[in_.operations[sqrt->second].outputs[0]].lifetime = LifeTime::NO_VALUE;  // nothing writes it now
      addOperation(Op::RSQRT, {in_.operations[sqrt->second].inputs[0]}, op.outputs, index, "",
                   static_cast<int64_t>(sqrt->second));
      return;
    }
    std::vector<uint32_t> inputs = op.inputs;
    Op type = op.type;
    if (const auto function = unaryFunction(op.type)) {  // NNAPI's float-only unary operations
      type = weftOperation(WEFT_UNARY);
      inputs.push_back(int32Scalar(in_.operands[op.outputs[0]].name + "_function", *function));
    }
    if (type == Op::DIV) {
      type = Op::MUL;
      inputs[1] = quantizedConstant(in_.operands[op.inputs[1]], *reciprocal(op), "_reciprocal_int8");
    }
    // What weights' biases and PAD_V2's value are scaled by (these read a quantized input 0).
    auto input = [&]() -> const Quantization& { return quant_.at(op.inputs.at(0)); };
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (op.type == Op::DIV && k == 1) continue;  // the reciprocal above
      const auto& o = in_.operands[inputs[k]];
      if (hasWeights(op.type) && k == 1) {
        inputs[k] = weights(op, inputs[k]);
      } else if (hasWeights(op.type) && k == 2 && o.type == OperandType::TENSOR_FLOAT32) {
        inputs[k] = bias(op, inputs[k], input().scales.front());
      } else if (op.type == Op::PAD_V2 && k == 2 && o.type == OperandType::FLOAT32) {
        inputs[k] = padValue(o, input());
      } else if (o.type == OperandType::TENSOR_FLOAT32 && isConstant(o) && weftCode(op.type) != WEFT_LAYER_NORM) {
        inputs[k] = constantTensor(inputs[k]);
      }
    }
    std::vector<uint32_t> outputs = op.outputs;
    int64_t folded = -1;
    if (auto fused = fusedInto_.find(index); fused != fusedInto_.end()) {
      const auto& relu = in_.operations[fused->second];
      const size_t act = *activationInput(in_, op);
      test::TestOperand code = in_.operands[op.inputs[act]];
      code.name = "fused_" + std::string(nn::toString(relu.type));
      code.data = bufferOf(std::vector<int32_t>{*fusedCodeOf(relu.type)});
      inputs[act] = push(std::move(code));
      operands()[outputs[0]].lifetime = LifeTime::NO_VALUE;  // nothing writes or reads it now
      outputs = relu.outputs;
      folded = static_cast<int64_t>(fused->second);
    }
    if (rescaled_.count(index) != 0) inputs[0] = rescaledInput(op.inputs[0], index);
    addOperation(type, inputs, outputs, index, "", folded);
  }

  // Symmetric int8 weights: per output channel (TENSOR_QUANT8_SYMM_PER_CHANNEL) for convolutions,
  // one scale for FULLY_CONNECTED (which takes only the input's type), zero point 0.
  uint32_t weights(const test::TestOperation& op, uint32_t index) {
    const auto& w = in_.operands[index];
    const std::vector<float> values = floatsOf(w);
    const int64_t axis = weightChannelAxis(op.type);
    const size_t channels = axis < 0 ? 1 : w.dimensions.at(static_cast<size_t>(axis));
    size_t inner = 1;
    for (size_t d = static_cast<size_t>(std::max<int64_t>(axis, 0)) + 1; d < w.dimensions.size(); ++d) {
      inner *= w.dimensions[d];
    }
    if (axis < 0) inner = values.size();
    auto channelOf = [&](size_t i) { return axis < 0 ? 0 : (i / inner) % channels; };
    std::vector<float> maxAbs(channels, 0.0f);
    for (size_t i = 0; i < values.size(); ++i) maxAbs[channelOf(i)] = std::max(maxAbs[channelOf(i)], std::fabs(values[i]));
    std::vector<float> scales(channels);
    for (size_t c = 0; c < channels; ++c) scales[c] = maxAbs[c] > 0 ? maxAbs[c] / 127.0f : 1.0f;
    widenForBias(op, scales);
    std::vector<int8_t> q(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      q[i] = static_cast<int8_t>(std::clamp<double>(std::nearbyint(values[i] / scales[channelOf(i)]), -127, 127));
    }
    test::TestOperand t = w;
    t.name = w.name + "_int8";
    t.data = bufferOf(q);
    t.lifetime = LifeTime::CONSTANT_COPY;
    if (axis < 0) {
      t.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
      t.scale = scales[0];
      t.zeroPoint = 0;
    } else {
      t.type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
      t.scale = 0.0f;
      t.zeroPoint = 0;
      t.channelQuant.scales = scales;
      t.channelQuant.channelDim = static_cast<uint32_t>(axis);
    }
    weightScales_ = std::move(scales);
    return push(std::move(t));
  }

  // The bias's int32 scale is input_scale * weight_scale, so a bias large beside activations of
  // tiny steps does not fit: GoogLeNet with random weights feeds its classifier activations of
  // ~1e-9, its biases are ~0.03, and clamped to int32 they became ~0, the whole output 0. As
  // TFLite's quantizer (AdjustWeightsForBiasScale), such a channel's weight scale is raised until
  // its bias takes at most 2^30 steps (half of int32, headroom for the products' sum): its
  // weights coarser, down to zeros, and the bias, what dominates the output, kept.
  void widenForBias(const test::TestOperation& op, std::vector<float>& scales) const {
    if (op.inputs.size() < 3) return;
    const auto& b = in_.operands[op.inputs[2]];
    const auto input = quant_.find(op.inputs[0]);
    if (b.type != OperandType::TENSOR_FLOAT32 || !isConstant(b) || input == quant_.end()) return;
    const std::vector<float> biases = floatsOf(b);
    const double inputScale = input->second.scales.front();
    constexpr double kSteps = 1073741824.0;  // 2^30
    for (size_t c = 0; c < biases.size(); ++c) {
      float& scale = scales[scales.size() == 1 ? 0 : c];
      const auto needed = static_cast<float>(std::fabs(static_cast<double>(biases[c])) / (inputScale * kSteps));
      if (std::isfinite(needed) && needed > scale) scale = needed;
    }
  }

  // int32 bias of scale input_scale * weight_scale (per channel: scale 0, each channel's implied).
  uint32_t bias(const test::TestOperation& op, uint32_t index, float inputScale) {
    const auto& b = in_.operands[index];
    const std::vector<float> values = floatsOf(b);
    std::vector<int32_t> q(values.size());
    const bool perChannel = weightChannelAxis(op.type) >= 0;
    for (size_t c = 0; c < values.size(); ++c) {
      const double scale = static_cast<double>(inputScale) * weightScales_[perChannel ? c : 0];
      q[c] = static_cast<int32_t>(std::clamp<double>(std::nearbyint(values[c] / scale),
                                                     std::numeric_limits<int32_t>::min(),
                                                     std::numeric_limits<int32_t>::max()));
    }
    test::TestOperand t = b;
    t.name = b.name + "_int32";
    t.type = OperandType::TENSOR_INT32;
    t.scale = perChannel ? 0.0f : inputScale * weightScales_[0];
    t.zeroPoint = 0;
    t.data = bufferOf(q);
    t.lifetime = LifeTime::CONSTANT_COPY;
    return push(std::move(t));
  }

  // PAD_V2's pad value for a quantized input: an INT32 scalar in the input's quantized units.
  uint32_t padValue(const test::TestOperand& value, const Quantization& input) {
    const float v = value.data.at<float>(0);
    return int32Scalar(value.name + "_quantized", quantizeValue(v, input.scales.front(), input.zeroPoints.front()));
  }

  // Any other float constant an operation reads (an ADD's or MUL's operand, PRELU's alpha):
  // asymmetric int8 over its own range, one copy however many operations read it.
  uint32_t constantTensor(uint32_t index) {
    if (auto done = quantizedConstants_.find(index); done != quantizedConstants_.end()) return done->second;
    return quantizedConstants_[index] = quantizedConstant(in_.operands[index], floatsOf(in_.operands[index]), "_int8");
  }

  // A DIV by a constant tensor without zeros, as NNAPI has no quantized DIV: the MUL by its
  // reciprocal (attention's scaling by 1/sqrt(d)). nullopt for any other DIV.
  std::optional<std::vector<float>> reciprocal(const test::TestOperation& op) const {
    if (op.inputs.size() < 2) return std::nullopt;
    const auto& divisor = in_.operands[op.inputs[1]];
    if (divisor.type != OperandType::TENSOR_FLOAT32 || !isConstant(divisor)) return std::nullopt;
    std::vector<float> values = floatsOf(divisor);
    for (float& v : values) {
      if (v == 0.0f || !std::isfinite(1.0f / v)) return std::nullopt;
      v = 1.0f / v;
    }
    return values;
  }

  // The int8 quantization of a constant `c` holding `values`: asymmetric over their range.
  static Quantization constantQuantization(const test::TestOperand& c, const std::vector<float>& values) {
    Range r;
    for (float v : values) {
      if (std::isnan(v)) throw ImportError(fmt::format("constant '{}' holds NaN, which int8 cannot hold", c.name));
      widen(r, v, kMaskMagnitude);
    }
    // A mask constant's masked values (Range) are kMaskMagnitude deep, so that added to anything
    // in the other operand's range its sum saturates at the bottom of the ADD's output range.
    if (r.maskedLow) r.lo = std::min(r.lo, -kMaskMagnitude);
    if (r.maskedHigh) r.hi = std::max(r.hi, kMaskMagnitude);
    r.maskedLow = r.maskedHigh = false;
    return int8Quantization(r);
  }

  // `c` holding `values`, int8 asymmetric over their range.
  uint32_t quantizedConstant(const test::TestOperand& c, const std::vector<float>& values, const std::string& suffix) {
    const Quantization q = constantQuantization(c, values);
    std::vector<int8_t> bytes(values.size());
    for (size_t i = 0; i < values.size(); ++i) bytes[i] = quantizeValue(values[i], q.scales[0], q.zeroPoints[0]);
    test::TestOperand t = c;
    t.name = c.name + suffix;
    t.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    t.scale = q.scales[0];
    t.zeroPoint = q.zeroPoints[0];
    t.data = bufferOf(bytes);
    t.lifetime = LifeTime::CONSTANT_COPY;
    return push(std::move(t));
  }

  // WEFT_UNARY's function for a float operation NNAPI's 8-bit types do not take (EXP, LOG, SQRT,
  // ABS, SIN, NEG), where the extension may be used: quantized as that operation.
  std::optional<int32_t> unaryFunction(Op type) const {
    if (!weftExtensions_) return std::nullopt;
    switch (type) {
      case Op::EXP: return WEFT_UNARY_EXP;
      case Op::LOG: return WEFT_UNARY_LOG;
      case Op::SQRT: return WEFT_UNARY_SQRT;
      case Op::ABS: return WEFT_UNARY_ABS;
      case Op::SIN: return WEFT_UNARY_SIN;
      case Op::NEG: return WEFT_UNARY_NEG;
      default: return std::nullopt;
    }
  }
  // org.weft.accel's operation `code` in the quantized model (its prefix added if the float model
  // had none).
  Op weftOperation(uint16_t code) {
    auto& extensions = out_.model.extensionNameToPrefix;
    auto it = std::find_if(extensions.begin(), extensions.end(),
                           [](const auto& e) { return e.name == WEFT_EXTENSION_NAME; });
    if (it == extensions.end()) {
      uint16_t prefix = 1;
      for (const auto& e : extensions) prefix = std::max<uint16_t>(prefix, static_cast<uint16_t>(e.prefix + 1));
      extensions.push_back({WEFT_EXTENSION_NAME, prefix});
      it = std::prev(extensions.end());
    }
    return static_cast<Op>(uint32_t{it->prefix} << nn::kExtensionTypeBits | code);
  }

  // org.weft.accel's operation code of `type`, when it is one of the extension's operations.
  std::optional<uint16_t> weftCode(Op type) const {
    return nn::extensionOperationCode(extensions_, type, WEFT_EXTENSION_NAME);
  }
  // WEFT_GELU and WEFT_LAYER_NORM have 8-bit forms of their own output quantization (the layer
  // norm's gamma and beta stay float32, weft/WeftExtension.h).
  Rule ruleOfType(Op type) const {
    if (unaryFunction(type)) return Rule::kCalibrated;
    const std::optional<uint16_t> code = weftCode(type);
    if (!code) return ruleOf(type);
    return *code == WEFT_GELU || *code == WEFT_LAYER_NORM ? Rule::kCalibrated : Rule::kFloat;
  }

  const test::TestSubgraph& in_;
  const std::vector<nn::ExtensionNameAndPrefix>& extensions_;
  const std::map<uint32_t, Range>& ranges_;
  const bool weftExtensions_;
  QuantizedModel out_;
  std::map<uint32_t, Quantization> quant_;
  std::map<uint32_t, uint32_t> quantizedConstants_;
  std::map<size_t, size_t> fusedInto_;  // an operation -> the activation folded into it
  std::set<size_t> floatOps_;           // the operations kept in float32
  std::set<size_t> rescaled_;           // LOGISTIC/TANH reading their input rescaled (rescaledInput)
  std::map<size_t, size_t> rsqrtOf_;    // a DIV of 1 by a square root -> that SQRT (an RSQRT now)
  std::map<uint32_t, uint32_t> tie_;    // operands sharing one quantization: union-find parents
  std::map<uint32_t, std::vector<size_t>> readers_;  // operations reading each operand (softmaxInputRange)
  std::set<size_t> absorbed_;           // the activations folded
  std::vector<float> weightScales_;  // the last weights(): what the bias after them is scaled by
};

}  // namespace

std::vector<uint32_t> calibratedOperands(const test::TestModel& model) {
  std::vector<uint32_t> operands;
  for (uint32_t i = 0; i < model.main.operands.size(); ++i) {
    if (isComputedFloat(model.main.operands[i])) operands.push_back(i);
  }
  return operands;
}

test::TestModel observingModel(const test::TestModel& model, const std::vector<uint32_t>& operands) {
  test::TestModel observing = model;
  auto& main = observing.main;
  const std::set<uint32_t> inputs(main.inputIndexes.begin(), main.inputIndexes.end());
  for (uint32_t i : operands) {
    if (inputs.count(i) == 0) main.operands[i].lifetime = LifeTime::SUBGRAPH_OUTPUT;
  }
  // An input can be observed only by the caller (NNAPI outputs are written by operations).
  main.outputIndexes.clear();
  for (uint32_t i : operands) {
    if (inputs.count(i) == 0) main.outputIndexes.push_back(i);
  }
  return observing;
}

void RangeObserver::observe(uint32_t operand, const uint8_t* data, size_t bytes) {
  Range& r = ranges_[operand];
  for (size_t i = 0; i + sizeof(float) <= bytes; i += sizeof(float)) {
    float v;
    std::memcpy(&v, data + i, sizeof(float));
    if (std::isnan(v)) {
      throw ImportError(fmt::format("calibration: operand {} took the value {}, which int8 cannot hold", operand, v));
    }
    widen(r, v);
  }
}

void widen(Range& r, float v, float masked) {
  if (v <= -masked) {
    r.maskedLow = true;
  } else if (v >= masked) {
    r.maskedHigh = true;
  } else {
    r.lo = std::min(r.lo, v);
    r.hi = std::max(r.hi, v);
    r.least = std::min(r.least, v);
    r.most = std::max(r.most, v);
  }
}

Quantization int8Quantization(Range range) {
  double lo = std::min(0.0f, range.lo), hi = std::max(0.0f, range.hi);
  if (range.maskedLow) lo = std::min(lo, hi - kMaskDepth);
  if (range.maskedHigh) hi = std::max(hi, lo + kMaskDepth);
  const double scale = hi > lo ? (hi - lo) / 255.0 : 1.0 / 256;
  const double zero = std::clamp(std::nearbyint(-128.0 - lo / scale), -128.0, 127.0);
  return {{static_cast<float>(scale)}, {static_cast<int32_t>(zero)}, -1};
}

QuantizedModel quantizeInt8(const test::TestModel& model, const std::map<uint32_t, Range>& ranges, bool weftExtensions) {
  if (!model.referenced.empty()) throw ImportError("a model with control flow (IF, WHILE) cannot be quantized here");
  return Quantizer(model, ranges, weftExtensions).run();
}

}  // namespace weft::onnx
