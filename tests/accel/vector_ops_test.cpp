// Randomized coverage of the accelerator's vector-unit operations (driver/accel/README.md):
// DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D, ADD, SUB, MUL, RELU, RELU1, RELU6, LOGISTIC,
// TANH, SOFTMAX, MEAN, PAD, PAD_V2, CONCATENATION and RESHAPE, alone, in chains and in small
// graphs. Each case is a random NNAPI model (shapes, ranks, parameters, quantizations, both quant8
// types, NHWC and NCHW, broadcasting, fused activations) compiled for the accelerator alone on
// the approx backend (weft8 and weft16 in turn). A case the driver does not claim
// (getSupportedOperations) is counted and skipped; a claimed case must prepare, run and give the
// CPU reference's output byte for byte. The driver documents LOGISTIC, TANH (a table of the
// reference kernel's own outputs) and SOFTMAX (TFLite's fixed-point algorithm) as bit-exact, so
// NNAPI's quant8 tolerance is not needed for them either.
//
// The seed is fixed; WEFT_VECTOR_OPS_SCALE=k runs k times as many cases and
// WEFT_VECTOR_OPS_SEED=s other ones. A failure names the case's seed, stream and index and what
// it built; WEFT_VECTOR_OPS_CASE=stream:index (with that seed and scale) runs it alone.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "../../driver/accel/ModelCompiler.h"
#include "../../driver/accel/PreparedModel.h"
#include "AccelTestUtil.h"
#include "WrappedBackend.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;
using nn::OperationType;

uint64_t envNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}
uint64_t caseScale() { return std::max<uint64_t>(1, envNumber("WEFT_VECTOR_OPS_SCALE", 1)); }
uint64_t baseSeed() { return envNumber("WEFT_VECTOR_OPS_SEED", 20261126); }

// WEFT_VECTOR_OPS_CASE=stream:case runs that case alone (a failure names both), to debug it.
struct OneCase {
  bool set = false;
  uint64_t stream = 0, index = 0;
};
OneCase oneCase() {
  OneCase c;
  const char* v = std::getenv("WEFT_VECTOR_OPS_CASE");
  if (v != nullptr && std::sscanf(v, "%" SCNu64 ":%" SCNu64, &c.stream, &c.index) == 2) c.set = true;
  return c;
}
bool selected(uint64_t stream, uint64_t index) {
  static const OneCase c = oneCase();
  return !c.set || (c.stream == stream && c.index == index);
}

// A tensor of the model being built: its operand, its dimensions and quantization.
struct Tensor {
  uint32_t operand = 0;
  nn::Dimensions dims;
  Quant q;
};

std::string dimsText(const nn::Dimensions& d) { return fmt::format("[{}]", fmt::join(d, ",")); }

// Builds one random case: the model, its input data and a description of what it holds.
class CaseBuilder {
 public:
  CaseBuilder(std::mt19937& rng, bool isSigned) : rng_(rng), signed_(isSigned) {}

  std::mt19937& rng() { return rng_; }
  bool isSigned() const { return signed_; }
  OperandType type() const { return signed_ ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM; }
  int32_t lo() const { return signed_ ? -128 : 0; }
  int32_t hi() const { return signed_ ? 127 : 255; }

  uint32_t pick(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }
  int32_t pickInt(int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng_); }
  bool chance(uint32_t percent) { return pick(1, 100) <= percent; }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }

  // A scale in [2^-maxExp / 2, 2^-minExp * 1.5).
  float scale(int minExp, int maxExp) { return std::ldexp(uniform(0.5f, 1.5f), -pickInt(minExp, maxExp)); }
  Quant quant(int minExp = 0, int maxExp = 8) { return Quant{type(), scale(minExp, maxExp), pickInt(lo(), hi())}; }

  // Dimensions of rank [minRank, maxRank], each in [1, maxDim], some 1, sometimes one long last
  // dimension (softmax rows, flat tensors).
  nn::Dimensions dims(size_t minRank, size_t maxRank, uint32_t maxDim) {
    nn::Dimensions d(pick(static_cast<uint32_t>(minRank), static_cast<uint32_t>(maxRank)));
    if (chance(10)) maxDim *= 3;  // now and then a tensor that takes several tiles
    for (auto& x : d) x = chance(15) ? 1 : pick(1, maxDim);
    if (chance(10)) d.back() = pick(100, 1200);
    return d;
  }
  // A small image of many channels (several parameter epochs of the lanes).
  nn::Dimensions deepImage() { return {pick(1, 2), pick(1, 6), pick(1, 6), pick(40, 300)}; }

  std::vector<uint8_t> randomBytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(pick(0, 255));
    return v;
  }

  Tensor input(const nn::Dimensions& d, const Quant& q) {
    data_.push_back(randomBytes(nn::numberOfElements(d)));
    return {b_.input(q.type, d, q.scale, q.zeroPoint), d, q};
  }
  Tensor constant(const nn::Dimensions& d, const Quant& q) {
    const auto bytes = randomBytes(nn::numberOfElements(d));
    note(fmt::format("const{}", dimsText(d)));
    return {b_.constant(q.type, d, bytes.data(), bytes.size(), q.scale, q.zeroPoint), d, q};
  }
  // An operation's output. Its dimensions are declared, except sometimes for the last
  // operation of a case (left to shape inference, as NNAPI allows).
  Tensor result(const nn::Dimensions& d, const Quant& q) {
    const bool declare = !chance(undeclaredPercent_);
    return {b_.tensor(q.type, declare ? d : nn::Dimensions{}, q.scale, q.zeroPoint), d, q};
  }
  void setUndeclaredPercent(uint32_t p) { undeclaredPercent_ = p; }

  uint32_t int32(int32_t v) { return b_.int32Scalar(v); }
  uint32_t boolean(bool v) { return b_.boolScalar(v); }
  uint32_t float32(float v) { return b_.constant(OperandType::FLOAT32, {}, &v, 4); }
  uint32_t int32Tensor(const nn::Dimensions& d, const std::vector<int32_t>& v) {
    return b_.constant(OperandType::TENSOR_INT32, d, v.data(), 4 * v.size());
  }
  ModelBuilder& builder() { return b_; }

  void operation(OperationType t, std::vector<uint32_t> inputs, const Tensor& out) {
    b_.operation(t, std::move(inputs), {out.operand});
  }
  void output(const Tensor& t) {
    b_.output(t.operand);
    outputs_.push_back(t);
  }
  void note(const std::string& s) { what_ += (what_.empty() ? "" : "; ") + s; }
  const std::string& what() const { return what_; }

  OpModel finish() const {
    OpModel m;
    m.model = b_.build();
    m.inputs = data_;
    for (const Tensor& t : outputs_) m.outputBytes.push_back(nn::numberOfElements(t.dims));
    return m;
  }

 private:
  std::mt19937& rng_;
  bool signed_;
  ModelBuilder b_;
  std::vector<std::vector<uint8_t>> data_;
  std::vector<Tensor> outputs_;
  std::string what_;
  uint32_t undeclaredPercent_ = 0;
};

std::string quantText(const Quant& q) { return fmt::format("s{} z{}", q.scale, q.zeroPoint); }

// ---- window operations ----

// A 2-D window's geometry along one axis: the NNAPI output size for a padding choice.
struct Axis {
  uint32_t size = 1, filter = 1, stride = 1, dilation = 1;
  uint32_t head = 0, tail = 0;  // explicit padding
  uint32_t effective() const { return (filter - 1) * dilation + 1; }
  uint32_t output(int scheme) const {  // scheme: 0 explicit, 1 SAME, 2 VALID
    if (scheme == 1) return (size + stride - 1) / stride;
    const uint32_t padded = size + (scheme == 0 ? head + tail : 0);
    return padded < effective() ? 0 : (padded - effective()) / stride + 1;
  }
};

struct Window {
  Axis h, w;
  int scheme = 1;
  bool nchw = false;
  std::string text() const {
    const std::string pad = scheme == 1 ? "SAME" : scheme == 2 ? "VALID"
                                                               : fmt::format("pad(t{} b{} l{} r{})", h.head, h.tail, w.head, w.tail);
    return fmt::format("{}x{} stride {}x{} dilation {}x{} {} {}", h.filter, w.filter, h.stride, w.stride, h.dilation,
                       w.dilation, pad, nchw ? "NCHW" : "NHWC");
  }
};

