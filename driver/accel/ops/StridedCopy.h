// Copies of strided boxes of bytes on the vector unit (ELTWISE kind copy through the
// scratchpad): TRANSPOSE (attention's head split and merge), SLICE, GATHER with constant
// indices, and BATCH_MATMUL's adj_x.
//
// A box is a set of axes, each with its size and its strides in the input and in the output.
// Before it is cut into commands, axes of size 1 are dropped, and consecutive axes that are
// consecutive in both tensors become one (an identity permutation is one axis: a flat copy).
// When the innermost axis is contiguous in both, its values are the channels and move a
// scratchpad row of Cols bytes at a time (attention's [B, S, H, D] -> [B, H, S, D]); when it is
// not (a matrix transpose), each value is a pixel of its own bytes, a scratchpad row per value,
// since no unit moves bytes across lanes. The rest are up to three pixel axes a piece
// (batch, row, column), and any axes beyond them are walked piece by piece.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../Lowering.h"
#include "../VectorLayer.h"
#include "OperationReader.h"

namespace weft::accel {

struct CopyAxis {
  uint64_t size = 1;
  uint64_t inputStride = 0, outputStride = 0;  // bytes between consecutive indexes
};

struct CopyBox {
  uint64_t inputOffset = 0, outputOffset = 0;  // bytes, of the box's first value
  std::vector<CopyAxis> axes;                  // outermost first
};

// The strides of a dense tensor of `dims`, in bytes, `valueBytes` a value.
std::vector<uint64_t> denseStrides(const std::vector<uint32_t>& dims, uint32_t valueBytes);

// out = in with its axes permuted (output axis k is input axis perm[k]), both dense.
CopyBox permutedBox(const std::vector<uint32_t>& dims, const std::vector<uint32_t>& perm, uint32_t valueBytes);

// A layer copying each box; the caller sets its operation, tensors (as flat bytes) and value type.
// `description` is what the reports call it.
std::shared_ptr<VectorLayer> stridedCopyLayer(std::vector<CopyBox> boxes, uint32_t valueBytes, std::string description);

// A strided copy (TRANSPOSE, SLICE, GATHER: stridedCopyLayer) whose input or output the plan
// keeps as an image instead of dense bytes (an NCHW tensor as an NHWC image of [N, H, W, C], or a
// tensor with a halo a convolution reads): the same copy with its boxes' strides and offsets on
// the image. `inDims` and `outDims` are the tensors' logical dimensions; `inStrides` and
// `outStrides` the byte strides of their logical axes where kept (null: dense bytes). Null when
// `copy` is not a strided copy.
std::shared_ptr<VectorLayer> onKeptImages(const VectorLayer& copy, const std::vector<uint32_t>& inDims,
                                          const std::vector<uint64_t>* inStrides, const std::vector<uint32_t>& outDims,
                                          const std::vector<uint64_t>* outStrides);

// What the operations that copy input 0's bytes into output 0 check first: the reference kernel's
// operand rules (so that both devices accept the same models), input 0 quant8 (or binary16 on
// the fp16 datapath) of rank 1 to 4, and the output of its type and quantization.
nn::Status checkCopiedOperands(const OperationReader& r);

// Such an operation lowered: `boxes` of input 0 copied into output 0 of `outDims`, both dense
// (kFlat), the layer of value type r.valueType(input 0).
nn::Result<LoweredOperation> lowerToCopies(const OperationReader& r, uint32_t index, std::vector<CopyBox> boxes,
                                           nn::Dimensions outDims, std::string description);

}  // namespace weft::accel
