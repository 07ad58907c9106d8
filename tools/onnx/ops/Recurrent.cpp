// The recurrent layers, LSTM, GRU and RNN, unrolled over their static sequence into the NNAPI
// operations each step is made of: the input's projection for every step at once (one
// FULLY_CONNECTED over the sequence's rows), then a step a time the recurrent projection of the
// previous state (a FULLY_CONNECTED by R), the gates' activations and their element-wise
// arithmetic. Unrolled, a recurrent layer is the operations the accelerator already runs (the
// array's GEMM, the vector unit's LOGISTIC, TANH, MUL and ADD), and int8 post-training
// quantization calibrates each step's values like any others'; NNAPI's own
// UNIDIRECTIONAL_SEQUENCE_LSTM would keep it whole on the CPU, and NNAPI has no GRU at all.
//
// ONNX's definitions (onnx/defs/rnn/defs.cc), gates in ONNX's order:
//   LSTM (i, o, f, c): i = f(x Wi + h Ri + Pi * C + bi), f' = f(x Wf + h Rf + Pf * C + bf),
//        c~ = g(x Wc + h Rc + bc), C' = f' * C + i * c~, o = f(x Wo + h Ro + Po * C' + bo),
//        h' = o * h(C')
//   GRU (z, r, h): z = f(x Wz + h Rz + bz), r = f(x Wr + h Rr + br),
//        h~ = g(x Wh + (r * h) Rh + Rbh + Wbh), or with linear_before_reset
//        h~ = g(x Wh + r * (h Rh + Rbh) + Wbh); h' = (1 - z) * h~ + z * h = h~ + z * (h - h~)
//   RNN: h' = f(x Wi + h Ri + bi)
// b is Wb + Rb. A direction "reverse" walks the sequence from its end; "bidirectional" runs both
// and stacks them. sequence_lens (constant or computed) masks the steps past a batch entry's
// length: its state stops changing and its output there is zero. Refused by name: clip,
// input_forget, and activations other than Sigmoid, Tanh and Relu (or with alpha/beta).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

enum class Cell { kLstm, kGru, kRnn };

constexpr uint32_t kNone = UINT32_MAX;

class Unrolled {
 public:
  Unrolled(const Node& node, Lowering& l, Cell cell) : node_(node), l_(l), cell_(cell) {
    onlyAttributes(node, {"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
                          "input_forget", "layout", "linear_before_reset"});
    if (node.has("clip")) throw ImportError(node.error("clip (a cell clip threshold) is not supported"));
    if (node.attrInt("input_forget", 0) != 0) {
      throw ImportError(node.error("input_forget (coupled input and forget gates) is not supported"));
    }
    if (node.has("activation_alpha") || node.has("activation_beta")) {
      throw ImportError(node.error("activation_alpha/activation_beta are not supported (activations Sigmoid, Tanh, Relu)"));
    }
    requireFloat(node, l, node.input(0));
    layout_ = node.attrInt("layout", 0);
    if (layout_ != 0 && layout_ != 1) throw ImportError(node.error(fmt::format("layout {} is neither 0 nor 1", layout_)));
    const std::string direction = node.attrString("direction", "forward");
    if (direction == "forward") {
      reverse_ = {false};
    } else if (direction == "reverse") {
      reverse_ = {true};
    } else if (direction == "bidirectional") {
      reverse_ = {false, true};
    } else {
      throw ImportError(node.error(fmt::format("direction '{}' is not forward, reverse or bidirectional", direction)));
    }
    dirs_ = static_cast<int64_t>(reverse_.size());
    gates_ = cell == Cell::kLstm ? 4 : cell == Cell::kGru ? 3 : 1;
    linearBeforeReset_ = cell == Cell::kGru && node.attrInt("linear_before_reset", 0) != 0;

    const Shape& x = shapeOf(l, node.input(0));
    if (x.size() != 3) throw ImportError(node.error(fmt::format("X is {}, not of rank 3", shapeString(x))));
    seq_ = layout_ == 0 ? x[0] : x[1];
    batch_ = layout_ == 0 ? x[1] : x[0];
    inputSize_ = x[2];
    const Shape& w = shapeOf(l, node.input(1));
    hidden_ = node.attrInt("hidden_size", w.size() == 3 ? w[1] / gates_ : 0);
    expectShape(1, {dirs_, gates_ * hidden_, inputSize_}, "W");
    expectShape(2, {dirs_, gates_ * hidden_, hidden_}, "R");
    if (node.hasInput(3)) expectShape(3, {dirs_, 2 * gates_ * hidden_}, "B");
    if (node.hasInput(4)) expectShape(4, {batch_}, "sequence_lens");
    const Shape state = layout_ == 0 ? Shape{dirs_, batch_, hidden_} : Shape{batch_, dirs_, hidden_};
    if (node.hasInput(5)) expectShape(5, state, "initial_h");
    if (cell == Cell::kLstm && node.hasInput(6)) expectShape(6, state, "initial_c");
    if (cell == Cell::kLstm && node.hasInput(7)) expectShape(7, {dirs_, 3 * hidden_}, "P");
    if (seq_ < 1 || batch_ < 1 || hidden_ < 1) {
      throw ImportError(node.error(fmt::format("a sequence of {}, a batch of {} and {} hidden units: each must be at least 1",
                                               seq_, batch_, hidden_)));
    }
    activations_ = activations();
    for (size_t i = 0; i < node.outputCount(); ++i) {
      if (node.hasOutput(i)) {
        name_ = node.output(i);
        break;
      }
    }
    type_ = l.nn().operand(l.operand(node.input(0))).type;
    fuse_ = l.nn().scalarInt32(kFuseNone);
  }