// Random padding; `maxPad(axis)` bounds explicit padding (a pool's window must keep one input
// pixel). Falls back to SAME when the window does not fit.
void choosePadding(CaseBuilder& cb, Window& win, const std::function<uint32_t(const Axis&)>& maxPad) {
  win.scheme = static_cast<int>(cb.pick(0, 2));
  if (win.scheme == 0) {
    for (Axis* a : {&win.h, &win.w}) {
      a->head = cb.pick(0, maxPad(*a));
      a->tail = cb.pick(0, maxPad(*a));
    }
  }
  if (win.h.output(win.scheme) == 0 || win.w.output(win.scheme) == 0) win.scheme = 1;
}

// The window operands in NNAPI's order after the input (and filter, bias): the padding, the
// strides, then `middle` (depth multiplier or filter size), the activation, the layout.
std::vector<uint32_t> windowOperands(CaseBuilder& cb, const Window& win, const std::vector<uint32_t>& middle,
                                     int32_t activation, bool dilationOperands) {
  std::vector<uint32_t> ops;
  if (win.scheme == 0) {
    for (uint32_t p : {win.w.head, win.w.tail, win.h.head, win.h.tail}) ops.push_back(cb.int32(static_cast<int32_t>(p)));
  } else {
    ops.push_back(cb.int32(win.scheme));
  }
  ops.push_back(cb.int32(static_cast<int32_t>(win.w.stride)));
  ops.push_back(cb.int32(static_cast<int32_t>(win.h.stride)));
  ops.insert(ops.end(), middle.begin(), middle.end());
  ops.push_back(cb.int32(activation));
  if (win.nchw || dilationOperands || cb.chance(25)) {
    ops.push_back(cb.boolean(win.nchw));
    if (dilationOperands) {
      ops.push_back(cb.int32(static_cast<int32_t>(win.w.dilation)));
      ops.push_back(cb.int32(static_cast<int32_t>(win.h.dilation)));
    }
  }
  return ops;
}

// The image's (N, H, W, C) in either layout, and the dimensions of an output in that layout.
struct Image {
  uint32_t n, h, w, c;
};
Image imageOf(const Tensor& t, bool nchw) {
  const auto& d = t.dims;
  return nchw ? Image{d[0], d[2], d[3], d[1]} : Image{d[0], d[1], d[2], d[3]};
}
nn::Dimensions imageDims(const Image& i, bool nchw) {
  return nchw ? nn::Dimensions{i.n, i.c, i.h, i.w} : nn::Dimensions{i.n, i.h, i.w, i.c};
}

std::optional<Tensor> depthwise(CaseBuilder& cb, const Tensor& in, bool nchw) {
  if (in.dims.size() != 4) return std::nullopt;
  const Image img = imageOf(in, nchw);
  Window win;
  win.nchw = nchw;
  win.h.size = img.h;
  win.w.size = img.w;
  const uint32_t maxK = cb.chance(15) ? 9 : 5;
  win.h.filter = cb.pick(1, std::min(maxK, img.h + 2));
  win.w.filter = cb.pick(1, std::min(maxK, img.w + 2));
  const bool dilated = cb.chance(20);
  if (dilated) {
    win.h.dilation = cb.pick(1, 3);
    win.w.dilation = cb.pick(1, 3);
  }
  win.h.stride = cb.pick(1, 4);
  win.w.stride = cb.pick(1, 4);
  choosePadding(cb, win, [](const Axis& a) { return a.effective(); });
  const uint32_t multiplier = cb.chance(30) ? cb.pick(2, 4) : 1;
  const uint32_t outC = img.c * multiplier;
  const bool perChannel = cb.chance(30);
  const float filterScale = cb.scale(0, 8);
  Quant filter{perChannel ? OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL : cb.type(), perChannel ? 0.0f : filterScale,
               perChannel ? 0 : cb.pickInt(cb.lo(), cb.hi())};
  const auto filterBytes = cb.randomBytes(size_t{outC} * win.h.filter * win.w.filter);
  const uint32_t filterOp = cb.builder().constant(filter.type, {1, win.h.filter, win.w.filter, outC}, filterBytes.data(),
                                                  filterBytes.size(), filter.scale, filter.zeroPoint);
  std::vector<float> scales;
  if (perChannel) {
    for (uint32_t i = 0; i < outC; ++i) scales.push_back(filterScale * cb.uniform(0.25f, 4.0f));
    cb.builder().operand(filterOp).extraParams = nn::SymmPerChannelQuantParams{scales, 3};
  }
  const int32_t bound = static_cast<int32_t>(64 * win.h.filter * win.w.filter + 16);
  std::vector<int32_t> bias(outC);
  for (auto& b : bias) b = cb.pickInt(-bound, bound);
  const uint32_t biasOp = cb.builder().constant(OperandType::TENSOR_INT32, {outC}, bias.data(), 4 * bias.size(),
                                                perChannel ? 0.0f : in.q.scale * filterScale, 0);
  const float spread = in.q.scale * filterScale * std::sqrt(float(win.h.filter * win.w.filter)) * 64.0f;
  const Quant out{cb.type(), spread * cb.scale(-2, 3), cb.pickInt(cb.lo(), cb.hi())};
  const int32_t activation = cb.pickInt(0, 3);
  std::vector<uint32_t> operands = {in.operand, filterOp, biasOp};
  const auto rest = windowOperands(cb, win, {cb.int32(static_cast<int32_t>(multiplier))}, activation, dilated);
  operands.insert(operands.end(), rest.begin(), rest.end());
  const Image o{img.n, win.h.output(win.scheme), win.w.output(win.scheme), outC};
  const Tensor t = cb.result(imageDims(o, nchw), out);
  cb.operation(OperationType::DEPTHWISE_CONV_2D, operands, t);
  cb.note(fmt::format("DEPTHWISE_CONV_2D {} x{} in {} ({}) -> {} ({}) filter {} act {}", win.text(), multiplier,
                      dimsText(in.dims), quantText(in.q), dimsText(t.dims), quantText(out),
                      perChannel ? "per-channel" : quantText(filter), activation));
  return t;
}

std::optional<Tensor> pool(CaseBuilder& cb, const Tensor& in, bool nchw, bool max) {
  if (in.dims.size() != 4) return std::nullopt;
  const Image img = imageOf(in, nchw);
  Window win;
  win.nchw = nchw;
  win.h.size = img.h;
  win.w.size = img.w;
  if (cb.chance(10)) {  // a global pool
    win.h.filter = img.h;
    win.w.filter = img.w;
  } else {
    win.h.filter = cb.pick(1, std::min(6u, img.h + 1));
    win.w.filter = cb.pick(1, std::min(6u, img.w + 1));
  }
  win.h.stride = cb.pick(1, 4);
  win.w.stride = cb.pick(1, 4);
  // Padding below the window: every window keeps at least one input pixel.
  choosePadding(cb, win, [](const Axis& a) { return a.filter - 1; });
  const int32_t activation = cb.pickInt(0, 3);
  std::vector<uint32_t> operands = {in.operand};
  const auto rest = windowOperands(cb, win,
                                   {cb.int32(static_cast<int32_t>(win.w.filter)), cb.int32(static_cast<int32_t>(win.h.filter))},
                                   activation, false);
  operands.insert(operands.end(), rest.begin(), rest.end());
  const Image o{img.n, win.h.output(win.scheme), win.w.output(win.scheme), img.c};
  const Tensor t = cb.result(imageDims(o, nchw), in.q);
  cb.operation(max ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D, operands, t);
  cb.note(fmt::format("{} {} in {} -> {} act {} q {}", max ? "MAX_POOL_2D" : "AVERAGE_POOL_2D", win.text(),
                      dimsText(in.dims), dimsText(t.dims), activation, quantText(in.q)));
  return t;
}

// ---- element-wise operations ----

// A shape that broadcasts against `d`: the same, a single element, a channel vector, some
// dimensions 1, or a lower rank.
nn::Dimensions broadcastPartner(CaseBuilder& cb, const nn::Dimensions& d) {
  const uint32_t mode = cb.pick(0, 9);
  if (mode < 4) return d;
  if (mode == 4) return nn::Dimensions(cb.pick(1, static_cast<uint32_t>(d.size())), 1);
  if (mode == 5) {
    nn::Dimensions v(cb.pick(1, static_cast<uint32_t>(d.size())), 1);
    v.back() = d.back();
    return v;
  }
  if (mode <= 7) {
    nn::Dimensions v = d;
    for (auto& x : v) x = cb.chance(50) ? 1 : x;
    return v;
  }
  const size_t rank = cb.pick(1, static_cast<uint32_t>(d.size()));
  return nn::Dimensions(d.end() - static_cast<std::ptrdiff_t>(rank), d.end());
}

