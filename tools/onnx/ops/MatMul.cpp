// Matrix products. A product with constant 2-D weights is NNAPI's FULLY_CONNECTED (the array's
// GEMM on the accelerator), its input flattened to rows and the result reshaped back; a product
// of two computed tensors is BATCH_MATMUL, batch dimensions broadcast first.
#include <fmt/format.h>

#include "../Folding.h"
#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;


// FULLY_CONNECTED of `input` (rows of K) by weights [N, K] and bias [N] into `out` of [rows, N].
void fullyConnected(const Node& node, Lowering& l, uint32_t input, const std::vector<float>& weightsNK, int64_t n,
                    int64_t k, const std::vector<float>& bias, uint32_t out) {
  const std::string name = node.output(0);
  l.add(Op::FULLY_CONNECTED,
        {input, floatConstantLike(l, node.input(0), weightsNK, {n, k}, name + "_weights"),
         floatConstantLike(l, node.input(0), bias, {n}, name + "_bias"), l.nn().scalarInt32(kFuseNone)},
        {out});
}

// A @ B with B constant and 2-D (or 1-D): FULLY_CONNECTED over A's rows.
void matMulConstant(const Node& node, Lowering& l) {
  const Shape &a = shapeOf(l, node.input(0)), &y = shapeOf(l, node.output(0));
  const HostTensor& b = l.constant(node.input(1));
  const int64_t k = b.shape[0], n = b.shape.size() == 2 ? b.shape[1] : 1;
  const std::vector<float> bf = toFloats(b);
  std::vector<float> w(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) w[j * k + i] = bf[i * n + j];
  const int64_t rows = elementCount(a) / k;
  const uint32_t out = l.output(node, 0);
  const nn::OperandType type = l.nn().operand(out).type;
  uint32_t x = in(node, l, 0);
  if (a.size() != 2) x = reshaped(l, x, {rows, k}, node.output(0) + "_rows");
  const bool direct = y == Shape{rows, n};
  const uint32_t result = direct ? out : l.temporary(type, {rows, n}, node.output(0) + "_fc");
  fullyConnected(node, l, x, w, n, k, std::vector<float>(static_cast<size_t>(n), 0.0f), result);
  if (!direct) reshapeTo(l, result, y, out);
}

// An operand of `value` broadcast to `batch` leading dimensions followed by its last two.
uint32_t withBatch(const Node& node, Lowering& l, const std::string& value, uint32_t operand, const Shape& matrix,
                   const Shape& batch) {
  Shape full = batch;
  full.insert(full.end(), matrix.end() - 2, matrix.end());
  Shape as = matrix;
  if (shapeOf(l, value).size() != matrix.size()) operand = reshaped(l, operand, matrix, value + "_2d");
  if (as == full) return operand;
  if (l.isConstant(value)) {
    HostTensor t = l.constant(value);
    t.shape = matrix;
    Node expand = node;  // for errors only
    const Shape target = broadcastShapes(matrix, full, expand);
    HostTensor e(t.type, target);
    // Broadcast by repeating the matrix (its batch dimensions are all 1 or equal).
    const int64_t per = elementCount(Shape(matrix.end() - 2, matrix.end())) * static_cast<int64_t>(dtypeSize(t.type));
    const int64_t srcBatches = elementCount(Shape(matrix.begin(), matrix.end() - 2));
    for (int64_t i = 0; i < elementCount(batch); ++i) {
      const int64_t src = srcBatches == 1 ? 0 : i;
      std::memcpy(e.bytes.data() + i * per, t.bytes.data() + src * per, static_cast<size_t>(per));
    }
    return l.constantOperand(e, value + "_batched");
  }
  const test::TestOperand& from = l.nn().operand(operand);
  const uint32_t out = l.nn().addTensor(from.type, nnDims(full), value + "_batched", from.scale, from.zeroPoint);
  HostTensor zeros(typeOf(l, value) == DType::kInt64 ? DType::kInt32 : typeOf(l, value), full);
  l.add(Op::ADD, {operand, l.constantOperand(zeros, value + "_zeros"), l.nn().scalarInt32(kFuseNone)}, {out});
  return out;
}

// A @ B with both computed (or B constant beyond 2-D): BATCH_MATMUL.
void batchMatMul(const Node& node, Lowering& l, bool adjX, bool adjY, uint32_t out) {
  Shape a = shapeOf(l, node.input(0)), b = shapeOf(l, node.input(1));
  const bool vecA = a.size() == 1, vecB = b.size() == 1;
  if (vecA) a = {1, a[0]};
  if (vecB) b = {b[0], 1};
  const Shape batch = broadcastShapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2), node);
  if (batch.size() + 2 > 4) throw ImportError(node.error("a matrix product of rank above 4 (NNAPI's BATCH_MATMUL)"));
  const uint32_t x = withBatch(node, l, node.input(0), l.operand(node.input(0)), a, batch);
  const uint32_t w = withBatch(node, l, node.input(1), l.operand(node.input(1)), b, batch);
  Shape product = batch;
  product.push_back(adjX ? a[a.size() - 1] : a[a.size() - 2]);
  product.push_back(adjY ? b[b.size() - 2] : b[b.size() - 1]);
  const Shape& y = shapeOf(l, node.output(0));
  const bool direct = product == y;
  const uint32_t result = direct ? out : l.temporary(l.nn().operand(out).type, product, node.output(0) + "_bmm");
  l.add(Op::BATCH_MATMUL, {x, w, l.nn().scalarBool(adjX), l.nn().scalarBool(adjY)}, {result});
  if (!direct) reshapeTo(l, result, y, out);
}