  void run() {
    masks();
    std::vector<std::vector<uint32_t>> outputs(static_cast<size_t>(seq_), std::vector<uint32_t>(reverse_.size()));
    std::vector<uint32_t> lastH, lastC;
    for (int64_t d = 0; d < dirs_; ++d) {
      const std::string dn = fmt::format("{}_d{}", name_, d);
      const uint32_t projected = inputProjection(d, dn);
      uint32_t h = initialState(5, d, dn + "_h0"), c = cell_ == Cell::kLstm ? initialState(6, d, dn + "_c0") : kNone;
      for (int64_t k = 0; k < seq_; ++k) {
        const int64_t t = reverse_[static_cast<size_t>(d)] ? seq_ - 1 - k : k;
        const std::string sn = fmt::format("{}_t{}", dn, t);
        const uint32_t xt = slice(projected, {t * batch_, 0}, {batch_, gates_ * hidden_}, sn + "_x");
        uint32_t newH = kNone, newC = kNone;
        if (cell_ == Cell::kLstm) {
          std::tie(newH, newC) = lstmStep(d, xt, h, c, sn);
        } else if (cell_ == Cell::kGru) {
          newH = gruStep(d, xt, h, sn);
        } else {
          newH = activate(0, d, add(xt, recurrent(d, h, 0, hidden_, sn + "_rec"), sn + "_pre"), sn + "_h");
        }
        const uint32_t mask = maskAt(t);
        outputs[static_cast<size_t>(t)][static_cast<size_t>(d)] = mask == kNone ? newH : mul(mask, newH, sn + "_y");
        h = masked(mask, h, newH, sn + "_hm");
        if (cell_ == Cell::kLstm) c = masked(mask, c, newC, sn + "_cm");
      }
      lastH.push_back(h);
      lastC.push_back(c);
    }
    if (node_.hasOutput(0)) {
      std::vector<uint32_t> all;
      for (const auto& step : outputs) all.insert(all.end(), step.begin(), step.end());
      writeOutput(0, all, {seq_, dirs_, batch_, hidden_}, {2, 0, 1, 3});
    }
    if (node_.hasOutput(1)) writeOutput(1, lastH, {dirs_, batch_, hidden_}, {1, 0, 2});
    if (cell_ == Cell::kLstm && node_.hasOutput(2)) writeOutput(2, lastC, {dirs_, batch_, hidden_}, {1, 0, 2});
  }