nn::Dimensions broadcast(const nn::Dimensions& a, const nn::Dimensions& b) {
  const size_t rank = std::max(a.size(), b.size());
  nn::Dimensions d(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t x = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const uint32_t y = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    d[i] = std::max(x, y);
  }
  return d;
}

// ADD, SUB or MUL of `a` and `b` (which broadcast).
Tensor binaryOf(CaseBuilder& cb, OperationType type, const Tensor& a, const Tensor& b) {
  Quant out{cb.type(), 0, cb.pickInt(cb.lo(), cb.hi())};
  if (type == OperationType::MUL) {
    out.scale = a.q.scale * b.q.scale * std::ldexp(cb.uniform(1.0f, 2.0f), cb.pickInt(2, 9));
  } else {
    out.scale = std::max(a.q.scale, b.q.scale) * cb.scale(-2, 2);
  }
  const int32_t activation = cb.pickInt(0, 3);
  const Tensor t = cb.result(broadcast(a.dims, b.dims), out);
  cb.operation(type, {a.operand, b.operand, cb.int32(activation)}, t);
  cb.note(fmt::format("{} {} ({}) and {} ({}) -> {} ({}) act {}", nn::toString(type), dimsText(a.dims),
                      quantText(a.q), dimsText(b.dims), quantText(b.q), dimsText(t.dims), quantText(out), activation));
  return t;
}

Tensor binary(CaseBuilder& cb, OperationType type, const Tensor& a) {
  const Tensor b = cb.input(broadcastPartner(cb, a.dims), cb.quant());
  return cb.chance(25) ? binaryOf(cb, type, b, a) : binaryOf(cb, type, a, b);
}

Tensor unary(CaseBuilder& cb, OperationType type, const Tensor& in) {
  Quant out = in.q;
  if (type == OperationType::LOGISTIC) out = {cb.type(), 1.0f / 256, cb.isSigned() ? -128 : 0};
  if (type == OperationType::TANH) out = {cb.type(), 1.0f / 128, cb.isSigned() ? 0 : 128};
  if (type == OperationType::RSQRT) out = cb.quant();  // any: the table holds the reference's bytes
  const Tensor t = cb.result(in.dims, out);
  cb.operation(type, {in.operand}, t);
  cb.note(fmt::format("{} {} ({})", nn::toString(type), dimsText(in.dims), quantText(in.q)));
  return t;
}

// The reference kernels (TFLite's) rescale the input into fixed point with a multiplier below
// 2^30: LOGISTIC and TANH take input scales below 8, SOFTMAX beta x scale below 16. Chains grow
// scales past that (MUL), so these operations do not apply to such tensors.
constexpr float kMaxLutInputScale = 7.5f, kMaxSoftmaxBetaScale = 15.0f;

// PRELU of one constant slope (LeakyReLU, nn.PReLU()): a lookup table of the reference kernel's
// bytes, whatever the three quantizations. The slope's rank is 1 to the input's.
Tensor prelu(CaseBuilder& cb, const Tensor& in) {
  const nn::Dimensions one(cb.pick(1, static_cast<uint32_t>(in.dims.size())), 1);
  const Tensor alpha = cb.constant(one, cb.quant());
  const Quant out = cb.quant();
  const Tensor t = cb.result(in.dims, out);
  cb.operation(OperationType::PRELU, {in.operand, alpha.operand}, t);
  cb.note(fmt::format("PRELU {} ({}) slope ({}) -> ({})", dimsText(in.dims), quantText(in.q), quantText(alpha.q),
                      quantText(out)));
  return t;
}

// MAXIMUM or MINIMUM of a value and a one-value constant, either side (Clip's bounds): a lookup
// table of the reference kernel's bytes.
Tensor bound(CaseBuilder& cb, OperationType type, const Tensor& in) {
  const nn::Dimensions one(cb.pick(1, static_cast<uint32_t>(in.dims.size())), 1);
  const Tensor c = cb.constant(one, cb.quant());
  const Quant out = cb.quant();
  const Tensor t = cb.result(in.dims, out);
  const bool constantFirst = cb.chance(30);
  cb.operation(type, constantFirst ? std::vector<uint32_t>{c.operand, in.operand} : std::vector<uint32_t>{in.operand, c.operand},
               t);
  cb.note(fmt::format("{} {} ({}) and a constant ({}){} -> ({})", nn::toString(type), dimsText(in.dims), quantText(in.q),
                      quantText(c.q), constantFirst ? " first" : "", quantText(out)));
  return t;
}

std::optional<Tensor> lutUnary(CaseBuilder& cb, OperationType type, const Tensor& in) {
  if (in.q.scale >= kMaxLutInputScale) return std::nullopt;
  return unary(cb, type, in);
}

std::optional<Tensor> softmax(CaseBuilder& cb, const Tensor& in) {
  float beta = cb.chance(30) ? 1.0f : cb.uniform(0.05f, 4.0f);
  if (beta * in.q.scale >= kMaxSoftmaxBetaScale) beta = kMaxSoftmaxBetaScale / in.q.scale * cb.uniform(0.1f, 0.99f);
  if (beta < 1e-3f) return std::nullopt;
  const int32_t rank = static_cast<int32_t>(in.dims.size());
  std::vector<uint32_t> operands = {in.operand, cb.float32(beta)};
  std::string axisText = "last";
  if (cb.chance(40)) {
    const int32_t axis = cb.pickInt(-rank, rank - 1);
    operands.push_back(cb.int32(axis));
    axisText = std::to_string(axis);
  }
  const Tensor t = cb.result(in.dims, {cb.type(), 1.0f / 256, cb.isSigned() ? -128 : 0});
  cb.operation(OperationType::SOFTMAX, operands, t);
  cb.note(fmt::format("SOFTMAX {} ({}) beta {} axis {}", dimsText(in.dims), quantText(in.q), beta, axisText));
  return t;
}

// MEAN, or REDUCE_MAX (keep_dims a BOOL, the input's quantization), over random axes.
Tensor mean(CaseBuilder& cb, const Tensor& in, bool max = false) {
  const int32_t rank = static_cast<int32_t>(in.dims.size());
  std::vector<int32_t> axes;
  std::vector<bool> reduced(in.dims.size(), false);
  const uint32_t count = cb.pick(1, static_cast<uint32_t>(rank));
  for (uint32_t i = 0; i < count; ++i) {
    const int32_t a = cb.pickInt(0, rank - 1);
    reduced[a] = true;
    axes.push_back(cb.chance(30) ? a - rank : a);  // negative axes count from the end
  }
  const bool keepDims = cb.chance(50);
  nn::Dimensions out;
  for (size_t d = 0; d < in.dims.size(); ++d) {
    if (!reduced[d]) out.push_back(in.dims[d]);
    else if (keepDims) out.push_back(1);
  }
  if (out.empty()) out = {1};
  const Tensor t = cb.result(out, in.q);
  cb.operation(max ? OperationType::REDUCE_MAX : OperationType::MEAN,
               {in.operand, cb.int32Tensor({static_cast<uint32_t>(axes.size())}, axes),
                max ? cb.boolean(keepDims) : cb.int32(keepDims ? 1 : 0)},
               t);
  cb.note(fmt::format("{} {} axes {} keepDims {} -> {}", max ? "REDUCE_MAX" : "MEAN", dimsText(in.dims),
                      dimsText(nn::Dimensions(axes.begin(), axes.end())), keepDims, dimsText(out)));
  return t;
}

Tensor pad(CaseBuilder& cb, const Tensor& in, bool v2) {
  std::vector<int32_t> paddings;
  nn::Dimensions out = in.dims;
  for (size_t d = 0; d < in.dims.size(); ++d) {
    const bool padded = cb.chance(50);
    const int32_t before = padded ? cb.pickInt(0, 3) : 0, after = padded ? cb.pickInt(0, 3) : 0;
    paddings.push_back(before);
    paddings.push_back(after);
    out[d] += static_cast<uint32_t>(before + after);
  }
  std::vector<uint32_t> operands = {in.operand, cb.int32Tensor({static_cast<uint32_t>(in.dims.size()), 2}, paddings)};
  int32_t value = in.q.zeroPoint;
  if (v2) {
    value = cb.pickInt(cb.lo(), cb.hi());
    operands.push_back(cb.int32(value));
  }
  const Tensor t = cb.result(out, in.q);
  cb.operation(v2 ? OperationType::PAD_V2 : OperationType::PAD, operands, t);
  cb.note(fmt::format("{} {} paddings {} value {} ({})", v2 ? "PAD_V2" : "PAD", dimsText(in.dims),
                      fmt::join(paddings, ","), value, quantText(in.q)));
  return t;
}

