// Einsum, as the matrix products its equation spells (as ONNX Runtime and opt_einsum evaluate it):
// operands are taken left to right, two at a time. In each pair a label is a batch dimension (in
// both, and needed later or in the output), contracted (in both, needed nowhere after), or a
// row of one operand (in that operand only). The pair becomes one BATCH_MATMUL of
// [batch, rows, contracted] by [batch, contracted, columns] (adj_x / adj_y where an operand is
// already laid out the other way round, so q @ k^T needs no TRANSPOSE), a FULLY_CONNECTED when
// the second is constant and nothing is batched, or a MUL when nothing is contracted. A label in
// one operand only that the output does not keep is summed first (REDUCE_SUM); a dimension of 1
// that another operand's label broadcasts is dropped. The output is put in the equation's order
// last. Constants are rearranged at import. Refused: a label repeated within one operand (a
// diagonal), operands that are not float.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "Einsum.h"
#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;
using Labels = std::vector<int>;  // letters as their character code; the ellipsis' k-th as kEllipsis + k

constexpr int kEllipsis = 256;

struct Equation {
  std::vector<Labels> inputs;
  Labels output;
};

std::string labelName(int label) {
  return label >= kEllipsis ? fmt::format("...[{}]", label - kEllipsis) : std::string(1, static_cast<char>(label));
}

// One side's term: its letters, and where its "..." stands (or -1), with no repeated letter.
struct Term {
  std::vector<int> letters;
  int ellipsisAt = -1;
};

Term parseTerm(const Node& node, const std::string& text, const std::string& which) {
  Term t;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 3, "...") == 0) {
      if (t.ellipsisAt >= 0) throw ImportError(node.error(fmt::format("equation: {} has two ellipses", which)));
      t.ellipsisAt = static_cast<int>(t.letters.size());
      i += 3;
      continue;
    }
    const char c = text[i++];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      throw ImportError(node.error(fmt::format("equation: '{}' in {} is not a letter, ',', '->' or '...'", c, which)));
    }
    t.letters.push_back(c);
  }
  return t;
}

Equation parseEquation(const Node& node, const std::vector<size_t>& ranks) {
  std::string text;
  for (const char c : node.attrString("equation", "")) {
    if (c != ' ') text += c;
  }
  if (text.empty()) throw ImportError(node.error("no equation"));
  const size_t arrow = text.find("->");
  if (arrow != std::string::npos && text.find("->", arrow + 2) != std::string::npos) {
    throw ImportError(node.error("equation: more than one '->'"));
  }
  const std::string lhs = text.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t from = 0;;) {
    const size_t comma = lhs.find(',', from);
    terms.push_back(parseTerm(node, lhs.substr(from, comma - from), fmt::format("operand {}", terms.size())));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (terms.size() != ranks.size()) {
    throw ImportError(
        node.error(fmt::format("the equation has {} operands and the node {} inputs", terms.size(), ranks.size())));
  }
  // The ellipses' dimensions, aligned at their right ends (numpy's broadcasting).
  int ellipsisRank = 0;
  std::vector<int> ellipsisOf(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const int letters = static_cast<int>(terms[i].letters.size()), rank = static_cast<int>(ranks[i]);
    if (terms[i].ellipsisAt < 0 ? letters != rank : letters > rank) {
      throw ImportError(
          node.error(fmt::format("equation: operand {} names {} dimensions of a rank-{} input", i, letters, rank)));
    }
    if (terms[i].ellipsisAt >= 0) ellipsisOf[i] = rank - letters;
    ellipsisRank = std::max(ellipsisRank, ellipsisOf[i]);
  }
  Equation eq;
  std::map<int, int> uses;
  for (size_t i = 0; i < terms.size(); ++i) {
    Labels labels;
    for (size_t k = 0; k <= terms[i].letters.size(); ++k) {
      if (static_cast<int>(k) == terms[i].ellipsisAt) {
        for (int e = ellipsisRank - ellipsisOf[i]; e < ellipsisRank; ++e) labels.push_back(kEllipsis + e);
      }
      if (k < terms[i].letters.size()) labels.push_back(terms[i].letters[k]);
    }
    std::set<int> seen;
    for (const int label : labels) {
      if (!seen.insert(label).second) {
        throw ImportError(
            node.error(fmt::format("equation: '{}' twice in operand {} (a diagonal; weft imports "
                                   "each label once an operand)",
                                   labelName(label), i)));
      }
      ++uses[label];
    }
    eq.inputs.push_back(std::move(labels));
  }
  if (arrow == std::string::npos) {  // implicit: the ellipsis, then the letters used once, sorted
    for (int e = 0; e < ellipsisRank; ++e) eq.output.push_back(kEllipsis + e);
    for (const auto& [label, n] : uses) {
      if (label < kEllipsis && n == 1) eq.output.push_back(label);
    }
    return eq;
  }
  const Term out = parseTerm(node, text.substr(arrow + 2), "the output");
  std::set<int> seen;
  for (size_t k = 0; k <= out.letters.size(); ++k) {
    if (static_cast<int>(k) == out.ellipsisAt) {
      for (int e = 0; e < ellipsisRank; ++e) eq.output.push_back(kEllipsis + e);
    }
    if (k == out.letters.size()) break;
    const int label = out.letters[k];
    if (uses.count(label) == 0) {
      throw ImportError(node.error(fmt::format("equation: the output's '{}' is in no operand", labelName(label))));
    }
    if (!seen.insert(label).second) {
      throw ImportError(node.error(fmt::format("equation: '{}' twice in the output", labelName(label))));
    }
    eq.output.push_back(label);
  }
  return eq;
}

