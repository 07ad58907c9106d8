#include "QuantizedGraph.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "ImportError.h"
#include "Node.h"

namespace weft::onnx {
namespace {

using ::onnx::NodeProto;

// NNAPI's fuse codes (FuseCode in NeuralNetworks.h).
constexpr int32_t kFuseRelu = 1, kFuseRelu1 = 2, kFuseRelu6 = 3;

int64_t lowestOf(DType t) {
  switch (t) {
    case DType::kUint8: return 0;
    case DType::kInt8: return -128;
    case DType::kInt32: return std::numeric_limits<int32_t>::min();
    default: return 0;
  }
}
int64_t highestOf(DType t) {
  switch (t) {
    case DType::kUint8: return 255;
    case DType::kInt8: return 127;
    case DType::kInt32: return std::numeric_limits<int32_t>::max();
    default: return 0;
  }
}

// The scale and zero point of element i along the quantization's axis.
size_t channelOf(const Quantization& q, const Shape& shape, int64_t i) {
  if (!q.perChannel()) return 0;
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(q.axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  return static_cast<size_t>((i / inner) % shape[static_cast<size_t>(q.axis)]);
}

// How an operator takes part in a quantized group.
enum class Kind {
  kCompute,      // requantizes: any input and output parameters; may fuse a following Relu/Clip
  kConcat,       // any parameters (NNAPI requantizes each input), every input is data
  kSameParams,   // moves or selects values: NNAPI wants the output parameters of the input
  kFixedOutput,  // NNAPI fixes the output's parameters: scale 1/256, zero point 0 (int8: -128)
};

struct Rule {
  Kind kind;
  std::vector<int> data;  // the inputs that must be quantized activations
  int weights = -1;       // a quantized constant (Conv, Gemm, MatMul)
  int bias = -1;          // int32 quantized, float constant, or absent
};

const Rule* ruleFor(const std::string& op) {
  static const std::map<std::string, Rule> rules = {
      {"Conv", {Kind::kCompute, {0}, 1, 2}},
      {"Gemm", {Kind::kCompute, {0}, 1, 2}},
      {"MatMul", {Kind::kCompute, {0}, 1, -1}},
      {"Add", {Kind::kCompute, {0, 1}}},
      {"Mul", {Kind::kCompute, {0, 1}}},
      {"Concat", {Kind::kConcat, {}}},
      {"MaxPool", {Kind::kSameParams, {0}}},
      {"AveragePool", {Kind::kSameParams, {0}}},
      {"GlobalAveragePool", {Kind::kSameParams, {0}}},
      {"Relu", {Kind::kSameParams, {0}}},
      {"Clip", {Kind::kSameParams, {0}}},
      {"Reshape", {Kind::kSameParams, {0}}},
      {"Flatten", {Kind::kSameParams, {0}}},
      {"Squeeze", {Kind::kSameParams, {0}}},
      {"Unsqueeze", {Kind::kSameParams, {0}}},
      {"Transpose", {Kind::kSameParams, {0}}},
      {"Sigmoid", {Kind::kFixedOutput, {0}}},
      {"Softmax", {Kind::kFixedOutput, {0}}},
  };
  auto it = rules.find(op);
  return it == rules.end() ? nullptr : &it->second;
}

class Pass {
 public:
  explicit Pass(QuantizedGraphView& g) : g_(g) {}

  QuantizedPlan run() {
    expandQOperators();
    foldConstantQuantize();
    annotate();
    indexGraph();
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (!g_.folded[i]) tryGroup(static_cast<int>(i));
    }
    dropUnreadDequantize();
    return std::move(plan_);
  }

 private:
  Node node(size_t i) const { return Node(g_.nodes[i], static_cast<int>(i), g_.opset); }
  const HostTensor* constantOf(const std::string& value) const {
    auto it = g_.constants.find(value);
    return it == g_.constants.end() ? nullptr : &it->second;
  }
  ValueInfo* infoOf(const std::string& value) {
    auto it = g_.infos.find(value);
    return it == g_.infos.end() ? nullptr : &it->second;
  }

  // The quantization a QuantizeLinear (quantize = true) or DequantizeLinear node states, and the
  // integer type it stands for.
  std::pair<Quantization, DType> paramsOf(const Node& n, bool quantize) {
    const HostTensor* scale = constantOf(n.input(1));
    if (scale == nullptr) {
      throw ImportError(n.error("its scale is computed at run time (NNAPI's quantization parameters are static)"));
    }
    const HostTensor* zero = n.hasInput(2) ? constantOf(n.input(2)) : nullptr;
    if (n.hasInput(2) && zero == nullptr) {
      throw ImportError(n.error("its zero point is computed at run time (NNAPI's quantization parameters are static)"));
    }
    DType type = DType::kUint8;
    if (zero != nullptr) {
      type = zero->type;
    } else if (!quantize) {
      if (const ValueInfo* v = infoOf(n.input(0))) type = v->type;
    }
    if (type != DType::kUint8 && type != DType::kInt8 && !(type == DType::kInt32 && !quantize)) {
      throw ImportError(n.error(fmt::format("{} quantization (NNAPI quantizes to uint8 and int8, and biases to int32)",
                                            dtypeName(type))));
    }
    Quantization q;
    for (int64_t i = 0; i < scale->size(); ++i) {
      const double s = scale->asDouble(i);
      if (!(s > 0.0) || !std::isfinite(s)) throw ImportError(n.error(fmt::format("a scale of {} (scales are positive)", s)));
      q.scales.push_back(static_cast<float>(s));
    }
    if (q.scales.empty()) throw ImportError(n.error("an empty scale"));
    // Checked before any is read: an empty zero point has no element 0.
    if (zero != nullptr && zero->size() != 1 && zero->size() != scale->size()) {
      throw ImportError(n.error(fmt::format("a zero point of {} elements for {} scales (one, or one a scale)",
                                            zero->size(), scale->size())));
    }
    for (size_t i = 0; i < q.scales.size(); ++i) {
      const int64_t z = zero == nullptr ? 0 : zero->asInt(zero->size() == 1 ? 0 : static_cast<int64_t>(i));
      q.zeroPoints.push_back(static_cast<int32_t>(z));
    }
    if (scale->size() > 1) {
      const ValueInfo* x = infoOf(n.input(0));
      const int64_t rank = x ? static_cast<int64_t>(x->shape.size()) : 0;
      int64_t axis = n.attrInt("axis", 1);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank || x->shape[static_cast<size_t>(axis)] != scale->size()) {
        throw ImportError(n.error(fmt::format("{} scales along axis {} of a value of shape {}", scale->size(),
                                              n.attrInt("axis", 1), x ? shapeString(x->shape) : "unknown")));
      }
      q.axis = axis;
    }
    return {q, type};
  }

