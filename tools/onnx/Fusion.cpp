#include "Fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace weft::onnx {
namespace {

using ::onnx::NodeProto;

// Within float rounding of the formula's constant (exporters write sqrt 2 and sqrt(2/pi) in float).
bool near(double value, double want) { return std::fabs(value - want) <= 1e-4 * std::fabs(want); }

class Matcher {
 public:
  explicit Matcher(FusionGraph& g) : g_(g) {
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (g_.folded[i]) continue;
      for (const auto& in : g_.nodes[i].input()) {
        auto& readers = readers_[in];
        if (readers.empty() || readers.back() != i) readers.push_back(i);  // Mul(d, d) reads d once
      }
      for (const auto& out : g_.nodes[i].output()) producer_[out] = i;
    }
  }

  bool fuseGelu(size_t i);
  bool fuseLayerNorm(size_t i);
  bool fuseMaskedSoftmax(size_t i);

 private:
  const NodeProto& node(size_t i) const { return g_.nodes[i]; }
  bool is(size_t i, const char* op, int inputs) const {
    return !g_.folded[i] && node(i).op_type() == op && node(i).input_size() == inputs && node(i).output_size() >= 1;
  }
  // The one node reading `value` (no graph output), when it is an `op` of `inputs` inputs.
  std::optional<size_t> soleReader(const std::string& value, const char* op, int inputs = 2) const {
    if (g_.graphOutputs.count(value) != 0) return std::nullopt;
    auto it = readers_.find(value);
    if (it == readers_.end() || it->second.size() != 1 || !is(it->second[0], op, inputs)) return std::nullopt;
    if (node(it->second[0]).output_size() != 1) return std::nullopt;
    return it->second[0];
  }
  // The node computing `value`, when it is an `op` read only by `reader`.
  std::optional<size_t> producerFor(const std::string& value, const char* op, size_t reader, int inputs = 2) const {
    auto it = producer_.find(value);
    if (it == producer_.end() || !is(it->second, op, inputs) || node(it->second).output_size() != 1) return std::nullopt;
    auto r = readers_.find(value);
    if (g_.graphOutputs.count(value) != 0 || r == readers_.end() || r->second != std::vector<size_t>{reader}) {
      return std::nullopt;
    }
    return it->second;
  }
  std::optional<double> scalar(const std::string& value) const {
    auto it = g_.constants.find(value);
    if (it == g_.constants.end() || it->second.size() != 1 || !isFloat(it->second.type)) return std::nullopt;
    return it->second.asDouble(0);
  }
  bool isScalar(const std::string& value, double want) const {
    auto v = scalar(value);
    return v && near(*v, want);
  }
  // The input of binary node i that is not `one` (commutative operators), if `one` is an input.
  std::optional<std::string> other(size_t i, const std::string& one) const {
    if (node(i).input(0) == one) return node(i).input(1);
    if (node(i).input(1) == one) return node(i).input(0);
    return std::nullopt;
  }
  // Binary node i as (value, constant): the input that is not a scalar constant of `want`.
  std::optional<std::string> timesConstant(size_t i, double want) const {
    if (isScalar(node(i).input(1), want)) return node(i).input(0);
    if (isScalar(node(i).input(0), want)) return node(i).input(1);
    return std::nullopt;
  }
  bool floatValue(const std::string& value) const {
    auto it = g_.infos.find(value);
    return it != g_.infos.end() && it->second.type == DType::kFloat && !it->second.quant.quantized() &&
           g_.constants.count(value) == 0;
  }
  std::optional<size_t> geluTail(const std::string& inner, const std::string& x, std::vector<size_t>& chain) const;
  bool reducesLastAxis(size_t i, const std::string& x) const;
  std::optional<HostTensor> channelVector(const std::string& value, int64_t channels) const;
  void rewrite(size_t last, const std::vector<size_t>& chain, NodeProto fused);

  FusionGraph& g_;
  std::map<std::string, std::vector<size_t>> readers_;
  std::map<std::string, size_t> producer_;
};