// An operand on its way: its labels and their sizes (its NNAPI operand may hold the same elements
// in another shape), computed or a constant still on the host.
struct Operand {
  uint32_t operand = 0;
  std::optional<HostTensor> constant;
  Labels labels;
  Shape dims;
};

// Every label's size: the operands agree, or one has 1 where another has more (broadcast).
std::map<int, int64_t> labelSizes(const Node& node, const Equation& eq, const std::vector<Shape>& shapes) {
  std::map<int, int64_t> sizes;
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    for (size_t d = 0; d < shapes[i].size(); ++d) {
      const int label = eq.inputs[i][d];
      const int64_t n = shapes[i][d];
      auto [it, fresh] = sizes.emplace(label, n);
      if (fresh || it->second == n || n == 1) continue;
      if (it->second != 1) {
        throw ImportError(node.error(fmt::format("equation: '{}' is {} in operand {} and {} in an operand before",
                                                 labelName(label), n, i, it->second)));
      }
      it->second = n;
    }
  }
  return sizes;
}

std::vector<size_t> ranksOf(const std::vector<Shape>& shapes) {
  std::vector<size_t> ranks;
  for (const Shape& s : shapes) ranks.push_back(s.size());
  return ranks;
}

class EinsumLowering {
 public:
  EinsumLowering(const Node& node, Lowering& l)
      : node_(node), l_(l), type_(nnTensorType(l.info(node.input(0)), node.label())) {}

  void run() {
    std::vector<Shape> shapes;
    for (size_t i = 0; i < node_.inputCount(); ++i) {
      if (!node_.hasInput(i)) throw ImportError(node_.error(fmt::format("input {} is omitted", i)));
      requireFloat(node_, l_, node_.input(i));
      if (typeOf(l_, node_.input(i)) != typeOf(l_, node_.input(0))) {
        throw ImportError(node_.error("inputs of different types"));
      }
      shapes.push_back(shapeOf(l_, node_.input(i)));
    }
    if (shapes.empty()) throw ImportError(node_.error("no inputs"));
    const Equation eq = parseEquation(node_, ranksOf(shapes));
    size_ = labelSizes(node_, eq, shapes);
    Shape expected;
    for (const int label : eq.output) expected.push_back(size_.at(label));
    if (shapeOf(l_, node_.output(0)) != expected) {
      throw ImportError(node_.error(fmt::format("its output's shape {} is not the equation's {}",
                                                shapeString(shapeOf(l_, node_.output(0))), shapeString(expected))));
    }
    std::vector<Operand> operands;
    for (size_t i = 0; i < shapes.size(); ++i) operands.push_back(take(i, eq.inputs[i]));
    // A label one operand alone has and the output does not keep is summed in that operand.
    std::map<int, int> uses;
    for (const Operand& o : operands) {
      for (const int label : o.labels) ++uses[label];
    }
    const std::set<int> kept(eq.output.begin(), eq.output.end());
    for (Operand& o : operands) {
      Labels summed;
      for (const int label : o.labels) {
        if (uses[label] == 1 && kept.count(label) == 0) summed.push_back(label);
      }
      if (!summed.empty()) sum(o, summed);
    }
    Operand result = std::move(operands[0]);
    for (size_t i = 1; i < operands.size(); ++i) {
      std::set<int> needed = kept;  // by the output or the operands after this pair
      for (size_t j = i + 1; j < operands.size(); ++j)
        needed.insert(operands[j].labels.begin(), operands[j].labels.end());
      result =
          contract(std::move(result), std::move(operands[i]), needed, i + 1 == operands.size() ? &eq.output : nullptr);
    }
    if (!done_) finish(std::move(result), eq.output);
  }

