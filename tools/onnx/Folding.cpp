#include "Folding.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "ImportError.h"

namespace weft::onnx {
namespace {

using Inputs = std::vector<FoldInput>;
using Result = std::optional<std::vector<HostTensor>>;

int64_t normalizeAxis(int64_t axis, size_t rank, const Node& node, bool inclusive = false) {
  const auto r = static_cast<int64_t>(rank) + (inclusive ? 1 : 0);
  if (axis < -r || axis >= r) throw ImportError(node.error(fmt::format("axis {} is outside a rank-{} tensor", axis, rank)));
  return axis < 0 ? axis + r : axis;
}

std::vector<int64_t> strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

// The flat index in a tensor of shape `from` (broadcast to `to`) of output index `flat`.
int64_t broadcastIndex(int64_t flat, const Shape& to, const Shape& from, const std::vector<int64_t>& fromStrides) {
  int64_t index = 0;
  const size_t offset = to.size() - from.size();
  for (int d = static_cast<int>(to.size()) - 1; d >= 0; --d) {
    const int64_t coord = flat % to[d];
    flat /= to[d];
    if (d >= static_cast<int>(offset) && from[d - offset] != 1) index += coord * fromStrides[d - offset];
  }
  return index;
}

const HostTensor& need(const Inputs& in, size_t i, const Node& node) {
  if (i >= in.size() || in[i].value == nullptr) throw ImportError(node.error("internal: input not constant"));
  return *in[i].value;
}

bool allConstant(const Inputs& in, const Node& node) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (node.hasInput(i) && in[i].value == nullptr) return false;
  }
  return true;
}

// Element-wise binary operators with numpy broadcasting.
Result binary(const Node& node, const Inputs& in, int64_t maxElements) {
  const HostTensor &a = need(in, 0, node), &b = need(in, 1, node);
  const Shape shape = broadcastShapes(a.shape, b.shape, node);
  if (elementCount(shape) > maxElements) return std::nullopt;
  const std::string& op = node.op();
  const bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual";
  const bool logical = op == "And" || op == "Or" || op == "Xor";
  HostTensor out(compare || logical ? DType::kBool : a.type, shape);
  const auto sa = strides(a.shape), sb = strides(b.shape);
  const bool floating = isFloat(a.type);
  for (int64_t i = 0; i < out.size(); ++i) {
    const int64_t ia = broadcastIndex(i, shape, a.shape, sa), ib = broadcastIndex(i, shape, b.shape, sb);
    if (floating) {
      const double x = a.asDouble(ia), y = b.asDouble(ib);
      double r;
      if (op == "Add") r = x + y;
      else if (op == "Sub") r = x - y;
      else if (op == "Mul") r = x * y;
      else if (op == "Div") r = x / y;
      else if (op == "Pow") r = std::pow(x, y);
      else if (op == "Max") r = std::max(x, y);
      else if (op == "Min") r = std::min(x, y);
      else if (op == "Equal") r = x == y;
      else if (op == "Less") r = x < y;
      else if (op == "Greater") r = x > y;
      else if (op == "LessOrEqual") r = x <= y;
      else if (op == "GreaterOrEqual") r = x >= y;
      else if (op == "Mod") r = node.attrInt("fmod", 0) ? std::fmod(x, y) : x - std::floor(x / y) * y;
      else return std::nullopt;
      // float results are rounded to the element type by setDouble (float32 arithmetic differs
      // from double in the last bit at most, as ONNX Runtime's folding does).
      out.setDouble(i, r);
    } else {
      const int64_t x = a.asInt(ia), y = b.asInt(ib);
      int64_t r;
      if (op == "Add") r = x + y;
      else if (op == "Sub") r = x - y;
      else if (op == "Mul") r = x * y;
      else if (op == "Div") {
        if (y == 0) throw ImportError(node.error("integer division by zero in a constant"));
        r = x / y;
      } else if (op == "Max") r = std::max(x, y);
      else if (op == "Min") r = std::min(x, y);
      else if (op == "Equal") r = x == y;
      else if (op == "Less") r = x < y;
      else if (op == "Greater") r = x > y;
      else if (op == "LessOrEqual") r = x <= y;
      else if (op == "GreaterOrEqual") r = x >= y;
      else if (op == "And") r = x && y;
      else if (op == "Or") r = x || y;
      else if (op == "Xor") r = (x != 0) != (y != 0);
      else if (op == "Mod") {
        if (y == 0) throw ImportError(node.error("integer modulo by zero in a constant"));
        r = x % y;
        if (!node.attrInt("fmod", 0) && r != 0 && ((r < 0) != (y < 0))) r += y;
      } else if (op == "Pow") r = static_cast<int64_t>(std::pow(static_cast<double>(x), static_cast<double>(y)));
      else return std::nullopt;
      out.setInt(i, r);
    }
  }
  return std::vector<HostTensor>{std::move(out)};
}