// From the erf or tanh term to the output: Add 1, then x * 0.5 * that, grouped as
// (x * t) * 0.5, x * (t * 0.5) or (x * 0.5) * t. Returns the last node.
std::optional<size_t> Matcher::geluTail(const std::string& inner, const std::string& x, std::vector<size_t>& chain) const {
  const auto plusOne = soleReader(inner, "Add");
  if (!plusOne || !timesConstant(*plusOne, 1.0)) return std::nullopt;
  chain.push_back(*plusOne);
  const auto times = soleReader(node(*plusOne).output(0), "Mul");
  if (!times) return std::nullopt;
  chain.push_back(*times);
  const auto p = other(*times, node(*plusOne).output(0));
  if (!p) return std::nullopt;
  if (*p == x || isScalar(*p, 0.5)) {  // (x * t) * 0.5 or x * (t * 0.5)
    const auto last = soleReader(node(*times).output(0), "Mul");
    if (!last) return std::nullopt;
    const auto q = other(*last, node(*times).output(0));
    if (!q || !(*p == x ? isScalar(*q, 0.5) : *q == x)) return std::nullopt;
    return last;
  }
  const auto half = producerFor(*p, "Mul", *times);  // (x * 0.5) * t
  if (!half || timesConstant(*half, 0.5) != x) return std::nullopt;
  chain.push_back(*half);
  return times;
}

bool Matcher::fuseGelu(size_t i) {
  const bool erf = is(i, "Erf", 1), tanh = is(i, "Tanh", 1);
  if (!erf && !tanh) return false;
  std::vector<size_t> chain{i};
  std::string x;
  if (erf) {  // erf(x / sqrt 2) or erf(x * (1 / sqrt 2))
    auto scaled = producerFor(node(i).input(0), "Div", i);
    if (scaled && isScalar(node(*scaled).input(1), std::sqrt(2.0))) {
      x = node(*scaled).input(0);
    } else if ((scaled = producerFor(node(i).input(0), "Mul", i))) {
      x = timesConstant(*scaled, 1.0 / std::sqrt(2.0)).value_or("");
    }
    if (x.empty()) return false;
    chain.push_back(*scaled);
  } else {  // tanh(sqrt(2/pi) * (x + 0.044715 * x^3))
    const auto scaled = producerFor(node(i).input(0), "Mul", i);
    const auto u = scaled ? timesConstant(*scaled, std::sqrt(2.0 / M_PI)) : std::nullopt;
    const auto sum = u ? producerFor(*u, "Add", *scaled) : std::nullopt;
    if (!sum) return false;
    chain.insert(chain.end(), {*scaled, *sum});
    for (int k = 0; k < 2 && x.empty(); ++k) {  // which addend is 0.044715 x^3
      const auto cubeTerm = producerFor(node(*sum).input(k), "Mul", *sum);
      const auto cube = cubeTerm ? timesConstant(*cubeTerm, 0.044715) : std::nullopt;
      if (!cube) continue;
      const std::string candidate = node(*sum).input(1 - k);
      std::vector<size_t> cubeNodes{*cubeTerm};
      if (auto pow = producerFor(*cube, "Pow", *cubeTerm); pow && node(*pow).input(0) == candidate &&
                                                             isScalar(node(*pow).input(1), 3.0)) {
        cubeNodes.push_back(*pow);
      } else if (auto outer = producerFor(*cube, "Mul", *cubeTerm)) {  // (x * x) * x, either way round
        const auto square = other(*outer, candidate);
        const auto inner = square ? producerFor(*square, "Mul", *outer) : std::nullopt;
        if (!inner || node(*inner).input(0) != candidate || node(*inner).input(1) != candidate) continue;
        cubeNodes.insert(cubeNodes.end(), {*outer, *inner});
      } else {
        continue;
      }
      x = candidate;
      chain.insert(chain.end(), cubeNodes.begin(), cubeNodes.end());
    }
    if (x.empty()) return false;
  }
  if (!floatValue(x)) return false;
  const auto last = geluTail(node(i).output(0), x, chain);
  if (!last) return false;
  chain.erase(std::remove(chain.begin(), chain.end(), *last), chain.end());
  NodeProto fused;
  fused.set_op_type("Gelu");
  fused.set_name(node(*last).name());
  fused.add_input(x);
  fused.add_output(node(*last).output(0));
  auto* approximate = fused.add_attribute();
  approximate->set_name("approximate");
  approximate->set_type(::onnx::AttributeProto::STRING);
  approximate->set_s(erf ? "none" : "tanh");
  rewrite(*last, chain, std::move(fused));
  return true;
}