  // QLinearConv and QLinearMatMul as DequantizeLinear -> Conv / MatMul -> QuantizeLinear.
  void expandQOperators() {
    std::vector<NodeProto> nodes;
    std::vector<bool> folded;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const std::string& op = g_.nodes[i].op_type();
      if (g_.folded[i] || (op != "QLinearConv" && op != "QLinearMatMul") || !g_.nodes[i].domain().empty()) {
        nodes.push_back(g_.nodes[i]);
        folded.push_back(g_.folded[i]);
        continue;
      }
      for (NodeProto& n : expand(node(i))) {
        nodes.push_back(std::move(n));
        folded.push_back(false);
      }
    }
    g_.nodes = std::move(nodes);
    g_.folded = std::move(folded);
  }

  std::vector<NodeProto> expand(const Node& q) {
    const bool conv = q.op() == "QLinearConv";
    static const char* const kParams[] = {"", "x_scale", "x_zero_point", "", "w_scale", "w_zero_point", "y_scale",
                                          "y_zero_point"};
    for (size_t k : {1, 2, 4, 5, 6, 7}) {
      if (q.hasInput(k) && constantOf(q.input(k)) == nullptr) {
        throw ImportError(q.error(fmt::format("its {} is computed at run time (NNAPI's quantization parameters are "
                                              "static)",
                                              kParams[k])));
      }
    }
    const std::string base = q.output(0);
    auto make = [&](const std::string& op, std::vector<std::string> in, const std::string& out,
                    const std::string& suffix) {
      NodeProto n;
      n.set_op_type(op);
      n.set_name(q.name().empty() ? base + suffix : q.name() + suffix);
      for (auto& s : in) n.add_input(s);
      n.add_output(out);
      return n;
    };
    auto floatInfo = [&](const std::string& value, const std::string& like) {
      const ValueInfo* v = infoOf(like);
      if (v == nullptr) throw ImportError(q.error(fmt::format("the shape of '{}' is unknown", like)));
      g_.infos[value] = ValueInfo{DType::kFloat, v->shape, {}};
    };
    std::vector<NodeProto> out;
    const std::string x = base + "/x_float", w = base + "/w_float", y = base + "/y_float";
    out.push_back(make("DequantizeLinear", {q.input(0), q.input(1), q.input(2)}, x, "/dequantize_x"));
    floatInfo(x, q.input(0));
    NodeProto dw = make("DequantizeLinear", {q.input(3), q.input(4), q.input(5)}, w, "/dequantize_w");
    const HostTensor* ws = constantOf(q.input(4));
    const ValueInfo* wInfo = infoOf(q.input(3));
    if (ws != nullptr && ws->size() > 1 && wInfo != nullptr) {
      // Per output channel: axis 0 of Conv's [out, in, h, w], the last axis of MatMul's [.., K, N].
      auto* axis = dw.add_attribute();
      axis->set_name("axis");
      axis->set_type(::onnx::AttributeProto::INT);
      axis->set_i(conv ? 0 : static_cast<int64_t>(wInfo->shape.size()) - 1);
    }
    out.push_back(std::move(dw));
    floatInfo(w, q.input(3));
    std::vector<std::string> opInputs = {x, w};
    if (conv && q.hasInput(8)) {
      // The bias is int32 with scale x_scale * w_scale and zero point 0 (QLinearConv's definition).
      const HostTensor *xs = constantOf(q.input(1));
      if (xs == nullptr || ws == nullptr) throw ImportError(q.error("its scales are computed at run time"));
      HostTensor scale(DType::kFloat, {ws->size()});
      for (int64_t c = 0; c < ws->size(); ++c) {
        scale.setDouble(c, static_cast<float>(xs->asDouble(0)) * static_cast<float>(ws->asDouble(c)));
      }
      if (ws->size() == 1) scale.shape = {};
      const std::string scaleName = base + "/bias_scale", b = base + "/b_float";
      g_.infos[scaleName] = ValueInfo{DType::kFloat, scale.shape, {}};
      g_.constants[scaleName] = std::move(scale);
      NodeProto db = make("DequantizeLinear", {q.input(8), scaleName}, b, "/dequantize_b");
      if (ws->size() > 1) {
        auto* axis = db.add_attribute();
        axis->set_name("axis");
        axis->set_type(::onnx::AttributeProto::INT);
        axis->set_i(0);
      }
      out.push_back(std::move(db));
      floatInfo(b, q.input(8));
      opInputs.push_back(b);
    }
    NodeProto op = make(conv ? "Conv" : "MatMul", opInputs, y, "");
    for (const auto& a : q.proto().attribute()) *op.add_attribute() = a;
    out.push_back(std::move(op));
    floatInfo(y, q.output(0));
    out.push_back(make("QuantizeLinear", {y, q.input(6), q.input(7)}, q.output(0), "/quantize_y"));
    return out;
  }