Result unary(const Node& node, const Inputs& in) {
  const HostTensor& a = need(in, 0, node);
  const std::string& op = node.op();
  HostTensor out(op == "Not" ? DType::kBool : a.type, a.shape);
  for (int64_t i = 0; i < a.size(); ++i) {
    const double x = a.asDouble(i);
    double r;
    if (op == "Neg") r = -x;
    else if (op == "Abs") r = std::fabs(x);
    else if (op == "Floor") r = std::floor(x);
    else if (op == "Ceil") r = std::ceil(x);
    else if (op == "Sqrt") r = std::sqrt(x);
    else if (op == "Reciprocal") r = 1.0 / x;
    else if (op == "Relu") r = std::max(0.0, x);
    else if (op == "Not") r = x == 0;
    else if (op == "Sign") r = (x > 0) - (x < 0);
    else if (op == "Exp") r = std::exp(x);
    else if (op == "Log") r = std::log(x);
    else return std::nullopt;
    if (isFloat(out.type)) {
      out.setDouble(i, r);
    } else if (op == "Neg" || op == "Abs" || op == "Sign") {
      const int64_t v = a.asInt(i);
      out.setInt(i, op == "Neg" ? -v : op == "Abs" ? (v < 0 ? -v : v) : (v > 0) - (v < 0));
    } else {
      out.setDouble(i, r);
    }
  }
  return std::vector<HostTensor>{std::move(out)};
}

Result shapeOf(const Node& node, const Inputs& in) {
  if (in.empty() || !in[0].shape) return std::nullopt;
  const Shape& s = *in[0].shape;
  const auto rank = static_cast<int64_t>(s.size());
  int64_t start = node.attrInt("start", 0), end = node.attrInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  std::vector<int64_t> dims(s.begin() + start, s.begin() + std::max(start, end));
  return std::vector<HostTensor>{HostTensor::fromInts(dims, {static_cast<int64_t>(dims.size())})};
}

Result gather(const Node& node, const Inputs& in) {
  const HostTensor &data = need(in, 0, node), &indices = need(in, 1, node);
  const int64_t axis = normalizeAxis(node.attrInt("axis", 0), data.shape.size(), node);
  const int64_t n = data.shape[axis];
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  HostTensor out(data.type, shape);
  const int64_t outer = elementCount(Shape(data.shape.begin(), data.shape.begin() + axis));
  const int64_t inner = elementCount(Shape(data.shape.begin() + axis + 1, data.shape.end()));
  const size_t width = dtypeSize(data.type);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < indices.size(); ++k) {
      int64_t idx = indices.asInt(k);
      if (idx < -n || idx >= n) throw ImportError(node.error(fmt::format("index {} is outside dimension {}", idx, n)));
      if (idx < 0) idx += n;
      std::memcpy(out.bytes.data() + ((o * indices.size() + k) * inner) * width,
                  data.bytes.data() + ((o * n + idx) * inner) * width, static_cast<size_t>(inner) * width);
    }
  }
  return std::vector<HostTensor>{std::move(out)};
}

Result concat(const Node& node, const Inputs& in) {
  std::vector<const HostTensor*> parts;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!node.hasInput(i)) continue;
    parts.push_back(&need(in, i, node));
  }
  if (parts.empty()) return std::nullopt;
  const int64_t axis = normalizeAxis(node.attrInt("axis", 0), parts[0]->shape.size(), node);
  Shape shape = parts[0]->shape;
  shape[axis] = 0;
  for (const HostTensor* p : parts) {
    if (p->shape.size() != shape.size() || p->type != parts[0]->type) {
      throw ImportError(node.error("inputs of different ranks or types"));
    }
    shape[axis] += p->shape[axis];
  }
  HostTensor out(parts[0]->type, shape);
  const int64_t outer = elementCount(Shape(shape.begin(), shape.begin() + axis));
  const size_t width = dtypeSize(out.type);
  size_t written = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor* p : parts) {
      const size_t chunk = static_cast<size_t>(elementCount(Shape(p->shape.begin() + axis, p->shape.end()))) * width;
      std::memcpy(out.bytes.data() + written, p->bytes.data() + o * chunk, chunk);
      written += chunk;
    }
  }
  return std::vector<HostTensor>{std::move(out)};
}