// MIRROR_PAD, REFLECT or SYMMETRIC: up to two axes padded by up to 3 each side (within the mode's
// limit), a box a mirrored index; more boxes than the driver takes are refused, not wrong.
Tensor mirrorPad(CaseBuilder& cb, const Tensor& in) {
  const bool symmetric = cb.chance(50);
  std::vector<int32_t> paddings;
  nn::Dimensions out = in.dims;
  uint32_t paddedAxes = 0;
  for (size_t d = 0; d < in.dims.size(); ++d) {
    const int32_t most = std::min(3, static_cast<int32_t>(in.dims[d]) - (symmetric ? 0 : 1));
    const bool padded = paddedAxes < 2 && most > 0 && cb.chance(60);
    paddedAxes += padded ? 1 : 0;
    const int32_t before = padded ? cb.pickInt(0, most) : 0, after = padded ? cb.pickInt(0, most) : 0;
    paddings.push_back(before);
    paddings.push_back(after);
    out[d] += static_cast<uint32_t>(before + after);
  }
  const Tensor t = cb.result(out, in.q);
  cb.operation(OperationType::MIRROR_PAD,
               {in.operand, cb.int32Tensor({static_cast<uint32_t>(in.dims.size()), 2}, paddings), cb.int32(symmetric ? 1 : 0)},
               t);
  cb.note(fmt::format("MIRROR_PAD {} {} paddings {} ({})", symmetric ? "SYMMETRIC" : "REFLECT", dimsText(in.dims),
                      fmt::join(paddings, ","), quantText(in.q)));
  return t;
}

Tensor concatenationOf(CaseBuilder& cb, const std::vector<Tensor>& ins, int32_t axis) {
  const int32_t rank = static_cast<int32_t>(ins[0].dims.size());
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  nn::Dimensions out = ins[0].dims;
  out[a] = 0;
  std::vector<uint32_t> operands;
  std::string text;
  for (const Tensor& t : ins) {
    out[a] += t.dims[a];
    operands.push_back(t.operand);
    text += fmt::format(" {} ({})", dimsText(t.dims), quantText(t.q));
  }
  operands.push_back(cb.int32(axis));
  // Often one input's quantization: that input may then be stored in place (zero-copy).
  const Quant q = cb.chance(50) ? ins[cb.pick(0, static_cast<uint32_t>(ins.size() - 1))].q : cb.quant();
  const Tensor t = cb.result(out, q);
  cb.operation(OperationType::CONCATENATION, operands, t);
  cb.note(fmt::format("CONCATENATION axis {}:{} -> {} ({})", axis, text, dimsText(out), quantText(q)));
  return t;
}

// `first` and 0 to 3 new inputs that differ from it on a random axis only.
Tensor concatenation(CaseBuilder& cb, const Tensor& first) {
  const int32_t rank = static_cast<int32_t>(first.dims.size());
  const int32_t axis = cb.pickInt(-rank, rank - 1);
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  std::vector<Tensor> ins = {first};
  const uint32_t more = cb.pick(0, 3);
  for (uint32_t i = 0; i < more; ++i) {
    nn::Dimensions d = first.dims;
    d[a] = cb.pick(1, 9);
    ins.push_back(cb.input(d, cb.chance(25) ? first.q : cb.quant()));
  }
  std::shuffle(ins.begin(), ins.end(), cb.rng());
  return concatenationOf(cb, ins, axis);
}

Tensor reshape(CaseBuilder& cb, const Tensor& in) {
  // Spread the element count's prime factors over 1 to 4 dimensions.
  std::vector<uint32_t> factors;
  uint64_t n = nn::numberOfElements(in.dims);
  for (uint32_t p = 2; n > 1 && p * p <= n; ++p) {
    while (n % p == 0) factors.push_back(p), n /= p;
  }
  if (n > 1) factors.push_back(static_cast<uint32_t>(n));
  nn::Dimensions out(cb.pick(1, 4), 1);
  for (uint32_t f : factors) out[cb.pick(0, static_cast<uint32_t>(out.size() - 1))] *= f;
  std::vector<int32_t> shape(out.begin(), out.end());
  if (cb.chance(40)) shape[cb.pick(0, static_cast<uint32_t>(shape.size() - 1))] = -1;
  const Tensor t = cb.result(out, in.q);
  cb.operation(OperationType::RESHAPE, {in.operand, cb.int32Tensor({static_cast<uint32_t>(shape.size())}, shape)}, t);
  cb.note(fmt::format("RESHAPE {} to {}", dimsText(in.dims), fmt::join(shape, ",")));
  return t;
}

// RESIZE_NEAREST_NEIGHBOR to sizes a network asks for: whole up- and downscales (U-Net, feature
// pyramids), and any size up to three times the input's (the driver refuses the few whose sampling
// repeats only after more than 64 boxes: counted as not claimed); sizes or scales, any flags.
// `in` resized by `op` to outH x outW (its size as sizes, or as the scales that floor to it, as
// the reference's prepare computes), with the flags given.
Tensor resized(CaseBuilder& cb, const Tensor& in, bool nchw, OperationType op, uint32_t outH, uint32_t outW,
               bool scales, bool alignCorners, bool halfPixel) {
  Image img = imageOf(in, nchw);
  std::vector<uint32_t> operands{in.operand};
  if (scales) {
    const auto scale = [](uint32_t out, uint32_t from) {
      return (static_cast<float>(out) + 0.5f) / static_cast<float>(from);
    };
    operands.push_back(cb.float32(scale(outW, img.w)));
    operands.push_back(cb.float32(scale(outH, img.h)));
  } else {
    operands.push_back(cb.int32(static_cast<int32_t>(outW)));
    operands.push_back(cb.int32(static_cast<int32_t>(outH)));
  }
  operands.push_back(cb.boolean(nchw));
  operands.push_back(cb.boolean(alignCorners));
  operands.push_back(cb.boolean(halfPixel));
  const uint32_t inH = img.h, inW = img.w;
  img.h = outH;
  img.w = outW;
  const Tensor t = cb.result(imageDims(img, nchw), in.q);
  cb.operation(op, operands, t);
  cb.note(fmt::format("{} {} {}x{} -> {}x{}{}{}{}",
                      op == OperationType::RESIZE_BILINEAR ? "RESIZE_BILINEAR" : "RESIZE_NEAREST_NEIGHBOR",
                      dimsText(in.dims), inW, inH, outW, outH, scales ? " by scales" : "",
                      alignCorners ? " align_corners" : "", halfPixel ? " half_pixel_centers" : ""));
  return t;
}

std::optional<Tensor> resizeNearest(CaseBuilder& cb, const Tensor& in, bool nchw) {
  if (in.dims.size() != 4) return std::nullopt;
  const Image img = imageOf(in, nchw);
  const auto size = [&](uint32_t from) {
    const uint32_t most = std::max<uint32_t>(from, 36);  // chains of resizes stay small
    switch (cb.pick(0, 2)) {
      case 0: return std::min(most, from * cb.pick(1, 3));        // a whole upscale
      case 1: return std::max<uint32_t>(1, from / cb.pick(1, 3));  // a whole downscale
      default: return cb.pick(1, std::min(most, 3 * from));
    }
  };
  const uint32_t outH = size(img.h), outW = size(img.w);
  const bool scales = cb.chance(30), alignCorners = cb.chance(25), halfPixel = !alignCorners && cb.chance(30);
  return resized(cb, in, nchw, OperationType::RESIZE_NEAREST_NEIGHBOR, outH, outW, scales, alignCorners, halfPixel);
}