 private:
  void expectShape(size_t input, const Shape& expected, const char* what) {
    const Shape& s = shapeOf(l_, node_.input(input));
    if (s != expected) {
      throw ImportError(node_.error(fmt::format("{} is {}, not {} (directions x gates x hidden_size {} from the node)", what,
                                                shapeString(s), shapeString(expected), hidden_)));
    }
  }

  // The activation names, one list a direction (f, g, h for LSTM; f, g for GRU; f for RNN).
  std::vector<Op> activations() const {
    const std::vector<std::string> defaults = cell_ == Cell::kLstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                              : cell_ == Cell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                    : std::vector<std::string>{"Tanh"};
    std::vector<std::string> names = node_.attrStrings("activations", {});
    const size_t per = defaults.size();
    if (names.empty()) {
      for (int64_t d = 0; d < dirs_; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
    } else if (names.size() != per * static_cast<size_t>(dirs_)) {
      throw ImportError(node_.error(fmt::format("{} activations given, {} expected ({} a direction)", names.size(),
                                                per * static_cast<size_t>(dirs_), per)));
    }
    std::vector<Op> ops;
    for (const std::string& a : names) {
      std::string lower = a;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
      if (lower == "sigmoid") {
        ops.push_back(Op::LOGISTIC);
      } else if (lower == "tanh") {
        ops.push_back(Op::TANH);
      } else if (lower == "relu") {
        ops.push_back(Op::RELU);
      } else {
        throw ImportError(node_.error(fmt::format("activation '{}' is not supported (Sigmoid, Tanh, Relu)", a)));
      }
    }
    return ops;
  }

  uint32_t temp(const Shape& shape, const std::string& name) { return l_.temporary(type_, shape, name); }
  uint32_t add(uint32_t a, uint32_t b, const std::string& name) { return binary(Op::ADD, a, b, name); }
  uint32_t mul(uint32_t a, uint32_t b, const std::string& name) { return binary(Op::MUL, a, b, name); }
  uint32_t binary(Op op, uint32_t a, uint32_t b, const std::string& name) {
    if (b == kNone) return a;
    const auto& da = l_.nn().operand(a).dimensions;
    const auto& db = l_.nn().operand(b).dimensions;
    Shape shape = {batch_, static_cast<int64_t>(std::max(da.back(), db.back()))};
    const uint32_t out = temp(shape, name);
    l_.add(op, {a, b, fuse_}, {out});
    return out;
  }
  uint32_t activate(size_t which, int64_t d, uint32_t x, const std::string& name) {
    const Op op = activations_[static_cast<size_t>(d) * activations_.size() / static_cast<size_t>(dirs_) + which];
    const uint32_t out = temp({batch_, hidden_}, name);
    l_.add(op, {x}, {out});
    return out;
  }
  uint32_t slice(uint32_t x, const std::vector<int32_t>& begin, const std::vector<int32_t>& size, const std::string& name) {
    const auto& dims = l_.nn().operand(x).dimensions;
    if (begin == std::vector<int32_t>(begin.size(), 0) &&
        std::equal(size.begin(), size.end(), dims.begin(), dims.end(), [](int32_t s, uint32_t d) { return s == static_cast<int32_t>(d); })) {
      return x;
    }
    const uint32_t out = temporaryLike(l_, x, Shape(size.begin(), size.end()), name);
    l_.add(Op::SLICE, {x, l_.nn().int32Vector(begin), l_.nn().int32Vector(size)}, {out});
    return out;
  }
  uint32_t slice(uint32_t x, std::initializer_list<int64_t> begin, std::initializer_list<int64_t> size, const std::string& name) {
    return slice(x, std::vector<int32_t>(begin.begin(), begin.end()), std::vector<int32_t>(size.begin(), size.end()), name);
  }
  // Columns [from, from + count) of a [batch, n] value.
  uint32_t columns(uint32_t x, int64_t from, int64_t count, const std::string& name) {
    return slice(x, {0, from}, {batch_, count}, name);
  }

  // Rows [from, from + count) of direction d of input `i` ([directions, rows, rest]) as a value
  // of `shape`: rearranged at import when constant, a SLICE and a RESHAPE when computed.
  // Each is made once and read by every step that needs it (R, P, biases: one copy of each).
  uint32_t part(size_t i, int64_t d, int64_t from, int64_t count, const Shape& shape, const std::string& name) {
    const std::string key = fmt::format("part {} {} {} {} {}", i, d, from, count, shapeString(shape));
    if (const auto made = made_.find(key); made != made_.end()) return made->second;
    return made_[key] = makePart(i, d, from, count, shape, name);
  }
  uint32_t makePart(size_t i, int64_t d, int64_t from, int64_t count, const Shape& shape, const std::string& name) {
    const std::string& value = node_.input(i);
    const Shape& s = shapeOf(l_, value);
    const int64_t rest = s.size() > 2 ? s[2] : 1;
    if (l_.isConstant(value)) {
      const std::vector<float> all = toFloats(l_.constant(value));
      const auto first = all.begin() + static_cast<std::ptrdiff_t>((d * s[1] + from) * rest);
      return floatConstantLike(l_, node_.input(0), std::vector<float>(first, first + count * rest), shape, name);
    }
    std::vector<int32_t> begin(s.size(), 0), size(s.begin(), s.end());
    begin[0] = static_cast<int32_t>(d);
    size[0] = 1;
    begin[1] = static_cast<int32_t>(from);
    size[1] = static_cast<int32_t>(count);
    const uint32_t sliced = slice(in(node_, l_, i), begin, size, name + "_slice");
    return reshaped(l_, sliced, shape, name);
  }

  // Rows of B for a bias: gates' rows [from, from + count) of Wb, of Rb, of both, or zeros.
  struct Segment {
    int64_t from, count;
    bool input, recurrent;
  };
  // A bias of direction d, the segments one after the other, or kNone without B. Constant when B
  // is, its values then in `values` (zeros without B; empty when B is computed).
  uint32_t bias(int64_t d, const std::vector<Segment>& segments, const std::string& name,
                std::vector<float>* values = nullptr) {
    std::string key = fmt::format("bias {}", d);
    for (const Segment& g : segments) key += fmt::format(" {} {} {} {}", g.from, g.count, g.input, g.recurrent);
    const auto made = made_.find(key);
    if (made != made_.end() && values != nullptr) *values = madeValues_[key];
    if (made != made_.end()) return made->second;
    std::vector<float> mine;
    const uint32_t b = makeBias(d, segments, name, &mine);
    madeValues_[key] = mine;
    if (values != nullptr) *values = mine;
    return made_[key] = b;
  }
  uint32_t makeBias(int64_t d, const std::vector<Segment>& segments, const std::string& name, std::vector<float>* values) {
    int64_t n = 0;
    for (const Segment& g : segments) n += g.count;
    if (values != nullptr) values->assign(static_cast<size_t>(n), 0.0f);
    if (!node_.hasInput(3)) return kNone;
    const int64_t rb = gates_ * hidden_;
    if (l_.isConstant(node_.input(3))) {
      const std::vector<float> b = toFloats(l_.constant(node_.input(3)));
      std::vector<float> sum;
      for (const Segment& g : segments) {
        for (int64_t k = 0; k < g.count; ++k) {
          const size_t at = static_cast<size_t>(d * 2 * rb + g.from + k);
          sum.push_back((g.input ? b[at] : 0.0f) + (g.recurrent ? b[at + static_cast<size_t>(rb)] : 0.0f));
        }
      }
      if (values != nullptr) *values = sum;
      return floatConstantLike(l_, node_.input(0), sum, {n}, name);
    }
    if (values != nullptr) values->clear();
    std::vector<uint32_t> parts;
    for (const Segment& g : segments) {
      const std::string pn = fmt::format("{}_{}", name, parts.size());
      const uint32_t wb = g.input ? part(3, d, g.from, g.count, {g.count}, pn + "_w") : kNone;
      const uint32_t rbv = g.recurrent ? part(3, d, rb + g.from, g.count, {g.count}, pn + "_r") : kNone;
      if (wb == kNone && rbv == kNone) {
        parts.push_back(zeros(g.count, pn));
      } else if (wb == kNone || rbv == kNone) {
        parts.push_back(wb == kNone ? rbv : wb);
      } else {
        const uint32_t out = temp({g.count}, pn);
        l_.add(Op::ADD, {wb, rbv, fuse_}, {out});
        parts.push_back(out);
      }
    }
    return concat(parts, {n}, 0, name);
  }

  uint32_t zeros(int64_t n, const std::string& name) {
    const std::string key = fmt::format("zeros {}", n);
    if (const auto made = made_.find(key); made != made_.end()) return made->second;
    return made_[key] = floatConstantLike(l_, node_.input(0), std::vector<float>(static_cast<size_t>(n), 0.0f), {n}, name);
  }

  uint32_t fullyConnected(uint32_t x, uint32_t weights, uint32_t b, int64_t rows, int64_t n, const std::string& name) {
    const uint32_t out = temp({rows, n}, name);
    l_.add(Op::FULLY_CONNECTED, {x, weights, b == kNone ? zeros(n, name + "_zero_bias") : b, fuse_}, {out});
    return out;
  }

  // x W^T + the biases that do not wait for the state, for every step at once: [seq x batch, gates x hidden],
  // rows in step order.
  uint32_t inputProjection(int64_t d, const std::string& name) {
    const int64_t n = gates_ * hidden_;
    uint32_t x = in(node_, l_, 0);
    const Shape& xs = shapeOf(l_, node_.input(0));
    const uint32_t rows = temp({seq_ * batch_, inputSize_}, name + "_rows");
    if (layout_ == 0) {
      reshapeTo(l_, x, {seq_ * batch_, inputSize_}, rows);
    } else {
      permuteInto(l_, x, xs, {1, 0, 2}, {seq_ * batch_, inputSize_}, rows, name + "_steps");
    }
    x = rows;
    // GRU with linear_before_reset keeps Rbh for the recurrent product.
    const uint32_t b = linearBeforeReset_
                           ? bias(d, {{0, 2 * hidden_, true, true}, {2 * hidden_, hidden_, true, false}}, name + "_bias")
                           : bias(d, {{0, n, true, true}}, name + "_bias");
    return fullyConnected(x, part(1, d, 0, n, {n, inputSize_}, name + "_W"), b, seq_ * batch_, n, name + "_xw");
  }

  uint32_t concat(const std::vector<uint32_t>& parts, const Shape& shape, int32_t axis, const std::string& name) {
    if (parts.size() == 1) return reshaped(l_, parts[0], shape, name);
    const uint32_t out = temporaryLike(l_, parts[0], shape, name);
    std::vector<uint32_t> inputs = parts;
    inputs.push_back(l_.nn().scalarInt32(axis));
    l_.add(Op::CONCATENATION, inputs, {out});
    return out;
  }

  // h R^T (+ b) for gates [from, from + count) (kNone when h is the zero initial state). A
  // constant h (an initial state the model holds) by constant weights is multiplied at import:
  // int8's calibration reads a product's input from the run, which a constant is not.
  uint32_t recurrent(int64_t d, uint32_t h, int64_t from, int64_t count, const std::string& name, uint32_t b = kNone,
                     const std::vector<float>* bValues = nullptr) {
    if (h == kNone) return kNone;
    const auto state = constantStates_.find(h);
    const bool constantBias = b == kNone || (bValues != nullptr && static_cast<int64_t>(bValues->size()) == count);
    if (state != constantStates_.end() && l_.isConstant(node_.input(2)) && constantBias) {
      const std::vector<float> r = toFloats(l_.constant(node_.input(2)));
      std::vector<float> product(static_cast<size_t>(batch_ * count));
      for (int64_t i = 0; i < batch_; ++i) {
        for (int64_t n = 0; n < count; ++n) {
          double sum = b == kNone ? 0.0 : (*bValues)[static_cast<size_t>(n)];
          for (int64_t k = 0; k < hidden_; ++k) {
            sum += static_cast<double>(state->second[static_cast<size_t>(i * hidden_ + k)]) *
                   r[static_cast<size_t>(((d * gates_ * hidden_) + from + n) * hidden_ + k)];
          }
          product[static_cast<size_t>(i * count + n)] = static_cast<float>(sum);
        }
      }
      return floatConstantLike(l_, node_.input(0), product, {batch_, count}, name);
    }
    return fullyConnected(h, part(2, d, from, count, {count, hidden_}, name + "_R"), b, batch_, count, name);
  }

  // The initial state of direction d, [batch, hidden], or kNone for zeros (omitted, or a
  // constant of zeros, as exporters write the default state).
  uint32_t initialState(size_t i, int64_t d, const std::string& name) {
    if (!node_.hasInput(i)) return kNone;
    const std::string& value = node_.input(i);
    if (l_.isConstant(value)) {
      const std::vector<float> all = toFloats(l_.constant(value));
      std::vector<float> mine(static_cast<size_t>(batch_ * hidden_));
      for (int64_t b = 0; b < batch_; ++b) {
        for (int64_t k = 0; k < hidden_; ++k) {
          const int64_t at = layout_ == 0 ? (d * batch_ + b) * hidden_ + k : (b * dirs_ + d) * hidden_ + k;
          mine[static_cast<size_t>(b * hidden_ + k)] = all[static_cast<size_t>(at)];
        }
      }
      if (std::all_of(mine.begin(), mine.end(), [](float v) { return v == 0.0f; })) return kNone;
      const uint32_t state = floatConstantLike(l_, node_.input(0), mine, {batch_, hidden_}, name);
      constantStates_[state] = mine;
      return state;
    }
    if (layout_ == 0) return part(i, d, 0, batch_, {batch_, hidden_}, name);
    // [batch, directions, hidden]: direction d's column of rows.
    const uint32_t sliced = slice(in(node_, l_, i), {0, d, 0}, {batch_, 1, hidden_}, name + "_slice");
    return reshaped(l_, sliced, {batch_, hidden_}, name);
  }

  std::pair<uint32_t, uint32_t> lstmStep(int64_t d, uint32_t x, uint32_t h, uint32_t c, const std::string& name) {
    const uint32_t gates = add(x, recurrent(d, h, 0, 4 * hidden_, name + "_rec"), name + "_gates");
    const bool peepholes = node_.hasInput(7);
    auto peep = [&](int64_t which, uint32_t state, const std::string& n) {  // P's order: i, o, f
      if (!peepholes || state == kNone) return kNone;
      return mul(part(7, d, which * hidden_, hidden_, {hidden_}, n + "_P"), state, n);
    };
    const uint32_t i = activate(0, d, add(columns(gates, 0, hidden_, name + "_gi"), peep(0, c, name + "_pi"), name + "_gip"), name + "_i");
    const uint32_t g = activate(1, d, columns(gates, 3 * hidden_, hidden_, name + "_gc"), name + "_c~");
    uint32_t cNew = mul(i, g, name + "_ig");
    if (c != kNone) {
      const uint32_t f = activate(0, d, add(columns(gates, 2 * hidden_, hidden_, name + "_gf"), peep(2, c, name + "_pf"), name + "_gfp"), name + "_f");
      cNew = add(mul(f, c, name + "_fc"), cNew, name + "_c");
    }
    const uint32_t o = activate(0, d, add(columns(gates, hidden_, hidden_, name + "_go"), peep(1, cNew, name + "_po"), name + "_gop"), name + "_o");
    const uint32_t hNew = mul(o, activate(2, d, cNew, name + "_hc"), name + "_h");
    return {hNew, cNew};
  }

  uint32_t gruStep(int64_t d, uint32_t x, uint32_t h, const std::string& name) {
    uint32_t zr = columns(x, 0, 2 * hidden_, name + "_xzr");
    const uint32_t xh = columns(x, 2 * hidden_, hidden_, name + "_xh");
    uint32_t candidate;  // h~'s pre-activation
    if (linearBeforeReset_) {
      // h R^T + Rb for all three gates at once; Rbh alone when h is zero.
      uint32_t rh = kNone;
      if (h != kNone) {
        // Rbz and Rbr are in the input projection's bias already: [0, 0, Rbh].
        std::vector<float> rbValues;
        const uint32_t rb = bias(d, {{0, 2 * hidden_, false, false}, {2 * hidden_, hidden_, false, true}}, name + "_rb", &rbValues);
        const uint32_t rec = recurrent(d, h, 0, 3 * hidden_, name + "_rec", rb, &rbValues);
        zr = add(zr, columns(rec, 0, 2 * hidden_, name + "_rzr"), name + "_zr");
        rh = columns(rec, 2 * hidden_, hidden_, name + "_rh");
      } else {
        rh = bias(d, {{2 * hidden_, hidden_, false, true}}, name + "_rbh");
      }
      const uint32_t r = rh == kNone ? kNone : activate(0, d, columns(zr, hidden_, hidden_, name + "_gr"), name + "_r");
      candidate = add(xh, rh == kNone ? kNone : mul(r, rh, name + "_rrh"), name + "_gh");
    } else {
      uint32_t recH = kNone;
      if (h != kNone) {
        zr = add(zr, recurrent(d, h, 0, 2 * hidden_, name + "_rec"), name + "_zr");
        const uint32_t r = activate(0, d, columns(zr, hidden_, hidden_, name + "_gr"), name + "_r");
        recH = recurrent(d, mul(r, h, name + "_rh"), 2 * hidden_, hidden_, name + "_rech");
      }
      candidate = add(xh, recH, name + "_gh");
    }
    const uint32_t z = activate(0, d, columns(zr, 0, hidden_, name + "_gz"), name + "_z");
    const uint32_t hh = activate(1, d, candidate, name + "_h~");
    // h' = h~ + z * (h - h~); from a zero state h~ - z * h~.
    if (h == kNone) return binary(Op::SUB, hh, mul(z, hh, name + "_zh"), name + "_h");
    return add(hh, mul(z, binary(Op::SUB, h, hh, name + "_dh"), name + "_zdh"), name + "_h");
  }

  // sequence_lens as one mask a step ([batch, 1]: 1 where the step is within the entry's length),
  // or none when every entry runs the whole sequence.
  void masks() {
    if (!node_.hasInput(4)) return;
    if (l_.isConstant(node_.input(4))) {
      const std::vector<int64_t> lens = l_.constant(node_.input(4)).toInts();
      for (int64_t n : lens) {
        if (n < 0 || n > seq_) {
          throw ImportError(node_.error(fmt::format("sequence_lens holds {}, outside [0, {}]", n, seq_)));
        }
      }
      if (std::all_of(lens.begin(), lens.end(), [&](int64_t n) { return n == seq_; })) return;
      for (int64_t t = 0; t < seq_; ++t) {
        std::vector<float> m(static_cast<size_t>(batch_));
        for (int64_t b = 0; b < batch_; ++b) m[static_cast<size_t>(b)] = t < lens[static_cast<size_t>(b)] ? 1.0f : 0.0f;
        stepMasks_.push_back(floatConstantLike(l_, node_.input(0), m, {batch_, 1}, fmt::format("{}_mask{}", name_, t)));
      }
      return;
    }
    // Computed: clamp(lens - t, 0, 1) for every step at once, as float.
    const uint32_t lens = reshaped(l_, in(node_, l_, 4), {1, batch_}, name_ + "_lens");
    std::vector<int32_t> steps(static_cast<size_t>(seq_));
    for (int64_t t = 0; t < seq_; ++t) steps[static_cast<size_t>(t)] = static_cast<int32_t>(t);
    HostTensor stepTensor(DType::kInt32, {seq_, 1});
    std::copy(steps.begin(), steps.end(), stepTensor.data<int32_t>());
    const Shape grid = {seq_, batch_};
    const auto intTemp = [&](const std::string& n) { return l_.temporary(nn::OperandType::TENSOR_INT32, grid, n); };
    const uint32_t left = intTemp(name_ + "_left");
    l_.add(Op::SUB, {lens, l_.constantOperand(std::move(stepTensor), name_ + "_steps"), fuse_}, {left});
    HostTensor zero(DType::kInt32, {1}), one(DType::kInt32, {1});
    one.data<int32_t>()[0] = 1;
    const uint32_t atLeast0 = intTemp(name_ + "_left0");
    l_.add(Op::MAXIMUM, {left, l_.constantOperand(std::move(zero), name_ + "_int0")}, {atLeast0});
    const uint32_t clamped = intTemp(name_ + "_left01");
    l_.add(Op::MINIMUM, {atLeast0, l_.constantOperand(std::move(one), name_ + "_int1")}, {clamped});
    const uint32_t all = temp(grid, name_ + "_masks");
    l_.add(Op::CAST, {clamped}, {all});
    for (int64_t t = 0; t < seq_; ++t) {
      const uint32_t row = slice(all, {t, 0}, {1, batch_}, fmt::format("{}_mask{}_row", name_, t));
      stepMasks_.push_back(reshaped(l_, row, {batch_, 1}, fmt::format("{}_mask{}", name_, t)));
    }
  }
  uint32_t maskAt(int64_t t) const {
    return stepMasks_.empty() ? kNone : stepMasks_[static_cast<size_t>(t)];
  }
  // The state after a step: `next` where the mask is 1, `prev` (zero when kNone) where it is 0.
  uint32_t masked(uint32_t mask, uint32_t prev, uint32_t next, const std::string& name) {
    if (mask == kNone) return next;
    if (prev == kNone) return mul(mask, next, name);
    return add(prev, mul(mask, binary(Op::SUB, next, prev, name + "_d"), name + "_md"), name);
  }

  // Output i from the per-step (or per-direction) values, [batch, hidden] each, stacked in the
  // order of `stacked` (layout 0's shape), then permuted by `perm` for layout 1.
  void writeOutput(size_t i, const std::vector<uint32_t>& values, const Shape& stacked, const std::vector<int64_t>& perm) {
    const uint32_t out = l_.output(node_, i);
    const Shape& shape = shapeOf(l_, node_.output(i));
    const int64_t rows = static_cast<int64_t>(values.size()) * batch_;
    const uint32_t all = concat(values, {rows, hidden_}, 0, node_.output(i) + "_stacked");
    if (layout_ == 0) {
      reshapeTo(l_, all, shape, out);
    } else {
      permuteInto(l_, all, stacked, perm, shape, out, node_.output(i) + "_layout");
    }
  }

  const Node& node_;
  Lowering& l_;
  const Cell cell_;
  std::vector<bool> reverse_;
  int64_t layout_ = 0, dirs_ = 1, gates_ = 1, seq_ = 0, batch_ = 0, inputSize_ = 0, hidden_ = 0;
  bool linearBeforeReset_ = false;
  std::vector<Op> activations_;
  std::vector<uint32_t> stepMasks_;
  std::map<uint32_t, std::vector<float>> constantStates_;  // initial states the model holds, by operand
  std::map<std::string, uint32_t> made_;                    // weights, biases and zeros made so far
  std::map<std::string, std::vector<float>> madeValues_;    // a constant bias's values
  std::string name_;
  nn::OperandType type_{};
  uint32_t fuse_ = 0;
};

Converter recurrentLayer(Cell cell) {
  return [cell](const Node& node, Lowering& l) { Unrolled(node, l, cell).run(); };
}

}  // namespace

void registerRecurrent(Registry& r) {
  r.add("LSTM", recurrentLayer(Cell::kLstm));
  r.add("GRU", recurrentLayer(Cell::kGru));
  r.add("RNN", recurrentLayer(Cell::kRnn));
}

}  // namespace weft::onnx::ops