// Slice by per-axis start, end and step (ONNX's clamping rules).
HostTensor sliceTensor(const HostTensor& data, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                       std::vector<int64_t> axes, std::vector<int64_t> steps, const Node& node) {
  const size_t rank = data.shape.size();
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    throw ImportError(node.error("starts, ends, axes and steps differ in length"));
  }
  std::vector<int64_t> begin(rank, 0), step(rank, 1);
  Shape shape = data.shape;
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t axis = normalizeAxis(axes[k], rank, node), dim = data.shape[axis];
    const int64_t s = steps[k];
    if (s == 0) throw ImportError(node.error("a step of 0"));
    int64_t b = starts[k], e = ends[k];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      shape[axis] = e > b ? (e - b + s - 1) / s : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      shape[axis] = b > e ? (b - e - s - 1) / (-s) : 0;
    }
    begin[axis] = b;
    step[axis] = s;
  }
  HostTensor out(data.type, shape);
  const auto inStrides = strides(data.shape);
  const size_t width = dtypeSize(data.type);
  for (int64_t i = 0; i < out.size(); ++i) {
    int64_t rest = i, src = 0;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      const int64_t coord = rest % shape[d];
      rest /= shape[d];
      src += (begin[d] + coord * step[d]) * inStrides[d];
    }
    std::memcpy(out.bytes.data() + i * width, data.bytes.data() + src * width, width);
  }
  return out;
}

Result slice(const Node& node, const Inputs& in) {
  const HostTensor& data = need(in, 0, node);
  if (node.opset() < 10) {
    return std::vector<HostTensor>{sliceTensor(data, node.attrInts("starts"), node.attrInts("ends"),
                                               node.attrInts("axes"), {}, node)};
  }
  auto ints = [&](size_t i) { return node.hasInput(i) ? need(in, i, node).toInts() : std::vector<int64_t>{}; };
  return std::vector<HostTensor>{sliceTensor(data, ints(1), ints(2), ints(3), ints(4), node)};
}

std::vector<int64_t> axesOf(const Node& node, const Inputs& in) {
  if (node.opset() >= 13 && node.hasInput(1)) return need(in, 1, node).toInts();
  return node.attrInts("axes");
}

Result unsqueeze(const Node& node, const Inputs& in) {
  HostTensor out = need(in, 0, node);
  std::vector<int64_t> axes = axesOf(node, in);
  const size_t rank = out.shape.size() + axes.size();
  for (auto& a : axes) a = normalizeAxis(a, rank, node);
  std::sort(axes.begin(), axes.end());
  for (int64_t a : axes) out.shape.insert(out.shape.begin() + a, 1);
  return std::vector<HostTensor>{std::move(out)};
}

Result squeeze(const Node& node, const Inputs& in) {
  HostTensor out = need(in, 0, node);
  std::vector<int64_t> axes = axesOf(node, in);
  Shape shape;
  for (size_t d = 0; d < out.shape.size(); ++d) {
    bool drop = false;
    if (axes.empty()) {
      drop = out.shape[d] == 1;
    } else {
      for (int64_t a : axes) drop |= normalizeAxis(a, out.shape.size(), node) == static_cast<int64_t>(d);
      if (drop && out.shape[d] != 1) throw ImportError(node.error("squeezes a dimension that is not 1"));
    }
    if (!drop) shape.push_back(out.shape[d]);
  }
  out.shape = shape;
  return std::vector<HostTensor>{std::move(out)};
}