// RESIZE_BILINEAR as networks upsample (a segmentation head's 2x, 4x, 8x with half-pixel
// centres, a feature pyramid's 2x) and downsample by 2, with or without half-pixel centres or
// align_corners, and now and then any size up to three times the input's: the driver takes the
// resizes whose weights are whole sixteenths (the rest: counted as not claimed).
std::optional<Tensor> resizeBilinear(CaseBuilder& cb, const Tensor& in, bool nchw) {
  if (in.dims.size() != 4) return std::nullopt;
  const Image img = imageOf(in, nchw);
  const bool network = cb.chance(85);  // else any size, any flags
  const auto size = [&](uint32_t from) {
    if (!network) return cb.pick(1, std::max<uint32_t>(from, std::min<uint32_t>(36, 3 * from)));
    if (from >= 2 && cb.chance(20)) return from / 2;
    uint32_t factor = 1u << cb.pick(0, 3);  // 1x, 2x, 4x, 8x; chains of resizes stay small
    while (factor > 1 && from * factor > 64) factor /= 2;
    return from * factor;
  };
  const uint32_t outH = size(img.h), outW = size(img.w);
  const bool scales = cb.chance(20), alignCorners = !network && cb.chance(30);
  const bool halfPixel = !alignCorners && cb.chance(70);
  return resized(cb, in, nchw, OperationType::RESIZE_BILINEAR, outH, outW, scales, alignCorners, halfPixel);
}

// DEPTH_TO_SPACE and SPACE_TO_DEPTH (super-resolution's pixel shuffle and its inverse): a block of
// 1 to 4 where the shape allows it (depth: channels a multiple of block^2; space: height and width
// multiples of the block), NHWC or NCHW.
std::optional<Tensor> blockMove(CaseBuilder& cb, const Tensor& in, bool nchw, bool toSpace) {
  if (in.dims.size() != 4) return std::nullopt;
  Image img = imageOf(in, nchw);
  std::vector<uint32_t> blocks;
  for (uint32_t b = 1; b <= 4; ++b) {
    if (toSpace ? img.c % (b * b) == 0 : img.h % b == 0 && img.w % b == 0) blocks.push_back(b);
  }
  const uint32_t b = blocks[cb.pick(0, static_cast<uint32_t>(blocks.size() - 1))];
  if (toSpace) {
    img.h *= b, img.w *= b, img.c /= b * b;
  } else {
    img.h /= b, img.w /= b, img.c *= b * b;
  }
  const Tensor t = cb.result(imageDims(img, nchw), in.q);
  cb.operation(toSpace ? OperationType::DEPTH_TO_SPACE : OperationType::SPACE_TO_DEPTH,
               {in.operand, cb.int32(static_cast<int32_t>(b)), cb.boolean(nchw)}, t);
  cb.note(fmt::format("{} {} by {}", toSpace ? "DEPTH_TO_SPACE" : "SPACE_TO_DEPTH", dimsText(in.dims), b));
  return t;
}

// ---- cases ----

// The operations a case can apply to a tensor; nullopt when it does not apply (rank).
struct OpKind {
  const char* name;
  size_t minRank, maxRank;  // of a fresh input for a case of this op alone
  uint32_t maxDim;
  std::function<std::optional<Tensor>(CaseBuilder&, const Tensor&, bool nchw)> apply;
};

const std::vector<OpKind>& opKinds() {
  static const std::vector<OpKind> kinds = {
      {"DEPTHWISE_CONV_2D", 4, 4, 14, [](CaseBuilder& cb, const Tensor& t, bool nchw) { return depthwise(cb, t, nchw); }},
      {"AVERAGE_POOL_2D", 4, 4, 16, [](CaseBuilder& cb, const Tensor& t, bool nchw) { return pool(cb, t, nchw, false); }},
      {"MAX_POOL_2D", 4, 4, 16, [](CaseBuilder& cb, const Tensor& t, bool nchw) { return pool(cb, t, nchw, true); }},
      {"ADD", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(binary(cb, OperationType::ADD, t)); }},
      {"SUB", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(binary(cb, OperationType::SUB, t)); }},
      {"MUL", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(binary(cb, OperationType::MUL, t)); }},
      {"RELU", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(unary(cb, OperationType::RELU, t)); }},
      {"RELU1", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(unary(cb, OperationType::RELU1, t)); }},
      {"RELU6", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(unary(cb, OperationType::RELU6, t)); }},
      {"LOGISTIC", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return lutUnary(cb, OperationType::LOGISTIC, t); }},
      {"TANH", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return lutUnary(cb, OperationType::TANH, t); }},
      {"RSQRT", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(unary(cb, OperationType::RSQRT, t)); }},
      {"PRELU", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(prelu(cb, t)); }},
      {"MAXIMUM", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(bound(cb, OperationType::MAXIMUM, t)); }},
      {"MINIMUM", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(bound(cb, OperationType::MINIMUM, t)); }},
      {"SOFTMAX", 1, 4, 10, [](CaseBuilder& cb, const Tensor& t, bool) { return softmax(cb, t); }},
      {"MEAN", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(mean(cb, t)); }},
      {"REDUCE_MAX", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(mean(cb, t, true)); }},
      {"PAD", 1, 4, 10, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(pad(cb, t, false)); }},
      {"PAD_V2", 1, 4, 10, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(pad(cb, t, true)); }},
      {"MIRROR_PAD", 1, 4, 10, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(mirrorPad(cb, t)); }},
      {"CONCATENATION", 1, 4, 10, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(concatenation(cb, t)); }},
      {"RESHAPE", 1, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool) { return std::optional(reshape(cb, t)); }},
      {"RESIZE_NEAREST", 4, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool nchw) { return resizeNearest(cb, t, nchw); }},
      {"RESIZE_BILINEAR", 4, 4, 10, [](CaseBuilder& cb, const Tensor& t, bool nchw) { return resizeBilinear(cb, t, nchw); }},
      {"DEPTH_TO_SPACE", 4, 4, 16, [](CaseBuilder& cb, const Tensor& t, bool nchw) { return blockMove(cb, t, nchw, true); }},
      {"SPACE_TO_DEPTH", 4, 4, 12, [](CaseBuilder& cb, const Tensor& t, bool nchw) { return blockMove(cb, t, nchw, false); }},
  };
  return kinds;
}

bool isWindowOp(const OpKind& k) { return k.minRank == 4; }

// The two accelerator configurations the cases alternate between (8 and 16 lanes).
const hal::IDevice& device(size_t i) {
  static const hal::SharedDevice weft8 = approxDevice("weft8");
  static const hal::SharedDevice weft16 =
      deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft16")));
  return i % 2 == 0 ? *weft8 : *weft16;
}

struct Tally {
  size_t cases = 0, claimed = 0, passed = 0, failed = 0;
  std::map<std::string, size_t> unclaimedWhy;  // the driver's reason, counted
};

constexpr size_t kFailuresShown = 5;  // per tally: the rest are counted