// ReduceMean node i of `x` over its last axis only, keeping it (attribute or, opset 18, input).
bool Matcher::reducesLastAxis(size_t i, const std::string& x) const {
  const NodeProto& n = node(i);
  if (g_.folded[i] || n.op_type() != "ReduceMean" || n.input_size() < 1 || n.input(0) != x || n.output_size() != 1) {
    return false;
  }
  std::vector<int64_t> axes;
  for (const auto& a : n.attribute()) {
    if (a.name() == "keepdims" && a.i() != 1) return false;
    if (a.name() == "noop_with_empty_axes") return false;
    if (a.name() == "axes") axes.assign(a.ints().begin(), a.ints().end());
  }
  if (n.input_size() > 1 && !n.input(1).empty()) {
    auto c = g_.constants.find(n.input(1));
    if (c == g_.constants.end()) return false;
    axes = c->second.toInts();
  }
  auto info = g_.infos.find(x);
  if (info == g_.infos.end() || axes.size() != 1) return false;
  const auto rank = static_cast<int64_t>(info->second.shape.size());
  return rank >= 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

// A constant broadcast along the last axis only ([C], [1, C], ...), as a [C] tensor of float32.
std::optional<HostTensor> Matcher::channelVector(const std::string& value, int64_t channels) const {
  auto it = g_.constants.find(value);
  if (it == g_.constants.end() || it->second.type != DType::kFloat || it->second.size() != channels) return std::nullopt;
  const Shape& s = it->second.shape;
  if (s.empty() || s.back() != channels) return std::nullopt;
  HostTensor v = it->second;
  v.shape = {channels};
  return v;
}

bool Matcher::fuseLayerNorm(size_t i) {
  if (g_.folded[i] || node(i).op_type() != "ReduceMean" || node(i).input_size() < 1) return false;
  const std::string x = node(i).input(0);
  if (!reducesLastAxis(i, x) || !floatValue(x)) return false;
  const int64_t channels = g_.infos.at(x).shape.back();
  const auto centre = soleReader(node(i).output(0), "Sub");
  if (!centre || node(*centre).input(0) != x || node(*centre).input(1) != node(i).output(0)) return false;
  const std::string d = node(*centre).output(0);
  auto readers = readers_.find(d);
  if (g_.graphOutputs.count(d) != 0 || readers == readers_.end() || readers->second.size() != 2) return false;
  // d's readers: its square (Pow 2 or Mul by itself) and the Div by the deviation.
  std::optional<size_t> square, divide;
  for (size_t r : readers->second) {
    const NodeProto& n = node(r);
    if (is(r, "Pow", 2) && n.input(0) == d && isScalar(n.input(1), 2.0)) square = r;
    if (is(r, "Mul", 2) && n.input(0) == d && n.input(1) == d) square = r;
    if (is(r, "Div", 2) && n.input(0) == d) divide = r;
  }
  if (!square || !divide) return false;
  const std::string& squared = node(*square).output(0);
  auto variance = soleReader(squared, "ReduceMean", 1);
  if (!variance) variance = soleReader(squared, "ReduceMean", 2);  // opset 18: axes as an input
  if (!variance || !reducesLastAxis(*variance, squared)) return false;
  const auto shift = soleReader(node(*variance).output(0), "Add");
  const auto epsilon = shift ? other(*shift, node(*variance).output(0)) : std::nullopt;
  if (!epsilon || !scalar(*epsilon) || *scalar(*epsilon) < 0) return false;
  const auto root = soleReader(node(*shift).output(0), "Sqrt", 1);
  if (!root || soleReader(node(*root).output(0), "Div") != divide || node(*divide).input(1) != node(*root).output(0)) {
    return false;
  }
  std::vector<size_t> chain{i, *centre, *square, *variance, *shift, *root};
  size_t last = *divide;
  std::optional<HostTensor> gamma, beta;
  if (auto scale = soleReader(node(last).output(0), "Mul")) {
    if ((gamma = channelVector(other(*scale, node(last).output(0)).value_or(""), channels))) {
      chain.push_back(last);
      last = *scale;
    }
  }
  if (auto bias = soleReader(node(last).output(0), "Add")) {
    if ((beta = channelVector(other(*bias, node(last).output(0)).value_or(""), channels))) {
      chain.push_back(last);
      last = *bias;
    }
  }
  const std::string name = node(last).output(0);
  if (!gamma) {
    gamma = HostTensor(DType::kFloat, {channels});
    for (int64_t c = 0; c < channels; ++c) gamma->setDouble(c, 1.0);
  }
  NodeProto fused;
  fused.set_op_type("LayerNormalization");
  fused.set_name(node(last).name());
  fused.add_input(x);
  for (auto& [tensor, suffix] : {std::pair{&gamma, "_gamma"}, std::pair{&beta, "_beta"}}) {
    if (!*tensor) continue;
    g_.infos[name + suffix] = ValueInfo{DType::kFloat, {channels}};
    g_.constants[name + suffix] = std::move(**tensor);
    fused.add_input(name + suffix);
  }
  fused.add_output(name);
  auto* axis = fused.add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto::INT);
  axis->set_i(-1);
  auto* eps = fused.add_attribute();
  eps->set_name("epsilon");
  eps->set_type(::onnx::AttributeProto::FLOAT);
  eps->set_f(static_cast<float>(*scalar(*epsilon)));
  rewrite(last, chain, std::move(fused));
  return true;
}