Result reshape(const Node& node, const Inputs& in) {
  HostTensor out = need(in, 0, node);
  std::vector<int64_t> target = node.opset() >= 5 ? need(in, 1, node).toInts() : node.attrInts("shape");
  const bool allowZero = node.attrInt("allowzero", 0) != 0;
  int64_t known = 1;
  int inferred = -1;
  for (size_t d = 0; d < target.size(); ++d) {
    if (target[d] == 0 && !allowZero) {
      if (d >= out.shape.size()) throw ImportError(node.error("a 0 in the shape beyond the input's rank"));
      target[d] = out.shape[d];
    }
    if (target[d] == -1) {
      if (inferred >= 0) throw ImportError(node.error("more than one -1 in the shape"));
      inferred = static_cast<int>(d);
    } else {
      known *= target[d];
    }
  }
  if (inferred >= 0) target[inferred] = known == 0 ? 0 : out.size() / known;
  if (elementCount(target) != out.size()) {
    throw ImportError(node.error(fmt::format("cannot reshape {} elements to {}", out.size(), shapeString(target))));
  }
  out.shape = target;
  return std::vector<HostTensor>{std::move(out)};
}

Result flatten(const Node& node, const Inputs& in) {
  HostTensor out = need(in, 0, node);
  const int64_t axis = normalizeAxis(node.attrInt("axis", 1), out.shape.size(), node, /*inclusive=*/true);
  const int64_t outer = elementCount(Shape(out.shape.begin(), out.shape.begin() + axis));
  out.shape = {outer, out.size() / std::max<int64_t>(outer, 1)};
  return std::vector<HostTensor>{std::move(out)};
}

Result cast(const Node& node, const Inputs& in) {
  const auto to = static_cast<DType>(node.attrInt("to", 0));
  if (dtypeSize(to) == 0) return std::nullopt;
  return std::vector<HostTensor>{need(in, 0, node).castTo(to)};
}

Result constantOfShape(const Node& node, const Inputs& in, int64_t maxElements) {
  const Shape shape = need(in, 0, node).toInts();
  if (elementCount(shape) > maxElements) return std::nullopt;
  const auto value = node.attrTensor("value");
  HostTensor out(value ? value->type : DType::kFloat, shape);
  if (value && value->size() > 0) {
    const size_t width = dtypeSize(out.type);
    for (int64_t i = 0; i < out.size(); ++i) std::memcpy(out.bytes.data() + i * width, value->bytes.data(), width);
  }
  return std::vector<HostTensor>{std::move(out)};
}

Result range(const Node& node, const Inputs& in, int64_t maxElements) {
  const HostTensor &start = need(in, 0, node), &limit = need(in, 1, node), &delta = need(in, 2, node);
  const double s = start.asDouble(0), l = limit.asDouble(0), d = delta.asDouble(0);
  if (d == 0) throw ImportError(node.error("a delta of 0"));
  const auto n = static_cast<int64_t>(std::max(0.0, std::ceil((l - s) / d)));
  if (n > maxElements) return std::nullopt;
  HostTensor out(start.type, {n});
  for (int64_t i = 0; i < n; ++i) {
    if (isFloat(out.type)) out.setDouble(i, s + static_cast<double>(i) * d);
    else out.setInt(i, start.asInt(0) + i * delta.asInt(0));
  }
  return std::vector<HostTensor>{std::move(out)};
}

Result expand(const Node& node, const Inputs& in, int64_t maxElements) {
  const HostTensor& data = need(in, 0, node);
  const Shape shape = broadcastShapes(data.shape, need(in, 1, node).toInts(), node);
  if (elementCount(shape) > maxElements) return std::nullopt;
  HostTensor out(data.type, shape);
  const auto s = strides(data.shape);
  const size_t width = dtypeSize(data.type);
  for (int64_t i = 0; i < out.size(); ++i) {
    std::memcpy(out.bytes.data() + i * width, data.bytes.data() + broadcastIndex(i, shape, data.shape, s) * width, width);
  }
  return std::vector<HostTensor>{std::move(out)};
}

Result where(const Node& node, const Inputs& in, int64_t maxElements) {
  const HostTensor &c = need(in, 0, node), &x = need(in, 1, node), &y = need(in, 2, node);
  const Shape shape = broadcastShapes(broadcastShapes(c.shape, x.shape, node), y.shape, node);
  if (elementCount(shape) > maxElements) return std::nullopt;
  HostTensor out(x.type, shape);
  const auto sc = strides(c.shape), sx = strides(x.shape), sy = strides(y.shape);
  const size_t width = dtypeSize(x.type);
  for (int64_t i = 0; i < out.size(); ++i) {
    const bool pick = c.asInt(broadcastIndex(i, shape, c.shape, sc)) != 0;
    const HostTensor& from = pick ? x : y;
    const int64_t src = broadcastIndex(i, shape, from.shape, pick ? sx : sy);
    std::memcpy(out.bytes.data() + i * width, from.bytes.data() + src * width, width);
  }
  return std::vector<HostTensor>{std::move(out)};
}