  // A QuantizeLinear of a constant (float weights quantized in the graph) is its quantized value.
  void foldConstantQuantize() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node n = node(i);
      if (g_.folded[i] || n.op() != "QuantizeLinear") continue;
      const HostTensor* x = constantOf(n.input(0));
      if (x == nullptr) continue;
      auto [q, type] = paramsOf(n, true);
      HostTensor value = quantize(*x, q, type);
      g_.infos[n.output(0)] = ValueInfo{type, value.shape, q};
      g_.constants[n.output(0)] = std::move(value);
      g_.folded[i] = true;
    }
  }

  void setQuant(const Node& n, const std::string& value, const Quantization& q, bool computedAllowed) {
    ValueInfo* v = infoOf(value);
    if (v == nullptr) throw ImportError(n.error(fmt::format("the type and shape of '{}' are unknown", value)));
    if (q.perChannel() && !computedAllowed && constantOf(value) == nullptr) {
      throw ImportError(n.error(fmt::format("'{}' is quantized per channel but computed at run time (NNAPI quantizes "
                                            "activations per tensor)",
                                            value)));
    }
    if (v->quant.quantized() && !(v->quant == q)) {
      throw ImportError(n.error(fmt::format("'{}' is read with other quantization parameters than it was written with",
                                            value)));
    }
    v->quant = q;
  }

  // Every QuantizeLinear output and DequantizeLinear input gets its Quantization.
  void annotate() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (g_.folded[i]) continue;
      const Node n = node(i);
      if (n.op() == "QuantizeLinear") {
        setQuant(n, n.output(0), paramsOf(n, true).first, false);
      } else if (n.op() == "DequantizeLinear") {
        setQuant(n, n.input(0), paramsOf(n, false).first, false);
      }
    }
  }

  void indexGraph() {
    producer_.clear();
    readers_.clear();
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (g_.folded[i]) continue;
      for (const auto& in : g_.nodes[i].input()) {
        if (!in.empty()) readers_[in].push_back(static_cast<int>(i));
      }
      for (const auto& out : g_.nodes[i].output()) {
        if (!out.empty()) producer_[out] = static_cast<int>(i);
      }
    }
  }

  // The DequantizeLinear node that computes `value`, or -1.
  int dequantizerOf(const std::string& value) const {
    auto it = producer_.find(value);
    if (it == producer_.end()) return -1;
    return g_.nodes[static_cast<size_t>(it->second)].op_type() == "DequantizeLinear" ? it->second : -1;
  }
  // The one node that reads `value` (not a graph output), or -1.
  int onlyReader(const std::string& value) const {
    if (g_.graphOutputs.count(value) != 0) return -1;
    auto it = readers_.find(value);
    if (it == readers_.end() || it->second.size() != 1) return -1;
    return it->second.front();
  }
  const ValueInfo& quantizedInfo(int dequantizer) {
    return *infoOf(g_.nodes[static_cast<size_t>(dequantizer)].input(0));
  }

  // The NNAPI fuse code of a Relu or Clip node, when NNAPI has one for it.
  std::optional<int32_t> fuseCodeOf(const Node& a) {
    if (a.op() == "Relu") return kFuseRelu;
    if (a.op() != "Clip") return std::nullopt;
    double lo = -INFINITY, hi = INFINITY;
    if (a.opset() < 11) {
      lo = a.attrFloat("min", -INFINITY);
      hi = a.attrFloat("max", INFINITY);
    } else {
      for (size_t k = 1; k <= 2; ++k) {
        if (!a.hasInput(k)) continue;
        const HostTensor* c = constantOf(a.input(k));
        if (c == nullptr || c->size() != 1) return std::nullopt;
        (k == 1 ? lo : hi) = c->asDouble(0);
      }
    }
    if (lo == 0.0 && std::isinf(hi)) return kFuseRelu;
    if (lo == 0.0 && hi == 6.0) return kFuseRelu6;
    if (lo == -1.0 && hi == 1.0) return kFuseRelu1;
    return std::nullopt;
  }

  // Whether the quantized weights (and bias) of a Conv, Gemm or MatMul can be NNAPI's.
  bool weightsFit(const Node& n, const Rule& rule) {
    const int dw = dequantizerOf(n.input(static_cast<size_t>(rule.weights)));
    if (dw < 0) return false;
    const std::string& wq = g_.nodes[static_cast<size_t>(dw)].input(0);
    const HostTensor* w = constantOf(wq);
    if (w == nullptr || (w->type != DType::kUint8 && w->type != DType::kInt8)) return false;
    const Quantization& q = quantizedInfo(dw).quant;
    size_t outAxis = 0;
    if (n.op() == "Conv") {
      if (w->shape.size() != 4) return false;
    } else {
      if (w->shape.size() != 2) return false;
      if (n.op() == "Gemm") {
        if (n.attrInt("transA", 0) != 0 || n.attrFloat("alpha", 1.0f) != 1.0f || n.attrFloat("beta", 1.0f) != 1.0f) {
          return false;
        }
        outAxis = n.attrInt("transB", 0) != 0 ? 0 : 1;
      } else {
        outAxis = 1;
      }
    }
    if (q.perChannel()) {
      if (w->type != DType::kInt8 || static_cast<size_t>(q.axis) != outAxis) return false;
      for (int32_t z : q.zeroPoints) {
        if (z != 0) return false;
      }
    }
    if (rule.bias >= 0 && n.hasInput(static_cast<size_t>(rule.bias))) {
      const std::string& b = n.input(static_cast<size_t>(rule.bias));
      const int db = dequantizerOf(b);
      const HostTensor* value = db >= 0 ? constantOf(g_.nodes[static_cast<size_t>(db)].input(0)) : constantOf(b);
      if (value == nullptr || value->shape.size() > 1) return false;
      if (db >= 0 && value->type != DType::kInt32) return false;
      if (db < 0 && !isFloat(value->type)) return false;
      if (value->size() != w->shape[outAxis] && value->size() != 1) return false;
    }
    return true;
  }

  // Whether node i can run quantized; marks it and rewires its inputs and output if so.
  void tryGroup(int i) {
    const Node n = node(static_cast<size_t>(i));
    const Rule* rule = ruleFor(n.op());
    if (rule == nullptr || !g_.nodes[static_cast<size_t>(i)].domain().empty()) return;
    if (n.outputCount() != 1 && !(n.outputCount() == 2 && !n.hasOutput(1))) return;
    std::vector<size_t> data(rule->data.begin(), rule->data.end());
    if (rule->kind == Kind::kConcat) {
      for (size_t k = 0; k < n.inputCount(); ++k) data.push_back(k);
    }
    std::vector<int> dequantizers;
    for (size_t k : data) {
      if (!n.hasInput(k)) return;
      const int d = dequantizerOf(n.input(k));
      if (d < 0) return;
      const ValueInfo& v = quantizedInfo(d);
      if (v.quant.perChannel() || (v.type != DType::kUint8 && v.type != DType::kInt8)) return;
      dequantizers.push_back(d);
    }
    if (dequantizers.empty()) return;
    if (rule->weights >= 0 && !weightsFit(n, *rule)) return;
    // The output: one QuantizeLinear, directly or through a fusable Relu/Clip.
    const std::string out = n.output(0);
    int reader = onlyReader(out);
    if (reader < 0) return;
    int activation = -1;
    int32_t fuse = 0;
    if (g_.nodes[static_cast<size_t>(reader)].op_type() != "QuantizeLinear") {
      if (rule->kind != Kind::kCompute || n.op() == "Concat") return;
      const Node a = node(static_cast<size_t>(reader));
      const auto code = fuseCodeOf(a);
      if (!code) return;
      activation = reader;
      fuse = *code;
      reader = onlyReader(a.output(0));
      if (reader < 0 || g_.nodes[static_cast<size_t>(reader)].op_type() != "QuantizeLinear") return;
    }
    const std::string& y = g_.nodes[static_cast<size_t>(reader)].output(0);
    const ValueInfo* yInfo = infoOf(y);
    const ValueInfo& x0 = quantizedInfo(dequantizers.front());
    if (yInfo == nullptr || yInfo->quant.perChannel() || yInfo->type != x0.type) return;
    for (int d : dequantizers) {
      if (quantizedInfo(d).type != x0.type) return;
    }
    if (rule->kind == Kind::kSameParams && !(yInfo->quant == x0.quant)) return;
    if (rule->kind == Kind::kFixedOutput) {
      const int32_t zero = x0.type == DType::kInt8 ? -128 : 0;
      if (yInfo->quant.scales.front() != 1.0f / 256.0f || yInfo->quant.zeroPoints.front() != zero) return;
    }
    if (n.op() == "Clip" && !fuseCodeOf(n)) return;
    // Rewire: the node reads the quantized values and writes the QuantizeLinear's output.
    NodeProto& proto = g_.nodes[static_cast<size_t>(i)];
    auto bypass = [&](size_t k) {
      const int d = dequantizerOf(proto.input(static_cast<int>(k)));
      if (d >= 0) proto.set_input(static_cast<int>(k), g_.nodes[static_cast<size_t>(d)].input(0));
    };
    for (size_t k : data) bypass(k);
    if (rule->weights >= 0) bypass(static_cast<size_t>(rule->weights));
    if (rule->bias >= 0 && n.hasInput(static_cast<size_t>(rule->bias))) bypass(static_cast<size_t>(rule->bias));
    proto.set_output(0, y);
    g_.folded[static_cast<size_t>(reader)] = true;
    if (activation >= 0) {
      g_.folded[static_cast<size_t>(activation)] = true;
      plan_.fusedActivation[i] = fuse;
    }
    plan_.nodes.insert(i);
  }

  // DequantizeLinear nodes nothing reads any more go; the ones left over constants fold.
  void dropUnreadDequantize() {
    indexGraph();
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node n = node(i);
      if (g_.folded[i] || n.op() != "DequantizeLinear") continue;
      if (readers_.count(n.output(0)) == 0 && g_.graphOutputs.count(n.output(0)) == 0) {
        g_.folded[i] = true;
        continue;
      }
      const HostTensor* q = constantOf(n.input(0));
      if (q == nullptr) continue;
      HostTensor real = dequantize(*q, infoOf(n.input(0))->quant);
      g_.infos[n.output(0)] = ValueInfo{DType::kFloat, real.shape, {}};
      g_.constants[n.output(0)] = std::move(real);
      g_.folded[i] = true;
    }
  }

  QuantizedGraphView& g_;
  QuantizedPlan plan_;
  std::map<std::string, int> producer_;
  std::map<std::string, std::vector<int>> readers_;
};

}  // namespace