bool Matcher::fuseMaskedSoftmax(size_t i) {
  if (!is(i, "Where", 3)) return false;
  const NodeProto& where = node(i);
  const auto cond = g_.constants.find(where.input(0));
  if (cond == g_.constants.end()) return false;
  const bool fillWhenTrue = g_.constants.count(where.input(1)) != 0;
  const std::string& fillName = where.input(fillWhenTrue ? 1 : 2);
  const std::string& x = where.input(fillWhenTrue ? 2 : 1);
  const auto fill = g_.constants.find(fillName);
  if (fill == g_.constants.end() || !floatValue(x) || fill->second.size() == 0 || !isFloat(fill->second.type)) return false;
  const double v = fill->second.asDouble(0);
  if (!(v <= -1e4)) return false;
  for (int64_t k = 1; k < fill->second.size(); ++k) {
    if (fill->second.asDouble(k) != v) return false;
  }
  const auto softmax = soleReader(where.output(0), "Softmax", 1);
  const auto info = g_.infos.find(where.output(0));
  if (!softmax || info == g_.infos.end() || info->second.shape.empty()) return false;
  const Shape& shape = info->second.shape;
  const auto rank = static_cast<int64_t>(shape.size());
  // The axis the softmax normalizes: given, or the last of a rank-2 value (the default of every
  // opset there; before opset 13 a missing axis is 1 and flattens).
  int64_t axis = rank == 2 ? 1 : -2 * rank;
  for (const auto& a : node(*softmax).attribute()) {
    if (a.name() == "axis") axis = a.i() < 0 ? a.i() + rank : a.i();
  }
  if (axis != rank - 1) return false;
  // M over the output's shape, the mask broadcast to it; no line along the axis filled whole.
  const HostTensor& c = cond->second;
  HostTensor mask(info->second.type, shape);
  const int64_t line = shape.back();
  for (int64_t start = 0; start < mask.size(); start += line) {
    bool kept = false;
    for (int64_t k = start; k < start + line; ++k) {
      int64_t index = 0, stride = 1, rest = k;
      for (size_t d = shape.size(); d-- > 0;) {  // the mask's element under output element k
        const int64_t coordinate = rest % shape[d];
        rest /= shape[d];
        const size_t back = shape.size() - 1 - d;
        if (back >= c.shape.size()) continue;
        const int64_t size = c.shape[c.shape.size() - 1 - back];
        if (size != 1) index += coordinate * stride;
        stride *= size;
      }
      const bool fills = (c.asDouble(index) != 0) == fillWhenTrue;
      mask.setDouble(k, fills ? v : 0.0);
      kept |= !fills;
    }
    if (!kept) return false;
  }
  const std::string maskName = where.output(0) + "_mask_add";
  g_.constants[maskName] = std::move(mask);
  g_.infos[maskName] = ValueInfo(info->second.type, shape);
  NodeProto add;
  add.set_op_type("Add");
  add.set_name(where.name());
  add.add_input(x);
  add.add_input(maskName);
  add.add_output(where.output(0));
  rewrite(i, {}, std::move(add));
  return true;
}

void Matcher::rewrite(size_t last, const std::vector<size_t>& chain, NodeProto fused) {
  for (size_t c : chain) g_.folded[c] = true;
  g_.nodes[last] = std::move(fused);
}

}  // namespace

FusionCounts fuseTransformerLayers(FusionGraph graph) {
  FusionCounts counts;
  // One pass each; a fusion only folds nodes of its own chain, so the maps stay true for the
  // values outside it (a fused node keeps its output's name).
  Matcher m(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) counts.gelu += m.fuseGelu(i) ? 1 : 0;
  Matcher n(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) counts.layerNorm += n.fuseLayerNorm(i) ? 1 : 0;
  Matcher w(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) counts.maskedSoftmax += w.fuseMaskedSoftmax(i) ? 1 : 0;
  return counts;
}

}  // namespace weft::onnx