// ScatterND of constants: data with the slices `indices` names replaced by `updates` (or added
// or multiplied in, `reduction` add / mul). Swin's shifted-window attention mask is built so,
// from zeros at export.
Result scatterNd(const Node& node, const Inputs& in) {
  HostTensor out = need(in, 0, node);
  const HostTensor& indices = need(in, 1, node);
  const HostTensor& updates = need(in, 2, node);
  const std::string reduction = node.attrString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul") {
    throw ImportError(node.error(fmt::format("ScatterND reduction '{}' (none, add and mul are folded)", reduction)));
  }
  const size_t r = out.shape.size(), q = indices.shape.size();
  if (q == 0 || indices.shape.back() < 1 || static_cast<size_t>(indices.shape.back()) > r) {
    throw ImportError(node.error("ScatterND indices must end in a dimension of 1 to the data's rank"));
  }
  const auto k = static_cast<size_t>(indices.shape.back());
  int64_t slice = 1;  // elements of one update: data's trailing r - k dimensions
  for (size_t d = k; d < r; ++d) slice *= out.shape[d];
  const int64_t count = indices.size() / static_cast<int64_t>(k);
  if (updates.size() != count * slice) {
    throw ImportError(node.error(fmt::format("ScatterND updates hold {} elements, {} x {} expected", updates.size(),
                                             count, slice)));
  }
  for (int64_t u = 0; u < count; ++u) {
    int64_t offset = 0;
    for (size_t d = 0; d < k; ++d) {
      int64_t i = indices.asInt(u * static_cast<int64_t>(k) + static_cast<int64_t>(d));
      if (i < 0) i += out.shape[d];
      if (i < 0 || i >= out.shape[d]) throw ImportError(node.error("a ScatterND index is out of range"));
      offset = offset * out.shape[d] + i;
    }
    offset *= slice;
    for (int64_t e = 0; e < slice; ++e) {
      if (isFloat(out.type)) {
        const double v = updates.asDouble(u * slice + e), old = out.asDouble(offset + e);
        out.setDouble(offset + e, reduction == "add" ? old + v : reduction == "mul" ? old * v : v);
      } else {
        const int64_t v = updates.asInt(u * slice + e), old = out.asInt(offset + e);
        out.setInt(offset + e, reduction == "add" ? old + v : reduction == "mul" ? old * v : v);
      }
    }
  }
  return std::vector<HostTensor>{std::move(out)};
}

Result transpose(const Node& node, const Inputs& in) {
  const HostTensor& data = need(in, 0, node);
  const size_t rank = data.shape.size();
  std::vector<int64_t> perm = node.attrInts("perm");
  if (perm.empty()) {
    perm.resize(rank);
    for (size_t d = 0; d < rank; ++d) perm[d] = static_cast<int64_t>(rank - 1 - d);
  }
  if (perm.size() != rank) throw ImportError(node.error("perm does not match the input's rank"));
  for (auto& p : perm) p = normalizeAxis(p, rank, node);
  return std::vector<HostTensor>{transposed(data, perm)};
}

Result reduce(const Node& node, const Inputs& in) {
  const HostTensor& data = need(in, 0, node);
  std::vector<int64_t> axes = (node.opset() >= 18 || (node.op() == "ReduceSum" && node.opset() >= 13)) && node.hasInput(1)
                                  ? need(in, 1, node).toInts()
                                  : node.attrInts("axes");
  const size_t rank = data.shape.size();
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) reduced[normalizeAxis(a, rank, node)] = true;
  const bool keep = node.attrInt("keepdims", 1) != 0;
  Shape kept, full(rank);
  for (size_t d = 0; d < rank; ++d) {
    full[d] = reduced[d] ? 1 : data.shape[d];
    if (!reduced[d] || keep) kept.push_back(full[d]);
  }
  HostTensor out(data.type, kept);
  std::vector<double> acc(static_cast<size_t>(out.size()), node.op() == "ReduceProd" ? 1.0 : 0.0);
  const auto outStrides = strides(full);
  for (int64_t i = 0; i < data.size(); ++i) {
    int64_t rest = i, dst = 0;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      const int64_t coord = rest % data.shape[d];
      rest /= data.shape[d];
      if (!reduced[d]) dst += coord * outStrides[d];
    }
    if (node.op() == "ReduceProd") acc[dst] *= data.asDouble(i);
    else acc[dst] += data.asDouble(i);
  }
  for (int64_t i = 0; i < out.size(); ++i) out.setDouble(i, acc[i]);
  return std::vector<HostTensor>{std::move(out)};
}

}  // namespace

