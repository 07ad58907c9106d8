// RELU, RELU1, RELU6, LOGISTIC and TANH on the vector unit (EltwiseLayer, kind lut): quant8
// asymmetric or signed tensors of rank up to 4. The output of an 8-bit unary operation is a
// function of the input byte alone, so the lookup table holds the reference kernel's output for
// each of the 256 bytes (ops/ReferenceTables.h): bit-identical to the CPU by construction, with
// whatever requantization or output quantization rules the operation has.
#include "EltwiseLayer.h"
#include "Families.h"
#include "ReferenceTables.h"

namespace weft::accel {
nn::Result<LoweredOperation> lowerActivation(const OperationReader& r, uint32_t index, bool) {
  const auto& op = r.op();
  NN_TRY(r.expectCounts({1}, 1));
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  NN_TRY(r.quant8Tensor(in, "input", 0, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  if (!(out.scale > 0)) return r.fail("output scale must be positive");
  NN_TRY(r.checkOutputDims(in.dimensions));
  // The reference kernel's own checks (e.g. LOGISTIC's output scale 1/256) fail here too.
  auto table = unaryTable(op.type, in, out);
  if (!table.ok()) return r.fail("the reference kernel rejects it: {}", table.error().message);
  EltwiseMath m;
  m.kind = hw::EltKind::kLut;
  m.aSigned = isSignedType(in.type);
  m.lut = std::move(table).value();
  const bool isSigned = isSignedType(out.type);
  m.clamp = ClampRange{isSigned ? -128 : 0, isSigned ? 127 : 255};
  auto layer = std::make_shared<EltwiseLayer>();
  layer->operationIndex = index;
  layer->type = op.type;
  layer->math = std::move(m);
  const DataLayout layout = in.dimensions.size() == 4 ? DataLayout::kAny : DataLayout::kFlat;
  layer->inputs = {{op.inputs[0], paddedImage(in.dimensions), layout}};
  layer->outputs = {{op.outputs[0], paddedImage(in.dimensions), layout}};
  LoweredOperation lo;
  lo.vector = std::move(layer);
  lo.outputDims = in.dimensions;
  return lo;
}

}  // namespace weft::accel
