// WEFT_MATMUL_INT32 of the org.weft.accel extension (weft/WeftExtension.h) on the systolic array:
// lhs [M, K] times rhs [N, K] transposed into int32 accumulators. It is the GEMM of a
// FULLY_CONNECTED layer (lhs as M pixels of K channels, rhs as its weights) whose STORE writes the
// accumulators raw (hw::StoreMode::kRaw32) with a zero bias: exactly the reference kernel's sum,
// since the array subtracts each input's zero point and reads each input's signedness on its own.
#include "Families.h"
#include "weft/kernels/CpuExecutor.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel {

nn::Result<LoweredOperation> lowerWeftMatmulInt32(const OperationReader& r, uint32_t index, bool withValues) {
  // The operand rules are the reference kernel's, so that both devices accept the same models.
  if (nn::Status valid = nn::validateOperation(r.model(), r.model().main, r.op()); !valid.ok()) {
    return r.fail("{}", valid.error().message);
  }
  const nn::Operand& lhs = r.input(0);
  const nn::Operand& rhs = r.input(1);
  // What the array adds to that: shapes known at preparation, M within the command fields.
  if (lhs.dimensions.size() != 2 || !nn::isFullySpecified(lhs.type, lhs.dimensions)) {
    return r.fail("lhs must be a fully specified [M, K] tensor");
  }
  if (rhs.dimensions.size() != 2 || !nn::isFullySpecified(rhs.type, rhs.dimensions)) {
    return r.fail("rhs must be a fully specified [N, K] tensor");
  }
  const uint32_t rows = lhs.dimensions[0], depth = lhs.dimensions[1], columns = rhs.dimensions[0];
  if (rows > 0xFFFF) return r.fail("M = {} is larger than 65535", rows);
  const bool rhsConstant = isConstant(rhs);
  if (!rhsConstant && !givenAtExecution(rhs)) return r.fail("rhs has no value");
  if (rhsConstant && (rhs.location.length < uint64_t{columns} * depth || constantBytes(r.model(), rhs) == nullptr)) {
    return r.fail("rhs value is shorter than its shape");
  }
  auto dims = r.checkOutputDims({rows, columns});
  if (!dims.ok()) return dims.error();

  LoweredLayer lo;
  GemmLayer& layer = *lo.gemm();
  layer.operationIndex = index;
  layer.type = r.op().type;
  layer.inputOperand = r.op().inputs[0];
  layer.outputOperand = r.op().outputs[0];
  layer.input = ImageShape{1, rows, 1, depth};
  layer.output = ImageShape{1, rows, 1, columns};
  layer.inZp = lhs.zeroPoint;
  layer.wZp = rhs.zeroPoint;
  layer.inputType = quant8(isSignedType(lhs.type));
  layer.weightType = quant8(isSignedType(rhs.type));
  layer.outputType = ElementType::kInt32Raw;  // raw32: the accumulators as they are
  layer.columns.assign(columns, hw::ColumnParams{});  // bias 0: raw32 stores acc + bias
  if (!rhsConstant) layer.runtimeWeights = r.op().inputs[1];
  if (withValues) {
    if (rhsConstant) {
      const uint8_t* bytes = constantBytes(r.model(), rhs);
      layer.weights.assign(bytes, bytes + uint64_t{columns} * depth);
    } else {
      layer.weights.assign(uint64_t{columns} * depth, static_cast<uint8_t>(rhs.zeroPoint));
    }
  }
  lo.inputLayout = lo.outputLayout = DataLayout::kFlat;
  lo.outputDims = {rows, columns};
  return LoweredOperation(std::move(lo));
}

}  // namespace weft::accel