Shape broadcastShapes(const Shape& a, const Shape& b, const Node& node) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (x != y && x != 1 && y != 1) {
      throw ImportError(node.error(fmt::format("shapes {} and {} do not broadcast", shapeString(a), shapeString(b))));
    }
    out[i] = x == 1 ? y : x;
  }
  return out;
}

std::optional<std::vector<HostTensor>> foldNode(const Node& node, const std::vector<FoldInput>& in,
                                                int64_t maxElements) {
  const std::string& op = node.op();
  if (op == "Constant") {
    if (auto t = node.attrTensor("value")) return std::vector<HostTensor>{*t};
    if (node.has("value_int")) return std::vector<HostTensor>{HostTensor::fromInts({node.attrInt("value_int", 0)}, {})};
    if (node.has("value_ints")) return std::vector<HostTensor>{HostTensor::fromInts(node.attrInts("value_ints"))};
    if (node.has("value_float")) return std::vector<HostTensor>{HostTensor::scalarFloat(node.attrFloat("value_float", 0))};
    if (node.has("value_floats")) {
      const auto v = node.attrFloats("value_floats");
      HostTensor t(DType::kFloat, {static_cast<int64_t>(v.size())});
      std::copy(v.begin(), v.end(), t.data<float>());
      return std::vector<HostTensor>{std::move(t)};
    }
    throw ImportError(node.error("a Constant without a value the importer reads (sparse or string values)"));
  }
  if (op == "Shape") return shapeOf(node, in);
  if (op == "Size") {
    if (in.empty() || !in[0].shape) return std::nullopt;
    return std::vector<HostTensor>{HostTensor::fromInts({elementCount(*in[0].shape)}, {})};
  }
  if (!allConstant(in, node)) return std::nullopt;
  for (const FoldInput& i : in) {
    if (i.value != nullptr && i.value->size() > maxElements) return std::nullopt;
  }
  static const std::map<std::string, int> kBinary = {{"Add", 0}, {"Sub", 0}, {"Mul", 0}, {"Div", 0}, {"Pow", 0},
                                                     {"Equal", 0}, {"Less", 0}, {"Greater", 0}, {"LessOrEqual", 0},
                                                     {"GreaterOrEqual", 0}, {"And", 0}, {"Or", 0}, {"Xor", 0},
                                                     {"Mod", 0}};
  if (kBinary.count(op) != 0) return binary(node, in, maxElements);
  if ((op == "Max" || op == "Min") && node.inputCount() == 2) return binary(node, in, maxElements);
  if (op == "Neg" || op == "Abs" || op == "Floor" || op == "Ceil" || op == "Sqrt" || op == "Reciprocal" ||
      op == "Relu" || op == "Not" || op == "Sign" || op == "Exp" || op == "Log") {
    return unary(node, in);
  }
  if (op == "Identity") return std::vector<HostTensor>{need(in, 0, node)};
  if (op == "Gather") return gather(node, in);
  if (op == "Concat") return concat(node, in);
  if (op == "Slice") return slice(node, in);
  if (op == "Unsqueeze") return unsqueeze(node, in);
  if (op == "Squeeze") return squeeze(node, in);
  if (op == "Reshape") return reshape(node, in);
  if (op == "Flatten") return flatten(node, in);
  if (op == "Cast") return cast(node, in);
  if (op == "ConstantOfShape") return constantOfShape(node, in, maxElements);
  if (op == "Range") return range(node, in, maxElements);
  if (op == "Expand") return expand(node, in, maxElements);
  if (op == "Where") return where(node, in, maxElements);
  if (op == "Transpose") return transpose(node, in);
  if (op == "ScatterND") return scatterNd(node, in);
  if (op == "ReduceProd" || op == "ReduceSum") return reduce(node, in);
  return std::nullopt;
}

}  // namespace weft::onnx