QuantizedPlan planQuantized(QuantizedGraphView graph) { return Pass(graph).run(); }

HostTensor dequantize(const HostTensor& q, const Quantization& quant) {
  HostTensor real(DType::kFloat, q.shape);
  for (int64_t i = 0; i < q.size(); ++i) {
    const size_t c = channelOf(quant, q.shape, i);
    const float s = quant.scales[c];
    real.data<float>()[i] = static_cast<float>(q.asInt(i) - quant.zeroPoints[c]) * s;
  }
  return real;
}

HostTensor quantize(const HostTensor& real, const Quantization& quant, DType type) {
  HostTensor q(type, real.shape);
  const int64_t lo = lowestOf(type), hi = highestOf(type);
  for (int64_t i = 0; i < real.size(); ++i) {
    const size_t c = channelOf(quant, real.shape, i);
    // ONNX's QuantizeLinear: x / scale in float, rounded half to even (std::nearbyint in the
    // default rounding mode).
    const float scaled = static_cast<float>(real.asDouble(i)) / quant.scales[c];
    const double v = std::nearbyint(static_cast<double>(scaled)) + quant.zeroPoints[c];
    q.setInt(i, static_cast<int64_t>(std::clamp<double>(v, static_cast<double>(lo), static_cast<double>(hi))));
  }
  return q;
}

}  // namespace weft::onnx
