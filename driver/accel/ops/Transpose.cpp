// TRANSPOSE on the vector unit (PermuteLayer.h): quant8 asymmetric or signed, and with the fp16
// datapath TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32, binary16 on the device), rank up to 4, a
// constant permutation (omitted: the axes reversed, as NNAPI says). The output keeps the input's
// quantization (NNAPI requires it), so the copy moves bytes unchanged.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "../RuntimeOperands.h"
#include "../ModelAccess.h"
#include "EltwiseLayer.h"
#include "Families.h"
#include "PermuteLayer.h"
#include "weft/kernels/CpuExecutor.h"

namespace weft::accel {
namespace {

// An output axis as the copy walks it: its size and the input bytes between its steps.
struct Axis {
  uint64_t size = 1, inputStride = 0;
};

class PermuteLayer final : public VectorLayer {
 public:
  std::vector<uint32_t> dims, perm;
  uint32_t bytes = 1;  // a value's

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override {
    return {copyParamRow(config)};
  }

  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& out) const override {
    std::vector<Axis> axes = outputAxes();
    // The channel run: the innermost output axis when it is contiguous in the input, else a value.
    uint64_t channels = bytes;
    if (!axes.empty() && axes.back().inputStride == bytes) {
      channels = axes.back().size * bytes;
      axes.pop_back();
    }
    if (channels > UINT32_MAX) return NN_ERROR(BAD_DATA) << "a transposed run of " << channels << " bytes";
    // Three pixel axes (batch, row, pixel) per piece; a fourth is walked piece by piece.
    Axis outer;
    if (axes.size() == 4) {
      outer = axes.front();
      axes.erase(axes.begin());
    }
    while (axes.size() < 3) axes.insert(axes.begin(), Axis{});
    std::array<uint64_t, 3> outputStride{};
    uint64_t stride = channels;
    for (int k = 2; k >= 0; --k) {
      outputStride[k] = stride;
      stride *= axes[k].size;
    }
    const uint32_t C = config.cols();
    EltwiseEmitter emitter(config, out);
    NN_TRY(emitter.begin(where.constants[0], std::nullopt));
    const ImageShape shape{static_cast<uint32_t>(axes[0].size), static_cast<uint32_t>(axes[1].size),
                           static_cast<uint32_t>(axes[2].size), static_cast<uint32_t>(channels)};
    for (uint64_t i = 0; i < outer.size; ++i) {
      const LaneImage src{ImageView{where.inputs[0].origin + i * outer.inputStride, axes[2].inputStride,
                                    axes[1].inputStride, axes[0].inputStride},
                          shape, C};
      const LaneImage dst{ImageView{where.outputs[0].origin + i * stride, outputStride[2], outputStride[1],
                                    outputStride[0]},
                          shape, C};
      NN_TRY(emitter.piece(byteCopy(), src, nullptr, dst));
    }
    return {};
  }

  uint64_t laneOps() const override {
    return std::accumulate(dims.begin(), dims.end(), uint64_t{1}, std::multiplies<>());
  }
  std::string describe() const override {
    return fmt::format("transpose {} perm ({})", fmt::join(dims, "x"), fmt::join(perm, ","));
  }

 private:
  // The output's axes, outermost first, without those of size 1 and with those that are
  // consecutive in the input merged (an identity permutation is one axis: a flat copy).
  std::vector<Axis> outputAxes() const {
    std::vector<uint64_t> inputStride(dims.size());
    uint64_t s = bytes;
    for (size_t i = dims.size(); i-- > 0;) {
      inputStride[i] = s;
      s *= dims[i];
    }
    std::vector<Axis> axes;
    for (uint32_t p : perm) {
      const Axis a{dims[p], inputStride[p]};
      if (a.size == 1) continue;
      if (!axes.empty() && axes.back().inputStride == a.size * a.inputStride) {
        axes.back() = Axis{axes.back().size * a.size, a.inputStride};
      } else {
        axes.push_back(a);
      }
    }
    return axes;
  }
};

}  // namespace

std::shared_ptr<VectorLayer> permuteLayer(const std::vector<uint32_t>& dims, const std::vector<uint32_t>& perm,
                                          uint32_t valueBytes) {
  auto layer = std::make_shared<PermuteLayer>();
  layer->dims = dims;
  layer->perm = perm;
  layer->bytes = valueBytes;
  return layer;
}

nn::Result<LoweredOperation> lowerTranspose(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  // The operand rules are the reference kernel's, so that both devices accept the same models.
  if (nn::Status valid = nn::validateOperation(r.model(), r.model().main, r.op()); !valid.ok()) {
    return r.fail("{}", valid.error().message);
  }
  const nn::Operand& in = r.input(0);
  const nn::Operand& out = r.output(0);
  NN_TRY(r.halfType(in) ? r.halfTensor(in, "input", 1, 4) : r.quant8Tensor(in, "input", 1, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  const size_t rank = in.dimensions.size();
  std::vector<uint32_t> perm(rank);
  const nn::Operand& permOperand = r.input(1);
  if (isOmitted(permOperand)) {
    for (size_t k = 0; k < rank; ++k) perm[k] = static_cast<uint32_t>(rank - 1 - k);
  } else {
    const uint8_t* values = constantBytes(r.model(), permOperand);
    if (values == nullptr) return r.fail("the permutation is given at execution (only a constant one is supported)");
    if (nn::numberOfElements(permOperand.dimensions) != rank || permOperand.location.length < 4 * rank) {
      return r.fail("the permutation has not {} values", rank);
    }
    std::vector<bool> seen(rank);
    for (size_t k = 0; k < rank; ++k) {
      int32_t p;
      std::memcpy(&p, values + 4 * k, 4);
      if (p < 0 || static_cast<size_t>(p) >= rank || seen[p]) return r.fail("the permutation is not one of {} axes", rank);
      seen[p] = true;
      perm[k] = static_cast<uint32_t>(p);
    }
  }
  nn::Dimensions outDims(rank);
  for (size_t k = 0; k < rank; ++k) outDims[k] = in.dimensions[perm[k]];
  NN_TRY(r.checkOutputDims(outDims));
  const ElementType type = r.valueType(in);
  auto layer = permuteLayer(in.dimensions, perm, bytesPerElement(type));
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->valueType = type;
  const uint64_t bytes = nn::numberOfElements(in.dimensions) * bytesPerElement(type);
  if (bytes > UINT32_MAX) return r.fail("the tensor of {} bytes is over 4 GiB", bytes);
  const ImageShape flat{1, 1, 1, static_cast<uint32_t>(bytes)};
  layer->inputs = {{r.op().inputs[0], flat, DataLayout::kFlat}};
  layer->outputs = {{r.op().outputs[0], flat, DataLayout::kFlat}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = std::move(outDims);
  return LoweredOperation(std::move(lo));
}

}  // namespace weft::accel