 private:
  // Input i with the dimensions of 1 that another operand's label broadcasts dropped.
  Operand take(size_t i, const Labels& labels) {
    Operand o;
    const std::string& value = node_.input(i);
    const Shape& shape = shapeOf(l_, value);
    for (size_t d = 0; d < labels.size(); ++d) {
      if (shape[d] == 1 && size_.at(labels[d]) != 1) continue;
      o.labels.push_back(labels[d]);
      o.dims.push_back(shape[d]);
    }
    if (l_.isConstant(value)) {
      o.constant = l_.constant(value);
      o.constant->shape = o.dims;
    } else {
      o.operand = in(node_, l_, i);
    }
    return o;
  }

  std::string name(const std::string& what) { return fmt::format("{}_einsum{}_{}", node_.output(0), step_++, what); }

  int64_t product(const Labels& labels) const {
    int64_t n = 1;
    for (const int label : labels) n *= size_.at(label);
    return n;
  }

  std::vector<int64_t> permutation(const Operand& o, const Labels& order) const {
    std::vector<int64_t> perm;
    for (const int label : order) {
      perm.push_back(std::find(o.labels.begin(), o.labels.end(), label) - o.labels.begin());
    }
    return perm;
  }

  // The operand with its labels in `order`, held in `shape`: rearranged at import when constant.
  uint32_t arrange(const Operand& o, const Labels& order, const Shape& shape, const std::string& what) {
    const std::vector<int64_t> perm = permutation(o, order);
    if (o.constant) {
      HostTensor t = transposed(*o.constant, perm);
      t.shape = shape;
      return l_.constantOperand(std::move(t), name(what));
    }
    if (o.labels == order && l_.nn().operand(o.operand).dimensions == nnDims(shape)) return o.operand;
    const uint32_t out = l_.temporary(type_, shape, name(what));
    permuteInto(l_, o.operand, o.dims, perm, shape, out, name(what));
    return out;
  }

  // Sums `summed` out of `o`: [kept, summed] times a column of ones (a FULLY_CONNECTED: the
  // array sums, where REDUCE_SUM would run on the CPU).
  void sum(Operand& o, const Labels& summed) {
    Labels keep;
    for (const int label : o.labels) {
      if (std::find(summed.begin(), summed.end(), label) == summed.end()) keep.push_back(label);
    }
    Labels order = keep;
    order.insert(order.end(), summed.begin(), summed.end());
    const int64_t rows = product(keep), n = product(summed);
    Shape dims;
    for (const int label : keep) dims.push_back(size_.at(label));
    if (o.constant) {
      const HostTensor t = transposed(*o.constant, permutation(o, order));
      HostTensor s(t.type, dims);
      for (int64_t r = 0; r < rows; ++r) {
        double v = 0;
        for (int64_t k = 0; k < n; ++k) v += t.asDouble(r * n + k);
        s.setDouble(r, v);
      }
      o.constant = std::move(s);
    } else {
      const uint32_t matrix = arrange(o, order, {rows, n}, "to_sum");
      o.operand = l_.temporary(type_, {rows, 1}, name("sum"));
      fullyConnected(matrix, std::vector<float>(static_cast<size_t>(n), 1.0f), 1, n, o.operand);
    }
    o.labels = std::move(keep);
    o.dims = std::move(dims);
  }

  // FULLY_CONNECTED of `x` ([rows, k]) by `weights` ([n, k]) without bias into `out`.
  void fullyConnected(uint32_t x, const std::vector<float>& weights, int64_t n, int64_t k, uint32_t out) {
    l_.add(Op::FULLY_CONNECTED,
           {x, floatConstantLike(l_, node_.input(0), weights, {n, k}, name("weights")),
            floatConstantLike(l_, node_.input(0), std::vector<float>(static_cast<size_t>(n), 0.0f), {n}, name("bias")),
            l_.nn().scalarInt32(kFuseNone)},
           {out});
  }

  struct Split {  // a pair's labels: batch, rows of the first, contracted, columns of the second
    Labels batch, rows, inner, cols;
  };
  static Split split(const Operand& a, const Operand& b, const std::set<int>& needed) {
    const auto has = [](const Operand& o, int label) {
      return std::find(o.labels.begin(), o.labels.end(), label) != o.labels.end();
    };
    Split s;
    for (const int label : a.labels) {
      if (!has(b, label)) {
        s.rows.push_back(label);
      } else {
        (needed.count(label) != 0 ? s.batch : s.inner).push_back(label);
      }
    }
    for (const int label : b.labels) {
      if (!has(a, label)) s.cols.push_back(label);
    }
    return s;
  }
  static Labels with(std::initializer_list<const Labels*> parts) {
    Labels all;
    for (const Labels* p : parts) all.insert(all.end(), p->begin(), p->end());
    return all;
  }