void convertMatMul(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  if (rankOf(l, node.input(0)) == 0 || rankOf(l, node.input(1)) == 0) {
    throw ImportError(node.error("a scalar operand (MatMul multiplies tensors of rank 1 and above)"));
  }
  const DType t = typeOf(l, node.input(0));
  if (t != DType::kFloat && t != DType::kFloat16) {
    throw ImportError(node.error(fmt::format("a {} product (NNAPI multiplies float or quantized matrices)", dtypeName(t))));
  }
  const Shape& b = shapeOf(l, node.input(1));
  if (l.isConstant(node.input(1)) && b.size() <= 2 && !l.isConstant(node.input(0))) {
    matMulConstant(node, l);
    return;
  }
  batchMatMul(node, l, false, false, l.output(node, 0));
}

void convertGemm(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha", "beta", "transA", "transB", "broadcast"});
  requireFloat(node, l, node.input(0));
  const float alpha = node.attrFloat("alpha", 1.0f), beta = node.attrFloat("beta", 1.0f);
  const bool transA = node.attrInt("transA", 0) != 0, transB = node.attrInt("transB", 0) != 0;
  const Shape &a = shapeOf(l, node.input(0)), &y = shapeOf(l, node.output(0));
  if (a.size() != 2 || y.size() != 2 || rankOf(l, node.input(1)) != 2) {
    throw ImportError(node.error("operands that are not matrices (Gemm multiplies 2-D tensors)"));
  }
  const int64_t m = y[0], n = y[1], k = transA ? a[0] : a[1];
  // The output's shape may come from a declaration rather than from inference: it must agree
  // with the operands' (the weights below are read by it).
  const Shape& b = shapeOf(l, node.input(1));
  const Shape expectB = transB ? Shape{n, k} : Shape{k, n};
  if ((transA ? a[1] : a[0]) != m || b != expectB) {
    throw ImportError(node.error(fmt::format("operands of shapes {} and {} that do not give its output's shape {}",
                                             shapeString(a), shapeString(b), shapeString(y))));
  }
  const std::string name = node.output(0);
  const uint32_t out = l.output(node, 0);
  const nn::OperandType type = l.nn().operand(out).type;
  const bool hasC = node.hasInput(2) && beta != 0.0f;
  // C joins the FULLY_CONNECTED's bias when it is constant and one value per column.
  std::vector<float> bias(static_cast<size_t>(n), 0.0f);
  bool cInBias = false;
  if (hasC && l.isConstant(node.input(2))) {
    const HostTensor& c = l.constant(node.input(2));
    if (c.size() == n || c.size() == 1) {
      for (int64_t j = 0; j < n; ++j) bias[j] = beta * static_cast<float>(c.asDouble(c.size() == 1 ? 0 : j));
      cInBias = true;
    }
  }
  const bool needAdd = hasC && !cInBias;
  const uint32_t product = needAdd ? l.temporary(type, y, name + "_product") : out;
  if (l.isConstant(node.input(1))) {
    const HostTensor& bt = l.constant(node.input(1));
    const std::vector<float> bf = toFloats(bt);
    std::vector<float> w(static_cast<size_t>(n * k));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < k; ++i) w[j * k + i] = alpha * (transB ? bf[j * k + i] : bf[i * n + j]);
    uint32_t x = in(node, l, 0);
    if (transA) {
      const uint32_t t = l.temporary(type, {m, k}, name + "_a_t");
      l.add(Op::TRANSPOSE, {x, l.nn().int32Vector({1, 0})}, {t});
      x = t;
    }
    fullyConnected(node, l, x, w, n, k, bias, product);
  } else {
    const uint32_t raw = alpha == 1.0f && !cInBias ? product : l.temporary(type, y, name + "_ab");
    batchMatMul(node, l, transA, transB, raw);
    uint32_t current = raw;
    if (alpha != 1.0f) {
      const uint32_t scaled = cInBias ? l.temporary(type, y, name + "_scaled") : product;
      l.add(Op::MUL, {current, floatConstantLike(l, node.input(0), {alpha}, {1}, name + "_alpha"),
                      l.nn().scalarInt32(kFuseNone)},
            {scaled});
      current = scaled;
    }
    if (cInBias) {
      l.add(Op::ADD, {current, floatConstantLike(l, node.input(0), bias, {n}, name + "_c"), l.nn().scalarInt32(kFuseNone)},
            {product});
    }
  }
  if (needAdd) {
    uint32_t c = in(node, l, 2);
    if (beta != 1.0f) {
      const uint32_t scaled = l.temporary(type, shapeOf(l, node.input(2)), name + "_beta_c");
      l.add(Op::MUL, {c, floatConstantLike(l, node.input(0), {beta}, {1}, name + "_beta"), l.nn().scalarInt32(kFuseNone)},
            {scaled});
      c = scaled;
    }
    l.add(Op::ADD, {product, c, l.nn().scalarInt32(kFuseNone)}, {out});
  }
}

}  // namespace

void registerMatMul(Registry& r) {
  r.add("MatMul", convertMatMul);
  r.add("Gemm", convertGemm);
}

}  // namespace weft::onnx::ops