// Runs one case: unclaimed cases are counted; a claimed one must prepare, run and match the
// reference byte for byte on every output.
void runCase(const hal::IDevice& dev, const OpModel& m, const std::string& what, Tally& tally) {
  ++tally.cases;
  auto fail = [&](const std::string& why) {
    if (++tally.failed <= kFailuresShown) ADD_FAILURE() << why << "\n  case: " << what;
  };
  auto cpu = runOnCpu(m);
  if (!cpu.ok()) return fail("the reference rejects a case the generator meant to be valid: " + cpu.error().message);
  auto supported = dev.getSupportedOperations(m.model);
  if (!supported.ok()) return fail("getSupportedOperations failed: " + supported.error().message);
  if (!std::all_of(supported.value().begin(), supported.value().end(), [](bool b) { return b; })) {
    std::map<uint32_t, std::string> reasons;
    supportedOperations(m.model, hw::HwConfig::load("weft8"), &reasons);
    // Counted by the reason's wording, its numbers left out.
    std::string why = reasons.empty() ? "(weft16 only)" : reasons.begin()->second;
    why = std::regex_replace(why, std::regex("[0-9]+"), "#");
    ++tally.unclaimedWhy[why];
    return;
  }
  ++tally.claimed;
  auto prepared = prepare(dev, m.model);
  if (!prepared.ok()) return fail("claimed but not prepared: " + prepared.error().message);
  auto run = runOnPrepared(*prepared.value(), m);
  if (!run.ok()) return fail("claimed but the execution failed: " + run.error().message);
  for (size_t o = 0; o < m.outputBytes.size(); ++o) {
    const auto& got = run.value().outputs[o];
    const auto& want = cpu.value().outputs[o];
    const int64_t at = firstMismatch(got, want);
    if (at >= 0) {
      size_t differ = 0;
      for (size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
      return fail(fmt::format("output {}: {} of {} bytes differ; first at {}: device {}, reference {}", o, differ,
                              got.size(), at, int(got[at]), int(want[at])));
    }
  }
  ++tally.passed;
}

std::mt19937 caseRng(uint64_t stream, uint64_t index) {
  std::seed_seq seq{baseSeed(), stream, index};
  return std::mt19937(seq);
}

std::string caseName(uint64_t stream, uint64_t index) {
  return fmt::format("seed {} (WEFT_VECTOR_OPS_CASE={}:{})", baseSeed(), stream, index);
}

void report(const std::string& name, const Tally& t) {
  std::printf("[vector ops] %-18s %6zu cases, %6zu claimed, %6zu passed, %zu failed\n", name.c_str(), t.cases,
              t.claimed, t.passed, t.failed);
  for (const auto& [why, count] : t.unclaimedWhy) std::printf("[vector ops]     not claimed %zu x: %s\n", count, why.c_str());
}

// Each operation alone on a fresh input.
TEST(VectorOps, EachOperationAloneMatchesTheReference) {
  const uint64_t perOp = 1000 * caseScale();
  const auto& kinds = opKinds();
  for (size_t k = 0; k < kinds.size(); ++k) {
    const OpKind& kind = kinds[k];
    Tally tally;
    for (uint64_t i = 0; i < perOp; ++i) {
      if (!selected(k, i)) continue;
      auto rng = caseRng(k, i);
      CaseBuilder cb(rng, rng() % 3 == 0);
      cb.setUndeclaredPercent(10);
      const bool nchw = isWindowOp(kind) && cb.chance(25);
      const bool deep = isWindowOp(kind) && cb.chance(10);
      const Tensor in = cb.input(deep ? cb.deepImage() : cb.dims(kind.minRank, kind.maxRank, kind.maxDim), cb.quant());
      const auto out = kind.apply(cb, in, nchw);
      ASSERT_TRUE(out.has_value());
      cb.output(*out);
      runCase(device(i), cb.finish(), caseName(k, i) + ": " + cb.what(), tally);
    }
    report(kind.name, tally);
    EXPECT_EQ(tally.failed, 0u) << kind.name;
    // The generator stays within what the hardware does (driver/accel/README.md), so most
    // cases must be claimed: a driver that claims nothing would pass every comparison.
    if (!oneCase().set) {
      EXPECT_GE(tally.claimed * 10, tally.cases * 7) << kind.name << ": too few cases claimed";
    }
  }
}

// Chains of 2 to 5 operations, each reading the previous one's output (and sometimes the chain's
// middle is an output too).
TEST(VectorOps, ChainsMatchTheReference) {
  const uint64_t count = 1000 * caseScale();
  const auto& kinds = opKinds();
  Tally tally;
  for (uint64_t i = 0; i < count; ++i) {
    if (!selected(100, i)) continue;
    auto rng = caseRng(100, i);
    CaseBuilder cb(rng, rng() % 3 == 0);
    Tensor t = cb.input(cb.chance(70) ? cb.dims(4, 4, 10) : cb.dims(1, 4, 10), cb.quant());
    const uint32_t length = cb.pick(2, 5);
    for (uint32_t step = 0; step < length; ++step) {
      std::optional<Tensor> next;
      while (!next) next = kinds[cb.pick(0, static_cast<uint32_t>(kinds.size() - 1))].apply(cb, t, cb.chance(20));
      if (step + 1 < length && cb.chance(15)) cb.output(*next);
      t = *next;
    }
    cb.output(t);
    runCase(device(i), cb.finish(), caseName(100, i) + ": " + cb.what(), tally);
  }
  report("chains", tally);
  EXPECT_EQ(tally.failed, 0u);
  if (!oneCase().set) {
    EXPECT_GE(tally.claimed * 10, tally.cases * 5) << "too few chains claimed";
  }
}

// Small graphs: operations read any earlier tensor; binary operations and concatenations join
// branches (or a constant), and every tensor nobody reads is an output.
TEST(VectorOps, SmallGraphsMatchTheReference) {
  const uint64_t count = 500 * caseScale();
  const auto& kinds = opKinds();
  Tally tally;
  for (uint64_t i = 0; i < count; ++i) {
    if (!selected(200, i)) continue;
    auto rng = caseRng(200, i);
    CaseBuilder cb(rng, rng() % 3 == 0);
    std::vector<Tensor> pool = {cb.input(cb.dims(4, 4, 8), cb.quant())};
    std::vector<bool> read = {false};
    const uint32_t ops = cb.pick(2, 6);
    for (uint32_t step = 0; step < ops; ++step) {
      const size_t from = cb.pick(0, static_cast<uint32_t>(pool.size() - 1));
      const Tensor& a = pool[from];
      std::optional<Tensor> next;
      std::vector<size_t> readers = {from};
      const uint32_t choice = cb.pick(0, 9);
      if (choice < 3) {  // join two branches, or a branch and a constant
        const OperationType type = choice == 0 ? OperationType::ADD : choice == 1 ? OperationType::SUB : OperationType::MUL;
        std::optional<size_t> partner;
        for (size_t j = 0; j < pool.size() && !partner; ++j) {
          if ((j != from || cb.chance(20)) && pool[j].dims == a.dims) partner = j;  // sometimes a with itself
        }
        Tensor b = partner ? pool[*partner] : cb.constant(broadcastPartner(cb, a.dims), cb.quant());
        if (partner) readers.push_back(*partner);
        next = binaryOf(cb, type, a, b);
      } else if (choice == 3) {  // concatenate branches that agree off the channel axis
        std::vector<Tensor> ins = {a};
        for (size_t j = 0; j < pool.size(); ++j) {
          if (j == from || pool[j].dims.size() != a.dims.size()) continue;
          bool fits = true;
          for (size_t d = 0; d + 1 < a.dims.size(); ++d) fits = fits && pool[j].dims[d] == a.dims[d];
          if (fits) ins.push_back(pool[j]), readers.push_back(j);
        }
        next = concatenationOf(cb, ins, -1);
      } else {
        while (!next) next = kinds[cb.pick(0, static_cast<uint32_t>(kinds.size() - 1))].apply(cb, a, cb.chance(20));
      }
      for (size_t r : readers) read[r] = true;
      pool.push_back(*next);
      read.push_back(false);
    }
    for (size_t j = 1; j < pool.size(); ++j) {
      if (!read[j] || cb.chance(10)) cb.output(pool[j]);
    }
    runCase(device(i), cb.finish(), caseName(200, i) + ": " + cb.what(), tally);
  }
  report("graphs", tally);
  EXPECT_EQ(tally.failed, 0u);
  if (!oneCase().set) {
    EXPECT_GE(tally.claimed * 10, tally.cases * 5) << "too few graphs claimed";
  }
}


// ---- regressions: bugs an earlier version of this test found ----

// Runs a hand-built case that must be claimed and match the reference.
void expectClaimedAndExact(const OpModel& m, const std::string& what) {
  for (size_t d = 0; d < 2; ++d) {
    Tally tally;
    runCase(device(d), m, what, tally);
    EXPECT_EQ(tally.claimed, 1u) << what << " is not claimed";
    EXPECT_EQ(tally.passed, 1u) << what;
  }
}

// MEAN over every axis without keepDims has one element, dimensions {1}, as the reference says.
TEST(VectorOpsRegression, MeanOverEveryAxisWithoutKeepDims) {
  for (bool declared : {true, false}) {
    std::mt19937 rng(1);
    CaseBuilder cb(rng, false);
    cb.setUndeclaredPercent(declared ? 0 : 100);
    const Tensor in = cb.input({2, 3, 4}, {OperandType::TENSOR_QUANT8_ASYMM, 0.1f, 100});
    const Tensor out = cb.result({1}, in.q);
    cb.operation(OperationType::MEAN, {in.operand, cb.int32Tensor({3}, {0, 1, -1}), cb.int32(0)}, out);
    cb.output(out);
    const OpModel m = cb.finish();
    expectClaimedAndExact(m, fmt::format("MEAN [2,3,4] over every axis (output dimensions {})",
                                         declared ? "declared" : "inferred"));
    auto prepared = prepare(device(0), m.model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    auto run = runOnPrepared(*prepared.value(), m);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run.value().execution->outputShapes.at(0).dimensions, nn::Dimensions{1});
  }
}

// A flat softmax row longer than 512 makes the reference's roundingDivideByPOT shift by 32 or
// more: each probability is 256 / length of a step, whatever the row's value. Rows up to 1500
// fit the weft8 device's buffers (it claims them); 4000 checks the reference alone.
TEST(VectorOpsRegression, SoftmaxOverLongFlatRows) {
  for (uint32_t length : {513u, 1000u, 1500u, 4000u}) {
    for (bool isSigned : {false, true}) {
      std::mt19937 rng(2);
      CaseBuilder cb(rng, isSigned);
      const Quant q{cb.type(), 0.1f, isSigned ? -20 : 100};
      const Tensor in = cb.input({2, length}, q);
      const Tensor out = cb.result(in.dims, {cb.type(), 1.0f / 256, isSigned ? -128 : 0});
      cb.operation(OperationType::SOFTMAX, {in.operand, cb.float32(1.0f)}, out);
      cb.output(out);
      OpModel m = cb.finish();
      std::fill(m.inputs[0].begin(), m.inputs[0].end(), uint8_t{77});
      const std::string what = fmt::format("SOFTMAX of a flat [2, {}] {}", length, isSigned ? "signed" : "unsigned");
      auto cpu = runOnCpu(m);
      ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.error().message;
      for (uint8_t byte : cpu.value().outputs[0]) {
        const int value = isSigned ? int(int8_t(byte)) + 128 : int(byte);
        ASSERT_LE(std::abs(value - 256.0 / length), 1.0) << what << ": the reference gives " << value;
      }
      if (length <= 1500) expectClaimedAndExact(m, what);
    }
  }
}

// Softmax rows along the last axis share a tile: one LOAD and one STORE for as many rows as a
// half of the buffers holds (an attention's 12 x 128 rows of 128 keys went a row a tile before, a
// 128-byte LOAD and STORE each: 1.5 bytes a cycle at weft16). Where a row is not whole vector
// rows, each row loads as a run of its own and its last vector row stores whole, spilling into
// the next row's first bytes, which that row's own STORE rows write again (the tensor's last row
// stores its part row alone). Exact on both devices, and a few commands a row.
TEST(VectorOpsRegression, SoftmaxRowsShareALoadAndAStore) {
  const nn::Dimensions shapes[] = {{1, 12, 128, 128}, {1, 4, 50, 50}, {300, 33}, {2, 3, 5, 7}, {130, 16}};
  for (const nn::Dimensions& dims : shapes) {
    for (bool isSigned : {false, true}) {
      std::mt19937 rng(static_cast<uint32_t>(dims.back() * 3 + isSigned));
      CaseBuilder cb(rng, isSigned);
      const Tensor in = cb.input(dims, {cb.type(), 0.3f, isSigned ? -5 : 120});
      const Tensor out = cb.result(in.dims, {cb.type(), 1.0f / 256, isSigned ? -128 : 0});
      cb.operation(OperationType::SOFTMAX, {in.operand, cb.float32(0.7f)}, out);
      cb.output(out);
      const OpModel m = cb.finish();
      const std::string what = fmt::format("SOFTMAX {} {}", dimsText(dims), isSigned ? "signed" : "unsigned");
      expectClaimedAndExact(m, what);
      auto prepared = prepare(device(0), m.model);
      ASSERT_TRUE(prepared.ok()) << what << ": " << prepared.error().message;
      auto run = runOnPrepared(*prepared.value(), m);
      ASSERT_TRUE(run.ok()) << what << ": " << run.error().message;
      uint64_t rows = 1;
      for (size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d];
      const auto& op = run.value().execution->profile.operations.at(0);
      uint64_t retired = 0;
      for (const auto& [name, value] : op.counters) {
        if (name == "CMDS_RETIRED") retired = value;
      }
      EXPECT_GT(retired, rows) << what;  // a SOFTMAX a row
      EXPECT_LT(retired, 2 * rows + 8) << what;  // a row a tile took three (LOAD, SOFTMAX, STORE)
    }
  }
}

// A row broadcast to a few wide pixels (a decode step's attention mask over 12 heads x 513
// positions, a bias row over [5, 3, 37]) takes the wide-row path: each pixel's channels loaded as
// one run, STOREs of several column tiles. Claimed and exact on both devices, for ADD, SUB and
// MUL, signed and unsigned, the row second or (a broadcast the path leaves to the general one)
// first.
TEST(VectorOpsRegression, RowsBroadcastToWidePixels) {
  const std::pair<nn::Dimensions, nn::Dimensions> shapes[] = {{{1, 12, 1, 513}, {1, 1, 1, 513}},
                                                              {{5, 3, 37}, {37}},
                                                              {{2, 4100}, {1, 4100}}};
  for (const auto& [wide, row] : shapes) {
    for (OperationType type : {OperationType::ADD, OperationType::SUB, OperationType::MUL}) {
      for (bool isSigned : {false, true}) {
        for (bool rowFirst : {false, true}) {
          std::mt19937 rng(static_cast<uint32_t>(wide.back() + static_cast<int>(type) * 7 + isSigned));
          CaseBuilder cb(rng, isSigned);
          const Tensor a = cb.input(wide, cb.quant());
          const Tensor b = cb.input(row, cb.quant());
          const Tensor out = rowFirst ? binaryOf(cb, type, b, a) : binaryOf(cb, type, a, b);
          cb.output(out);
          expectClaimedAndExact(cb.finish(), fmt::format("{} {} with {}{}{}", nn::toString(type), dimsText(wide),
                                                         dimsText(row), isSigned ? ", signed" : "",
                                                         rowFirst ? ", the row first" : ""));
        }
      }
    }
  }
}

// PAD_V2's value fills the padded tensor's border, not the halo a following padded convolution
// reads: that padding is the zero point, as NNAPI defines it.
TEST(VectorOpsRegression, PadV2ValueStaysOutOfTheNextConvolutionsPadding) {
  std::mt19937 rng(3);
  CaseBuilder cb(rng, false);
  const Quant q{OperandType::TENSOR_QUANT8_ASYMM, 0.05f, 10};
  const Tensor in = cb.input({1, 5, 5, 3}, q);
  const Tensor padded = cb.result({1, 7, 7, 3}, q);
  cb.operation(OperationType::PAD_V2,
               {in.operand, cb.int32Tensor({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0}), cb.int32(250)}, padded);
  // A 3x3 SAME convolution and a 3x3 SAME depthwise convolution of the padded tensor.
  const Quant w{OperandType::TENSOR_QUANT8_ASYMM, 0.02f, 128};
  const auto convWeights = cb.randomBytes(2 * 3 * 3 * 3), dwWeights = cb.randomBytes(3 * 3 * 3);
  const std::vector<int32_t> convBias = {100, -50}, dwBias = {7, 0, -7};
  const Quant out{OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  auto& b = cb.builder();
  const Tensor conv = cb.result({1, 7, 7, 2}, out);
  cb.operation(OperationType::CONV_2D,
               {padded.operand, b.constant(w.type, {2, 3, 3, 3}, convWeights.data(), convWeights.size(), w.scale, w.zeroPoint),
                b.constant(OperandType::TENSOR_INT32, {2}, convBias.data(), 8, q.scale * w.scale, 0), cb.int32(1),
                cb.int32(1), cb.int32(1), cb.int32(0)},
               conv);
  const Tensor dw = cb.result({1, 7, 7, 3}, out);
  cb.operation(OperationType::DEPTHWISE_CONV_2D,
               {padded.operand, b.constant(w.type, {1, 3, 3, 3}, dwWeights.data(), dwWeights.size(), w.scale, w.zeroPoint),
                b.constant(OperandType::TENSOR_INT32, {3}, dwBias.data(), 12, q.scale * w.scale, 0), cb.int32(1),
                cb.int32(1), cb.int32(1), cb.int32(1), cb.int32(0)},
               dw);
  cb.output(conv);
  cb.output(dw);
  expectClaimedAndExact(cb.finish(), "PAD_V2 (value 250, zero point 10) then 3x3 SAME CONV_2D and DEPTHWISE_CONV_2D");
}

// A padded tensor that a concatenation reads with the output's quantization: PAD_V2's border
// (its value, not the zero point) and PAD's (the zero point) must survive the concatenation's
// zero-copy storing of inputs in place (found by ChainsMatchTheReference and
// SmallGraphsMatchTheReference after 11fde1d).
TEST(VectorOpsRegression, PaddedInputsOfAConcatenationKeepTheirBorder) {
  for (bool v2 : {true, false}) {
    std::mt19937 rng(6);
    CaseBuilder cb(rng, false);
    const Quant q{OperandType::TENSOR_QUANT8_ASYMM, 0.17f, 50};
    const Tensor in = cb.input({1, 1, 4, 3}, q);
    const Tensor padded = cb.result({1, 6, 4, 3}, q);
    std::vector<uint32_t> operands = {in.operand, cb.int32Tensor({4, 2}, {0, 0, 3, 2, 0, 0, 0, 0})};
    if (v2) operands.push_back(cb.int32(27));
    cb.operation(v2 ? OperationType::PAD_V2 : OperationType::PAD, operands, padded);
    const Tensor other = cb.input({1, 6, 4, 2}, q);
    const Tensor cat = cb.result({1, 6, 4, 5}, q);
    cb.operation(OperationType::CONCATENATION, {padded.operand, other.operand, cb.int32(3)}, cat);
    cb.output(cat);
    expectClaimedAndExact(cb.finish(), fmt::format("{} (value 27, zero point 50) then CONCATENATION on channels",
                                                   v2 ? "PAD_V2" : "PAD"));
  }
}

// Loads of one lane group per pixel (count0 1, pixels strided) are one request a pixel: the
// driver estimated them as merged, 5 times too fast, and the watchdog's budget (twice the
// estimate) cut a correct 16-image global pool short on weft8 (found at
// WEFT_VECTOR_OPS_SCALE=4 WEFT_VECTOR_OPS_SEED=7, stream 1 case 3270).
TEST(VectorOpsRegression, StridedLaneLoadsFitTheWatchdogBudget) {
  std::mt19937 rng(5);
  CaseBuilder cb(rng, true);
  const Tensor in = cb.input({16, 40, 31, 40}, {cb.type(), 0.2f, -39});
  const Tensor out = cb.result({16, 1, 1, 40}, in.q);
  cb.operation(OperationType::AVERAGE_POOL_2D,
               {in.operand, cb.int32(2), cb.int32(4), cb.int32(4), cb.int32(31), cb.int32(40), cb.int32(1)}, out);
  cb.output(out);
  Tally tally;
  runCase(device(0), cb.finish(), "AVERAGE_POOL_2D 40x31 VALID of [16,40,31,40] on weft8", tally);
  EXPECT_EQ(tally.claimed, 1u);
  EXPECT_EQ(tally.passed, 1u);
}

// Windows over channels that are not a multiple of the lanes, wide enough that loading the
// input pixel-major (a pixel's groups in one request, its last group reading past its
// channels: WindowLayer::generate's choice) is what the compiler picks: SqueezeNet's pool10
// (MEAN over 13x13x1000) and pooling over 250 and 1000 channels, exact on weft8 and weft16.
TEST(VectorOpsRegression, WideChannelsNotAMultipleOfTheLanesMatchTheReference) {
  Tally tally;
  for (uint32_t i = 0; i < 6; ++i) {
    std::mt19937 rng(100 + i);
    CaseBuilder cb(rng, true);
    const uint32_t channels = i < 2 ? 1000 : (i % 2 == 0 ? 250 : 1003);
    const Tensor in = cb.input({i < 4 ? 1u : 2u, 13, 13, channels}, cb.quant());
    std::optional<Tensor> out;
    if (i < 2) {
      out = cb.result({in.dims[0], 1, 1, channels}, in.q);
      cb.operation(OperationType::MEAN, {in.operand, cb.int32Tensor({2}, {1, 2}), cb.int32(1)}, *out);
      cb.note(fmt::format("MEAN [{},13,13,{}] over H and W", in.dims[0], channels));
    } else {
      out = pool(cb, in, false, i % 2 == 1);
    }
    cb.output(*out);
    runCase(device(i), cb.finish(), fmt::format("case {}: {}", i, cb.what()), tally);
  }
  EXPECT_EQ(tally.claimed, 6u);
  EXPECT_EQ(tally.passed, 6u);
}

// The layout choice is the mapping's to report: a window over channels that are not a multiple
// of the lanes says which layout its input tiles took (SqueezeNet's pool10, a MEAN over
// 13x13x1000, loads pixel-major at weft16), one over whole lane groups has no choice to report.
TEST(VectorOpsRegression, TheMappingSaysHowAWindowsTilesAreLaidOut) {
  const auto tilingOf = [](const hal::IDevice& dev, uint32_t channels, bool isMean) {
    std::mt19937 rng(channels);
    CaseBuilder cb(rng, true);
    const Tensor in = cb.input({1, 13, 13, channels}, cb.quant());
    const Tensor out = cb.result({1, 1, 1, channels}, in.q);
    if (isMean) {
      cb.operation(OperationType::MEAN, {in.operand, cb.int32Tensor({2}, {1, 2}), cb.int32(1)}, out);
    } else {  // a 13x13 average pool, VALID
      cb.operation(OperationType::AVERAGE_POOL_2D,
                   {in.operand, cb.int32(2), cb.int32(1), cb.int32(1), cb.int32(13), cb.int32(13), cb.int32(0)}, out);
    }
    cb.output(out);
    auto prepared = prepare(dev, cb.finish().model);
    if (!prepared.ok()) {
      ADD_FAILURE() << prepared.error().message;
      return std::string();
    }
    return static_cast<const PreparedModel&>(*prepared.value()).compiled().operations.at(0).tiling;
  };
  const std::string pool10 = tilingOf(device(1), 1000, true);
  EXPECT_NE(pool10.find("; tiles pixel-major"), std::string::npos) << pool10;
  const std::string odd = tilingOf(device(0), 11, false);
  EXPECT_TRUE(odd.find("; tiles pixel-major") != std::string::npos ||
              odd.find("; tiles group by group") != std::string::npos)
      << odd;
  const std::string whole = tilingOf(device(1), 64, false);
  EXPECT_EQ(whole.find("tiles"), std::string::npos) << whole;
}

// A DRAM fault under a driver's program (a LOAD past the end of DRAM) fails the execution, and
// the device is destroyed afterwards.
TEST(VectorOpsRegression, ADramFaultFailsTheExecution) {
  std::mt19937 rng(4);
  CaseBuilder cb(rng, false);
  const Tensor in = cb.input({1, 6, 6, 5}, cb.quant());
  cb.output(*pool(cb, in, false, true));
  const OpModel m = cb.finish();
  {
    auto wrapped = std::make_unique<WrappedBackend>(
        sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8")));
    WrappedBackend* backend = wrapped.get();
    auto dev = deviceOn(std::move(wrapped));
    auto prepared = prepare(*dev, m.model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    backend->arm(WrappedBackend::Fault::kLoadPastDram);
    // The backend reports the fault as std::out_of_range (weft/sim/backend.h), which reaches the
    // HAL caller of execute (the runtime catches it); either way the execution must not succeed.
    try {
      auto failed = runOnPrepared(*prepared.value(), m);
      EXPECT_FALSE(failed.ok()) << "a LOAD past the end of DRAM must fail the execution";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("DRAM"), std::string::npos) << e.what();
    }
  }
}

// The approx backend's data-path thread, handed commands by a run the host then abandons after
// a DRAM fault, still stops when the backend is destroyed: it used to wait awake for the rest of
// the run forever (ctest's TIMEOUT catches the hang). Eight NOPs (one full fetch request,
// kFetchSlots) fill the last bytes of DRAM; register reads advance the device a cycle each (as
// a host polling STATUS would), so the decoder hands the NOPs to the data path and the next
// fetch, past the end of DRAM, faults; the host gives up without another run.
TEST(VectorOpsRegression, ApproxBackendIsDestroyedAfterAnAbandonedFaultingRun) {
  setenv("WEFT_APPROX_THREADS", "2", 1);  // the data path on its own thread, as on this machine
  auto backend = sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8"));
  unsetenv("WEFT_APPROX_THREADS");
  const uint64_t base = backend->dramBytes() - uint64_t{hw::micro::kFetchSlots} * hw::kCommandBytes;
  uint8_t nop[hw::kCommandBytes];
  hw::NopCmd{}.encode().toBytes(nop);
  for (uint32_t i = 0; i < hw::micro::kFetchSlots; ++i) backend->writeDram(base + i * hw::kCommandBytes, nop, sizeof nop);
  backend->writeReg(hw::reg::kRingBaseLo, static_cast<uint32_t>(base));
  backend->writeReg(hw::reg::kRingBaseHi, static_cast<uint32_t>(base >> 32));
  backend->writeReg(hw::reg::kRingSize, 64);
  backend->writeReg(hw::reg::kCtrl, hw::reg::kCtrlEnableMask);
  backend->writeReg(hw::reg::kRingTail, 3 * hw::micro::kFetchSlots);
  for (int i = 0; i < 1000; ++i) backend->readReg(hw::reg::kStatus);
  // The fault is reported by the next run; the host abandons the device instead.
  backend.reset();
}

}  // namespace
}  // namespace weft::accel::test