  // The pair's product, its labels batch + rows + cols; written into the node's output when that
  // is the last step and nothing is left to rearrange.
  Operand contract(Operand a, Operand b, const std::set<int>& needed, const Labels* last) {
    // A constant first operand goes second (FULLY_CONNECTED's weights) when the other reads as
    // rows by contracted dimensions without a TRANSPOSE.
    if (a.constant && !b.constant) {
      const Split t = split(b, a, needed);
      if (b.labels == with({&t.batch, &t.rows, &t.inner})) std::swap(a, b);
    }
    const Split s = split(a, b, needed);
    const Labels &batch = s.batch, &rows = s.rows, &inner = s.inner, &cols = s.cols;
    const int64_t nb = product(batch), m = product(rows), k = product(inner), n = product(cols);
    // BATCH_MATMUL takes ranks 2 to 4: up to two batch dimensions as they are, more merged.
    Shape batchDims;
    for (const int label : batch) batchDims.push_back(size_.at(label));
    const auto matrix = [&](int64_t r, int64_t c) {
      Shape shape = nb == 1 ? Shape{} : batch.size() <= 2 ? batchDims : Shape{nb};
      shape.push_back(r);
      shape.push_back(c);
      return shape;
    };
    Operand out;
    out.labels = with({&batch, &rows, &cols});
    for (const int label : out.labels) out.dims.push_back(size_.at(label));
    const Shape& y = shapeOf(l_, node_.output(0));
    const bool direct = last != nullptr && out.labels == *last && matrix(m, n) == y;
    out.operand = direct ? l_.output(node_, 0) : l_.temporary(type_, matrix(m, n), name("product"));
    done_ = direct;
    if (inner.empty()) {  // an outer or element-wise product: [batch, rows, 1] x [batch, 1, cols]
      const uint32_t x = arrange(a, with({&batch, &rows}), matrix(m, 1), "lhs");
      const uint32_t z = arrange(b, with({&batch, &cols}), matrix(1, n), "rhs");
      l_.add(Op::MUL, {x, z, l_.nn().scalarInt32(kFuseNone)}, {out.operand});
      return out;
    }
    if (b.constant && !a.constant && nb == 1) {  // constant weights: the array's GEMM with [cols, inner]
      const uint32_t x = arrange(a, with({&batch, &rows, &inner}), {m, k}, "rows");
      const HostTensor w = transposed(*b.constant, permutation(b, with({&batch, &cols, &inner})));
      fullyConnected(x, toFloats(w), n, k, out.operand);
      return out;
    }
    const bool adjX =
        !a.constant && a.labels != with({&batch, &rows, &inner}) && a.labels == with({&batch, &inner, &rows});
    const bool adjY =
        !b.constant && b.labels != with({&batch, &inner, &cols}) && b.labels == with({&batch, &cols, &inner});
    const uint32_t x = adjX ? arrange(a, with({&batch, &inner, &rows}), matrix(k, m), "lhs")
                            : arrange(a, with({&batch, &rows, &inner}), matrix(m, k), "lhs");
    const uint32_t z = adjY ? arrange(b, with({&batch, &cols, &inner}), matrix(n, k), "rhs")
                            : arrange(b, with({&batch, &inner, &cols}), matrix(k, n), "rhs");
    l_.add(Op::BATCH_MATMUL, {x, z, l_.nn().scalarBool(adjX), l_.nn().scalarBool(adjY)}, {out.operand});
    return out;
  }

  // The result in the output's order and shape.
  void finish(Operand o, const Labels& output) {
    const Shape& y = shapeOf(l_, node_.output(0));
    if (o.constant) o.operand = l_.constantOperand(std::move(*o.constant), name("constant"));
    if (o.labels == output) {  // already in order: no TRANSPOSE, at most a RESHAPE
      reshapeTo(l_, o.operand, y, l_.output(node_, 0));
      return;
    }
    permuteInto(l_, o.operand, o.dims, permutation(o, output), y, l_.output(node_, 0), node_.output(0));
  }

  const Node& node_;
  Lowering& l_;
  const nn::OperandType type_;
  std::map<int, int64_t> size_;
  int step_ = 0;
  bool done_ = false;  // the last product wrote the node's output
};

void convertEinsum(const Node& node, Lowering& l) {
  onlyAttributes(node, {"equation"});
  EinsumLowering(node, l).run();
}

}  // namespace

void registerEinsum(Registry& r) { r.add("Einsum", convertEinsum); }

Shape einsumOutputShape(const Node& node, const std::vector<Shape>& inputs) {
  const Equation eq = parseEquation(node, ranksOf(inputs));
  const std::map<int, int64_t> sizes = labelSizes(node, eq, inputs);
  Shape out;
  for (const int label : eq.output) out.push_back(sizes.at(label));
  return out;
}

}  // namespace weft::onnx::ops
