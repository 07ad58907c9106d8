// What the converters share: reading a node's inputs as NNAPI operands, static shapes, constant
// attributes given as inputs, NNAPI's explicit padding from ONNX's pads and auto_pad, and the
// few NNAPI idioms several operators need (a RESHAPE to a static shape, a broadcast).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../ImportError.h"
#include "../Lowering.h"

namespace weft::onnx::ops {

// NNAPI's FuseCode NONE and RELU6, for the arithmetic and convolution operations.
constexpr int32_t kFuseNone = 0;
constexpr int32_t kFuseRelu6 = 3;

inline const Shape& shapeOf(Lowering& l, const std::string& value) { return l.info(value).shape; }
inline DType typeOf(Lowering& l, const std::string& value) { return l.info(value).type; }
inline size_t rankOf(Lowering& l, const std::string& value) { return l.info(value).shape.size(); }

// The node's input i as an operand; ImportError when it is omitted.
uint32_t in(const Node& node, Lowering& l, size_t i);
// Input i, which must be a constant (shapes, axes, pads given as inputs), as int64 values; `what`
// names it in the error otherwise.
std::vector<int64_t> constantInts(const Node& node, Lowering& l, size_t i, const std::string& what);
// Input i as a constant tensor; ImportError naming `what` when it is computed at run time.
const HostTensor& constantInput(const Node& node, Lowering& l, size_t i, const std::string& what);

// An axis in [-rank, rank) normalized to [0, rank); ImportError otherwise.
int64_t axisIn(const Node& node, int64_t axis, size_t rank);

// Refuses the node when an attribute outside `known` is present, or when an attribute has a value
// other than the one the importer implements.
void onlyAttributes(const Node& node, const std::vector<std::string>& known);
void requireAttr(const Node& node, const std::string& attribute, int64_t expected, int64_t fallback);

// The float types NNAPI's float operations take; ImportError naming the type otherwise.
void requireFloat(const Node& node, Lowering& l, const std::string& value);

// The same, or a quantized value (the converters the quantized registry shares with the float
// one: pooling, activations, softmax).
void requireFloatOrQuantized(const Node& node, Lowering& l, const std::string& value);

// RESHAPE of `input` to `shape` into `output` (a static shape: no -1).
void reshapeTo(Lowering& l, uint32_t input, const Shape& shape, uint32_t output);
// `pool` (AVERAGE_POOL_2D or MAX_POOL_2D) of an NCHW image `x` with one window over its whole
// plane: the global pools and spatial reductions, in the form the accelerator's vector unit runs
// (NNAPI's MEAN over NCHW's spatial axes stays on the CPU).
void poolWholePlane(Lowering& l, nn::OperationType pool, uint32_t input, const Shape& x, uint32_t output);
// A new operand holding `input` reshaped to `shape`.
uint32_t reshaped(Lowering& l, uint32_t input, const Shape& shape, const std::string& name);

// TRANSPOSE of `input`, read as a tensor of shape `x` (its operand may hold the same elements in
// another shape), by `perm` into `out`, whose `shape` may be any reshape of the permuted one. At
// most rank-4 TRANSPOSEs run: unit dimensions are dropped and dimensions that stay neighbours
// merged, and more than four groups take one rank-4 step a group; none runs when the order of
// the elements does not change. `name` prefixes the temporaries.
void permuteInto(Lowering& l, uint32_t input, const Shape& x, const std::vector<int64_t>& perm, const Shape& shape,
                 uint32_t out, const std::string& name);

// `input` (of ONNX value `value`) broadcast to `shape` as a new operand: ADD of zeros for
// numbers, LOGICAL_OR with false for booleans (NNAPI's element-wise operations broadcast).
uint32_t broadcastTo(Lowering& l, const std::string& value, uint32_t input, const Shape& shape);

// NNAPI's explicit padding of a 2-D window (height and width, NCHW) from ONNX's pads / auto_pad.
// With ceilOutput (ceil_mode), the bottom and right padding grow until NNAPI's rounded-down
// output has that shape.
struct Padding2d {
  int32_t top = 0, left = 0, bottom = 0, right = 0;
};
Padding2d windowPadding(const Node& node, const Shape& input, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                        const Shape* ceilOutput = nullptr);

// A new temporary of `like`'s NNAPI type and quantization with another shape.
uint32_t temporaryLike(Lowering& l, uint32_t like, const Shape& shape, const std::string& name);

// The geometry of a 2-D convolution (NCHW input, [out, in/groups, h, w] weights): its kernel,
// strides and dilations, and NNAPI's explicit padding.
struct ConvGeometry {
  std::vector<int64_t> kernel, strides, dilations;
  Padding2d pad;
};
ConvGeometry convGeometry(const Node& node, const Shape& input, const Shape& weights);

// A float tensor's values as float (float16 widened): weights rearranged at import.
std::vector<float> toFloats(const HostTensor& t);
// CAST of `input` into `output`, or a RESHAPE where the two have one NNAPI type (int32 and
// int64 are both TENSOR_INT32).
void castOrCopy(Lowering& l, uint32_t input, const Shape& shape, uint32_t output);

// A constant operand of `values` (float32) with `shape`.
uint32_t floatConstant(Lowering& l, const std::vector<float>& values, const Shape& shape, const std::string& name);
// A constant of the same NNAPI float type as `like` (float32 or float16): what NNAPI's float
// operations need of their second operand.
uint32_t floatConstantLike(Lowering& l, const std::string& like, const std::vector<float>& values, const Shape& shape,
                           const std::string& name);
// A scalar of the float type of ONNX value `like` (FLOAT32 or FLOAT16), as NNAPI's float
// operations take their scalar parameters.
uint32_t floatScalarLike(Lowering& l, const std::string& like, float value);

// A 1-D convolution or pool ([N, C, W]) converted as the 2-D one ([N, C, 1, W]): its input,
// weights and output seen with a unit height, its window attributes given that height, the
// 2-D converter run on that node, and the result reshaped back.
void convertAs2d(const Node& node, Lowering& l, const Converter& convert2d);

}  // namespace weft::onnx::ops
