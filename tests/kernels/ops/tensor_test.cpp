// The shape, data-movement, image, normalization and matrix / convolution-variant operations
// (kernels_ref/ops/Transpose.cpp ... TransposeConv2D.cpp):
//  - every constraint the validation checks is BAD_DATA at validation;
//  - value errors the validation cannot see (request-supplied indices, sizes, axes) fail the
//    execution with BAD_DATA and leave the guard bytes around the outputs intact;
//  - BATCH_MATMUL against a plain-loop formulation on randomized shapes, adjoint flags and
//    quantization parameters, in float32, float16, int32 and quant8 asymm signed.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "OpModelBuilder.h"
#include "PropertyTestUtils.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::test {
namespace {

using nn::OperandType;
using nn::OperationType;
using Tensor = OpModelBuilder::Tensor;

std::vector<uint8_t> ints(const std::vector<int32_t>& v) { return OpModelBuilder::bytesOf(v); }

// A request-supplied 1-D TENSOR_INT32.
uint32_t requestInts(OpModelBuilder& m, const std::vector<int32_t>& v) {
  return m.input(i32({static_cast<uint32_t>(v.size())}), ints(v));
}
uint32_t constInts(OpModelBuilder& m, nn::Dimensions dims, const std::vector<int32_t>& v) {
  return m.constant(i32(std::move(dims)), v);
}

// One operation `type` over `inputs` (built by `makeInputs`) with one output `out`.
template <typename MakeInputs>
OpModelBuilder single(OperationType type, const Tensor& out, MakeInputs makeInputs) {
  OpModelBuilder m;
  std::vector<uint32_t> inputs = makeInputs(m);
  const uint32_t output = m.output(out);
  m.operation(type, std::move(inputs), {output});
  return m;
}

// --- Shape and data movement -------------------------------------------------------------------

TEST(TensorOpsValidation, TransposeRejectsTypeRankPermAndQuantization) {
  expectBadData(single(OperationType::TRANSPOSE, i32({2, 2}),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, i32({2, 2})),
                                                                            constInts(m, {2}, {1, 0})}; })
                    .validate(),
                "unsupported input type");
  expectBadData(single(OperationType::TRANSPOSE, f32({1, 1, 1, 1, 2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({2, 1, 1, 1, 1})),
                                                      constInts(m, {5}, {4, 3, 2, 1, 0})};
                       })
                    .validate(),
                "rank");
  expectBadData(single(OperationType::TRANSPOSE, f32({2, 2}),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, f32({2, 2})),
                                                                            constInts(m, {1, 2}, {1, 0})}; })
                    .validate(),
                "rank");
  expectBadData(single(OperationType::TRANSPOSE, q8({2, 2}, 0.25f),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, q8({2, 2})),
                                                                            constInts(m, {2}, {1, 0})}; })
                    .validate(),
                "quantization");
  expectBadData(single(OperationType::TRANSPOSE, f32({2, 2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{m.omitted(OperandType::TENSOR_FLOAT32),
                                                      constInts(m, {2}, {1, 0})};
                       })
                    .validate(),
                "only perm may be omitted");
}

TEST(TensorOpsExecution, TransposeRejectsANonPermutation) {
  expectExecutionBadData(single(OperationType::TRANSPOSE, f32({3, 2}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2, 3})), requestInts(m, {0, 0})};
                                }),
                         "permutation");
  expectExecutionBadData(single(OperationType::TRANSPOSE, f32({3, 2}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2, 3})), requestInts(m, {1, 0, 2})};
                                }),
                         "wrong length");
}

TEST(TensorOpsExecution, TransposeWithOmittedPermReverses) {
  OpModelBuilder m = single(OperationType::TRANSPOSE, f32({3, 2}), [](OpModelBuilder& b) {
    return std::vector<uint32_t>{b.input(f32({2, 3}), OpModelBuilder::bytesOf(std::vector<float>{1, 2, 3, 4, 5, 6})),
                                 b.omitted(OperandType::TENSOR_INT32)};
  });
  ASSERT_TRUE(m.validate().ok());
  const auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << run.result.error().message;
  EXPECT_EQ(OpModelBuilder::as<float>(run.outputs[0]), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(TensorOpsValidation, SqueezeRejectsTypeAndRank) {
  expectBadData(single(OperationType::SQUEEZE, i32({2}),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, i32({2, 1})),
                                                                            constInts(m, {1}, {1})}; })
                    .validate(),
                "unsupported input type");
  expectBadData(single(OperationType::SQUEEZE, f32({2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({2, 1, 1, 1, 1})), constInts(m, {1}, {1})};
                       })
                    .validate(),
                "rank");
}

TEST(TensorOpsExecution, SqueezeRejectsANonUnitOrOutOfRangeDimension) {
  expectExecutionBadData(single(OperationType::SQUEEZE, f32({2}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2, 1})), requestInts(m, {0})};
                                }),
                         "cannot squeeze");
  expectExecutionBadData(single(OperationType::SQUEEZE, f32({2}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2, 1})), requestInts(m, {2})};
                                }),
                         "axis");
}

TEST(TensorOpsValidation, ExpandDimsRejectsTypeAndConstantAxis) {
  expectBadData(single(OperationType::EXPAND_DIMS, {OperandType::TENSOR_BOOL8, {1, 2}},
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, {OperandType::TENSOR_BOOL8, {2}}), m.int32Scalar(0)};
                       })
                    .validate(),
                "unsupported input type");
  expectBadData(single(OperationType::EXPAND_DIMS, f32({2, 1}),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, f32({2})), m.int32Scalar(2)}; })
                    .validate(),
                "axis");
}

TEST(TensorOpsExecution, ExpandDimsRejectsARequestAxisOutOfRange) {
  expectExecutionBadData(single(OperationType::EXPAND_DIMS, f32({2, 1}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2})), requestInt32(m, -3)};
                                }),
                         "axis");
}

TEST(TensorOpsValidation, GatherRejectsAxisAndIndicesType) {
  expectBadData(single(OperationType::GATHER, f32({2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({3, 2})), m.int32Scalar(2),
                                                      constInts(m, {1}, {0})};
                       })
                    .validate(),
                "axis");
  expectBadData(single(OperationType::GATHER, f32({1, 2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({3, 2})), m.int32Scalar(0),
                                                      m.constant(f32({1}), std::vector<float>{0.0f})};
                       })
                    .validate(),
                "input 2");
}

TEST(TensorOpsExecution, GatherRejectsIndicesOutOfRange) {
  for (int32_t bad : {3, -1}) {
    expectExecutionBadData(single(OperationType::GATHER, f32({2, 2}),
                                  [bad](OpModelBuilder& m) {
                                    return std::vector<uint32_t>{zeroInput(m, f32({3, 2})), m.int32Scalar(0),
                                                                 requestInts(m, {0, bad})};
                                  }),
                           "out of range");
  }
}

TEST(TensorOpsValidation, SliceRejectsParameterRank) {
  expectBadData(single(OperationType::SLICE, f32({1, 1}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({2, 2})), constInts(m, {1, 2}, {0, 0}),
                                                      constInts(m, {2}, {1, 1})};
                       })
                    .validate(),
                "rank");
}

TEST(TensorOpsExecution, SliceRejectsWindowsOutsideTheInput) {
  expectExecutionBadData(single(OperationType::SLICE, f32({2, 2}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2, 2})), requestInts(m, {1, 0}),
                                                               requestInts(m, {2, 2})};
                                }),
                         "exceeds");
  expectExecutionBadData(single(OperationType::SLICE, f32({1, 1}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2, 2})), requestInts(m, {-1, 0}),
                                                               requestInts(m, {1, 1})};
                                }),
                         "begin");
}

OpModelBuilder stridedSlice(std::vector<int32_t> begin, std::vector<int32_t> end, std::vector<int32_t> strides,
                            int32_t shrinkMask, const Tensor& out) {
  return single(OperationType::STRIDED_SLICE, out, [&](OpModelBuilder& m) {
    return std::vector<uint32_t>{zeroInput(m, f32({4})), requestInts(m, begin), requestInts(m, end),
                                 requestInts(m, strides), m.int32Scalar(0), m.int32Scalar(0),
                                 m.int32Scalar(shrinkMask)};
  });
}

TEST(TensorOpsValidation, StridedSliceRejectsInt32Tensors) {
  expectBadData(single(OperationType::STRIDED_SLICE, i32({2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, i32({4})), constInts(m, {1}, {0}),
                                                      constInts(m, {1}, {2}), constInts(m, {1}, {1}), m.int32Scalar(0),
                                                      m.int32Scalar(0), m.int32Scalar(0)};
                       })
                    .validate(),
                "unsupported input type");
}

TEST(TensorOpsExecution, StridedSliceRejectsZeroStridesAndBadShrinks) {
  expectExecutionBadData(stridedSlice({0}, {4}, {0}, 0, f32({4})), "zero");
  expectExecutionBadData(stridedSlice({0}, {2}, {1}, 1, f32({1})), "exactly one element");
  expectExecutionBadData(stridedSlice({1}, {0}, {-1}, 1, f32({1})), "positive stride");
}

TEST(TensorOpsValidation, SplitRejectsOutputCountAndTypes) {
  {
    OpModelBuilder m;
    const auto in = zeroInput(m, f32({4}));
    const auto a = m.output(f32({2})), b = m.output(f32({2}));
    m.operation(OperationType::SPLIT, {in, m.int32Scalar(0), m.int32Scalar(3)}, {a, b});
    expectBadData(m.validate(), "num_splits");
  }
  {
    OpModelBuilder m;
    const auto in = zeroInput(m, f32({4}));
    const auto a = m.output(f32({2})), b = m.output(i32({2}));
    m.operation(OperationType::SPLIT, {in, m.int32Scalar(0), m.int32Scalar(2)}, {a, b});
    expectBadData(m.validate(), "input's type");
  }
}

TEST(TensorOpsExecution, SplitRejectsAnIndivisibleDimension) {
  OpModelBuilder m;
  const auto in = zeroInput(m, f32({5}));
  const auto a = m.output(f32({2})), b = m.output(f32({2}));
  m.operation(OperationType::SPLIT, {in, m.int32Scalar(0), m.int32Scalar(2)}, {a, b});
  expectExecutionBadData(m, "does not split");
}

TEST(TensorOpsValidation, TileRejectsMultiplesRank) {
  expectBadData(single(OperationType::TILE, f32({4}),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, f32({2})),
                                                                            constInts(m, {1, 1}, {2})}; })
                    .validate(),
                "rank");
}

TEST(TensorOpsExecution, TileRejectsNegativeOrMisshapedMultiples) {
  expectExecutionBadData(single(OperationType::TILE, f32({2}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2})), requestInts(m, {-1})};
                                }),
                         "negative");
  expectExecutionBadData(single(OperationType::TILE, f32({2}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2})), requestInts(m, {1, 1})};
                                }),
                         "wrong length");
}

TEST(TensorOpsValidation, PackRejectsMixedTypesQuantizationAndAxis) {
  expectBadData(single(OperationType::PACK, f32({2, 2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{m.int32Scalar(0), zeroInput(m, f32({2})), zeroInput(m, i32({2}))};
                       })
                    .validate(),
                "another type");
  expectBadData(single(OperationType::PACK, q8({2, 2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{m.int32Scalar(0), zeroInput(m, q8({2})),
                                                      zeroInput(m, q8({2}, 0.25f))};
                       })
                    .validate(),
                "quantization");
  expectBadData(single(OperationType::PACK, f32({2, 2}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{m.int32Scalar(2), zeroInput(m, f32({2})), zeroInput(m, f32({2}))};
                       })
                    .validate(),
                "axis");
}

TEST(TensorOpsExecution, PackRejectsInputsOfDifferentShapes) {
  OpModelBuilder m;
  const auto axis = m.int32Scalar(0);
  const auto a = m.input(f32({0}), zeros(f32({2})), {2});
  const auto b = m.input(f32({0}), zeros(f32({3})), {3});
  const auto out = m.output(f32({2, 2}));
  m.operation(OperationType::PACK, {axis, a, b}, {out});
  expectExecutionBadData(m, "has shape");
}

TEST(TensorOpsValidation, ReverseRejectsMoreThanOneAxis) {
  expectBadData(single(OperationType::REVERSE, f32({2, 2}),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, f32({2, 2})),
                                                                            constInts(m, {2}, {0, 1})}; })
                    .validate(),
                "exactly one axis");
}

TEST(TensorOpsExecution, ReverseRejectsAnAxisOutOfRange) {
  expectExecutionBadData(single(OperationType::REVERSE, f32({2, 2}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2, 2})), requestInts(m, {2})};
                                }),
                         "axis");
}

TEST(TensorOpsValidation, PadV2RejectsPadValueTypeAndRange) {
  expectBadData(single(OperationType::PAD_V2, q8({4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, q8({2})), constInts(m, {1, 2}, {1, 1}),
                                                      m.floatScalar(0.0f)};
                       })
                    .validate(),
                "input 2");
  expectBadData(single(OperationType::PAD_V2, q8({4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, q8({2})), constInts(m, {1, 2}, {1, 1}),
                                                      m.int32Scalar(300)};
                       })
                    .validate(),
                "pad value");
}

TEST(TensorOpsExecution, PadV2RejectsNegativeOrMisshapedPaddings) {
  expectExecutionBadData(single(OperationType::PAD_V2, f32({1}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2})),
                                                               m.input(i32({1, 2}), ints({-1, 0})), m.floatScalar(0)};
                                }),
                         "non-negative");
  expectExecutionBadData(single(OperationType::PAD_V2, f32({4}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2})),
                                                               m.input(i32({2, 2}), ints({1, 1, 0, 0})),
                                                               m.floatScalar(0)};
                                }),
                         "paddings must have shape");
}

TEST(TensorOpsValidation, MirrorPadRejectsAnUnknownMode) {
  expectBadData(single(OperationType::MIRROR_PAD, f32({4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({2})), constInts(m, {1, 2}, {1, 1}),
                                                      m.int32Scalar(2)};
                       })
                    .validate(),
                "mode");
}

TEST(TensorOpsExecution, MirrorPadRejectsPaddingsLargerThanTheMirror) {
  // REFLECT mirrors at most size - 1 elements, SYMMETRIC at most size.
  expectExecutionBadData(single(OperationType::MIRROR_PAD, f32({6}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2})),
                                                               m.input(i32({1, 2}), ints({2, 2})), m.int32Scalar(0)};
                                }),
                         "exceed");
  expectExecutionBadData(single(OperationType::MIRROR_PAD, f32({8}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({2})),
                                                               m.input(i32({1, 2}), ints({3, 3})), m.int32Scalar(1)};
                                }),
                         "exceed");
}

TEST(TensorOpsValidation, DepthToSpaceAndSpaceToDepthRejectBlockSizeAndRank) {
  for (OperationType op : {OperationType::DEPTH_TO_SPACE, OperationType::SPACE_TO_DEPTH}) {
    expectBadData(single(op, f32({1, 2, 2, 4}),
                         [](OpModelBuilder& m) {
                           return std::vector<uint32_t>{zeroInput(m, f32({1, 2, 2, 4})), m.int32Scalar(0)};
                         })
                      .validate(),
                  "block size");
    expectBadData(single(op, f32({2, 2, 4}),
                         [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, f32({2, 2, 4})),
                                                                              m.int32Scalar(2)}; })
                      .validate(),
                  "rank");
  }
}

TEST(TensorOpsExecution, DepthToSpaceAndSpaceToDepthRejectIndivisibleSizes) {
  expectExecutionBadData(single(OperationType::DEPTH_TO_SPACE, f32({1, 4, 4, 0}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 2, 2, 3})), requestInt32(m, 2)};
                                }),
                         "not a multiple");
  expectExecutionBadData(single(OperationType::SPACE_TO_DEPTH, f32({1, 1, 1, 0}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 3, 2, 1})), requestInt32(m, 2)};
                                }),
                         "multiples of block size");
}

TEST(TensorOpsValidation, BatchToSpaceAndSpaceToBatchRejectParameterRanks) {
  expectBadData(single(OperationType::BATCH_TO_SPACE_ND, f32({1, 2, 2, 1}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({4, 1, 1, 1})), constInts(m, {1, 2}, {2, 2})};
                       })
                    .validate(),
                "rank");
  expectBadData(single(OperationType::SPACE_TO_BATCH_ND, f32({4, 1, 1, 1}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({1, 2, 2, 1})), constInts(m, {2}, {2, 2}),
                                                      constInts(m, {4}, {0, 0, 0, 0})};
                       })
                    .validate(),
                "rank");
}

TEST(TensorOpsExecution, BatchToSpaceAndSpaceToBatchRejectBadBlocks) {
  expectExecutionBadData(single(OperationType::BATCH_TO_SPACE_ND, f32({1, 2, 2, 1}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({4, 1, 1, 1})), requestInts(m, {0, 2})};
                                }),
                         "positive");
  expectExecutionBadData(single(OperationType::BATCH_TO_SPACE_ND, f32({1, 2, 2, 1}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({3, 1, 1, 1})), requestInts(m, {2, 2})};
                                }),
                         "block area");
  expectExecutionBadData(single(OperationType::SPACE_TO_BATCH_ND, f32({4, 1, 1, 1}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 3, 2, 1})), requestInts(m, {2, 2}),
                                                               m.input(i32({2, 2}), ints({0, 0, 0, 0}))};
                                }),
                         "not a multiple");
  expectExecutionBadData(single(OperationType::SPACE_TO_BATCH_ND, f32({4, 1, 1, 1}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 2, 2, 1})), requestInts(m, {2, 2}),
                                                               m.input(i32({2, 2}), ints({-2, 2, 0, 0}))};
                                }),
                         "non-negative");
}

TEST(TensorOpsValidation, ChannelShuffleRejectsGroupsAndAxis) {
  expectBadData(single(OperationType::CHANNEL_SHUFFLE, f32({1, 4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({1, 4})), m.int32Scalar(0), m.int32Scalar(1)};
                       })
                    .validate(),
                "num_groups");
  expectBadData(single(OperationType::CHANNEL_SHUFFLE, f32({1, 4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({1, 4})), m.int32Scalar(2), m.int32Scalar(2)};
                       })
                    .validate(),
                "axis");
}

TEST(TensorOpsExecution, ChannelShuffleRejectsIndivisibleChannels) {
  expectExecutionBadData(single(OperationType::CHANNEL_SHUFFLE, f32({1, 5}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 5})), requestInt32(m, 2),
                                                               m.int32Scalar(1)};
                                }),
                         "does not split");
}

// --- Image -------------------------------------------------------------------------------------

TEST(TensorOpsValidation, ResizeRejectsScalarTypesFlagsAndSizes) {
  const Tensor image = f32({1, 2, 2, 1});
  // A float16 scale for a float32 image.
  expectBadData(single(OperationType::RESIZE_BILINEAR, f32({1, 4, 4, 1}),
                       [&](OpModelBuilder& m) {
                         const auto s = m.constant<nn::Float16>({OperandType::FLOAT16, {}}, {nn::Float16(2.0f)});
                         return std::vector<uint32_t>{zeroInput(m, image), s, s};
                       })
                    .validate(),
                "output size");
  // align_corners and half_pixel_centers together.
  expectBadData(single(OperationType::RESIZE_NEAREST_NEIGHBOR, f32({1, 4, 4, 1}),
                       [&](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, image), m.int32Scalar(4), m.int32Scalar(4),
                                                      m.boolScalar(false), m.boolScalar(true), m.boolScalar(true)};
                       })
                    .validate(),
                "exclude each other");
  expectBadData(single(OperationType::RESIZE_BILINEAR, f32({1, 4, 4, 1}),
                       [&](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, image), m.int32Scalar(0), m.int32Scalar(4)};
                       })
                    .validate(),
                "positive");
  // RESIZE_NEAREST_NEIGHBOR always takes the layout flag.
  expectBadData(single(OperationType::RESIZE_NEAREST_NEIGHBOR, f32({1, 4, 4, 1}),
                       [&](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, image), m.int32Scalar(4), m.int32Scalar(4)};
                       })
                    .validate(),
                "inputs");
  expectBadData(single(OperationType::RESIZE_BILINEAR, q8({1, 4, 4, 1}, 0.25f),
                       [&](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, q8({1, 2, 2, 1})), m.int32Scalar(4),
                                                      m.int32Scalar(4)};
                       })
                    .validate(),
                "quantization");
}

TEST(TensorOpsExecution, ResizeRejectsRequestSizesAndScalesThatGiveNoPixels) {
  expectExecutionBadData(single(OperationType::RESIZE_BILINEAR, f32({1, 0, 0, 1}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 2, 2, 1})), requestInt32(m, -4),
                                                               requestInt32(m, 4)};
                                }),
                         "must be positive");
  expectExecutionBadData(single(OperationType::RESIZE_NEAREST_NEIGHBOR, f32({1, 0, 0, 1}),
                                [](OpModelBuilder& m) {
                                  const auto scale =
                                      m.input({OperandType::FLOAT32, {}}, OpModelBuilder::bytesOf(std::vector<float>{0.1f}));
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 2, 2, 1})), scale, scale,
                                                               m.boolScalar(false)};
                                }),
                         "must be positive");
}

// --- Normalization -----------------------------------------------------------------------------

TEST(TensorOpsValidation, L2NormalizationRejectsOutputQuantizationRankAndAxis) {
  expectBadData(single(OperationType::L2_NORMALIZATION, q8({1, 4}, 0.5f, 128),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, q8({1, 4}))}; })
                    .validate(),
                "1/128");
  expectBadData(single(OperationType::L2_NORMALIZATION, f32({1, 1, 1, 1, 4}),
                       [](OpModelBuilder& m) { return std::vector<uint32_t>{zeroInput(m, f32({1, 1, 1, 1, 4}))}; })
                    .validate(),
                "rank");
  expectBadData(single(OperationType::L2_NORMALIZATION, f32({1, 4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({1, 4})), m.int32Scalar(2)};
                       })
                    .validate(),
                "axis");
}

TEST(TensorOpsValidation, LocalResponseNormalizationRejectsTypesAndRadius) {
  expectBadData(single(OperationType::LOCAL_RESPONSE_NORMALIZATION, q8({1, 4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, q8({1, 4})), m.int32Scalar(1), m.floatScalar(1),
                                                      m.floatScalar(1), m.floatScalar(0.5f)};
                       })
                    .validate(),
                "unsupported input type");
  expectBadData(single(OperationType::LOCAL_RESPONSE_NORMALIZATION, f32({1, 4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({1, 4})), m.int32Scalar(-1), m.floatScalar(1),
                                                      m.floatScalar(1), m.floatScalar(0.5f)};
                       })
                    .validate(),
                "radius");
}

TEST(TensorOpsExecution, LocalResponseNormalizationRejectsARequestRadiusBelowZero) {
  expectExecutionBadData(single(OperationType::LOCAL_RESPONSE_NORMALIZATION, f32({1, 4}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 4})), requestInt32(m, -2),
                                                               m.floatScalar(1), m.floatScalar(1), m.floatScalar(0.5f)};
                                }),
                         "radius");
}

TEST(TensorOpsValidation, InstanceNormalizationRejectsRankAndScalarTypes) {
  expectBadData(single(OperationType::INSTANCE_NORMALIZATION, f32({2, 2, 1}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({2, 2, 1})), m.floatScalar(1), m.floatScalar(0),
                                                      m.floatScalar(1e-3f), m.boolScalar(false)};
                       })
                    .validate(),
                "rank");
  expectBadData(single(OperationType::INSTANCE_NORMALIZATION, f16({1, 2, 2, 1}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f16({1, 2, 2, 1})), m.floatScalar(1),
                                                      m.floatScalar(0), m.floatScalar(1e-3f), m.boolScalar(false)};
                       })
                    .validate(),
                "input 1");
}

TEST(TensorOpsValidation, LogSoftmaxRejectsTypesAndAxis) {
  expectBadData(single(OperationType::LOG_SOFTMAX, q8({1, 4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, q8({1, 4})), m.floatScalar(1), m.int32Scalar(1)};
                       })
                    .validate(),
                "unsupported input type");
  expectBadData(single(OperationType::LOG_SOFTMAX, f32({1, 4}),
                       [](OpModelBuilder& m) {
                         return std::vector<uint32_t>{zeroInput(m, f32({1, 4})), m.floatScalar(1), m.int32Scalar(-3)};
                       })
                    .validate(),
                "axis");
}

TEST(TensorOpsExecution, LogSoftmaxRejectsARequestAxisOutOfRange) {
  expectExecutionBadData(single(OperationType::LOG_SOFTMAX, f32({1, 4}),
                                [](OpModelBuilder& m) {
                                  return std::vector<uint32_t>{zeroInput(m, f32({1, 4})), m.floatScalar(1),
                                                               requestInt32(m, 2)};
                                }),
                         "axis");
}

// --- Matrix and convolution variants -----------------------------------------------------------

TEST(TensorOpsValidation, BatchMatmulRejectsTypesAndRanks) {
  auto matmul = [](const Tensor& lhs, const Tensor& rhs, const Tensor& out) {
    return single(OperationType::BATCH_MATMUL, out, [&](OpModelBuilder& m) {
      return std::vector<uint32_t>{zeroInput(m, lhs), zeroInput(m, rhs), m.boolScalar(false), m.boolScalar(false)};
    });
  };
  expectBadData(matmul(f32({2, 2}), i32({2, 2}), f32({2, 2})).validate(), "input 1");
  expectBadData(matmul(q8({2, 2}), q8({2, 2}), q8({2, 2})).validate(), "unsupported input type");
  expectBadData(matmul(f32({2}), f32({2}), f32({1})).validate(), "rank");
  expectBadData(matmul(f32({1, 2, 2}), f32({2, 2}), f32({1, 2, 2})).validate(), "ranks differ");
}

TEST(TensorOpsExecution, BatchMatmulRejectsMismatchedInnerAndBatchDimensions) {
  auto matmul = [](nn::Dimensions lhs, nn::Dimensions rhs) {
    OpModelBuilder m;
    const auto a = m.input(f32({0, 0, 0}), zeros(f32(lhs)), lhs);
    const auto b = m.input(f32({0, 0, 0}), zeros(f32(rhs)), rhs);
    const auto out = m.output(f32({0, 0, 0}), 256);
    m.operation(OperationType::BATCH_MATMUL, {a, b, m.boolScalar(false), m.boolScalar(false)}, {out});
    return m;
  };
  expectExecutionBadData(matmul({1, 2, 3}, {1, 2, 3}), "inner dimensions");
  expectExecutionBadData(matmul({2, 2, 3}, {3, 3, 2}), "batch dimension");
}

// A GROUPED_CONV_2D with implicit padding on a [1, 3, 3, 4] input.
OpModelBuilder groupedConv(const Tensor& filter, const Tensor& bias, uint32_t groups, bool withLayout) {
  OpModelBuilder m;
  const bool quant = filter.type != OperandType::TENSOR_FLOAT32;
  const Tensor input = quant ? q8({1, 3, 3, 4}, 0.5f, 128) : f32({1, 3, 3, 4});
  std::vector<uint32_t> ins{zeroInput(m, input), m.constant(filter, std::vector<uint8_t>(
                                                                        nn::sizeOfData(filter.type, filter.dims))),
                            m.constant(bias, std::vector<uint8_t>(nn::sizeOfData(bias.type, bias.dims)))};
  for (int32_t v : {2, 1, 1}) ins.push_back(m.int32Scalar(v));  // VALID, strides 1
  ins.push_back(m.int32Scalar(static_cast<int32_t>(groups)));
  ins.push_back(m.int32Scalar(0));
  if (withLayout) ins.push_back(m.boolScalar(false));
  const auto out = m.output(quant ? q8({1, 3, 3, 2}, 1.0f, 128) : f32({1, 3, 3, 2}));
  m.operation(OperationType::GROUPED_CONV_2D, ins, {out});
  return m;
}

TEST(TensorOpsValidation, GroupedConvRejectsSignatureFilterAndBias) {
  expectBadData(groupedConv(f32({2, 1, 1, 2}), f32({2}), 2, /*withLayout=*/false).validate(), "inputs");
  expectBadData(groupedConv(f32({2, 1, 1, 2}), f32({2}), 0, true).validate(), "parameter");
  nn::SymmPerChannelQuantParams alongDepth;
  alongDepth.channelDim = 3;
  alongDepth.scales = {0.5f, 0.5f};
  expectBadData(
      groupedConv({OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 1, 1, 2}, 0.0f, 0, alongDepth}, i32({2}), 2, true)
          .validate(),
      "dimension 0");
  // Bias scale must be input scale (0.5) * filter scale (0.5).
  expectBadData(groupedConv(q8({2, 1, 1, 2}, 0.5f, 128), {OperandType::TENSOR_INT32, {2}, 0.5f, 0}, 2, true).validate(),
                "bias scale");
}

TEST(TensorOpsExecution, GroupedConvRejectsGroupsThatDoNotDivideTheChannels) {
  // 4 input channels, filter depth 2: 2 groups fit, 3 do not.
  OpModelBuilder m = groupedConv(f32({2, 1, 1, 2}), f32({2}), 2, true);
  ASSERT_TRUE(m.run().result.ok());
  expectExecutionBadData(groupedConv(f32({3, 1, 1, 2}), f32({3}), 3, true), "input depth");
}

// A TRANSPOSE_CONV_2D with implicit padding on a [1, 2, 2, 1] input and a [1, 2, 2, 1] filter.
OpModelBuilder transposeConv(std::vector<int32_t> outputShape, int32_t scheme, int32_t stride, bool requestShape) {
  OpModelBuilder m;
  std::vector<uint32_t> ins{zeroInput(m, f32({1, 2, 2, 1})), m.constant(f32({1, 2, 2, 1}), std::vector<float>(4, 1)),
                            m.constant(f32({1}), std::vector<float>{0})};
  ins.push_back(requestShape ? requestInts(m, outputShape) : constInts(m, {4}, outputShape));
  for (int32_t v : {scheme, stride, stride, 0}) ins.push_back(m.int32Scalar(v));
  ins.push_back(m.boolScalar(false));
  const auto out = m.output(f32({1, 4, 4, 1}));
  m.operation(OperationType::TRANSPOSE_CONV_2D, ins, {out});
  return m;
}

TEST(TensorOpsValidation, TransposeConvRejectsSignatureSchemeAndStride) {
  expectBadData(transposeConv({1, 4, 4, 1}, 3, 2, false).validate(), "padding scheme");
  expectBadData(transposeConv({1, 4, 4, 1}, 1, 0, false).validate(), "stride");
  OpModelBuilder m;
  const auto in = zeroInput(m, f32({1, 2, 2, 1}));
  const auto out = m.output(f32({1, 4, 4, 1}));
  m.operation(OperationType::TRANSPOSE_CONV_2D, {in, in, in, m.int32Scalar(1)}, {out});
  expectBadData(m.validate(), "takes 9 or 11 inputs");
}

TEST(TensorOpsExecution, TransposeConvRejectsABadOutputShapeTensor) {
  ASSERT_TRUE(transposeConv({1, 4, 4, 1}, 1, 2, true).run().result.ok());
  expectExecutionBadData(transposeConv({1, 4, 4}, 1, 2, true), "wrong length");
  expectExecutionBadData(transposeConv({1, 0, 4, 1}, 1, 2, true), "positive height and width");
}

// --- BATCH_MATMUL properties -------------------------------------------------------------------

struct MatmulCase {
  nn::Dimensions lhs, rhs, out;  // as declared (adjoint layouts included)
  uint32_t batches = 1, m = 1, k = 1, n = 1;
  bool adjX = false, adjY = false;
  std::string describe() const {
    std::ostringstream s;
    s << "lhs " << nn::toString(lhs) << (adjX ? " adj" : "") << " x rhs " << nn::toString(rhs) << (adjY ? " adj" : "");
    return s.str();
  }
  // Element (b, i, kk) of the un-adjointed LHS, (b, kk, j) of the un-adjointed RHS.
  size_t lhsIndex(uint32_t b, uint32_t i, uint32_t kk) const {
    return size_t{b} * m * k + (adjX ? size_t{kk} * m + i : size_t{i} * k + kk);
  }
  size_t rhsIndex(uint32_t b, uint32_t kk, uint32_t j) const {
    return size_t{b} * k * n + (adjY ? size_t{j} * k + kk : size_t{kk} * n + j);
  }
};

MatmulCase randomMatmul(Random& r) {
  MatmulCase c;
  const int rank = r.uniform(2, 4);
  nn::Dimensions batch;
  for (int d = 0; d + 2 < rank; ++d) batch.push_back(static_cast<uint32_t>(r.uniform(1, 3)));
  for (uint32_t b : batch) c.batches *= b;
  c.m = r.uniform(1, 6);
  c.k = r.uniform(1, 7);
  c.n = r.uniform(1, 6);
  c.adjX = r.coin();
  c.adjY = r.coin();
  c.lhs = c.rhs = c.out = batch;
  c.lhs.push_back(c.adjX ? c.k : c.m);
  c.lhs.push_back(c.adjX ? c.m : c.k);
  c.rhs.push_back(c.adjY ? c.n : c.k);
  c.rhs.push_back(c.adjY ? c.k : c.n);
  c.out.push_back(c.m);
  c.out.push_back(c.n);
  return c;
}

// Plain triple loop in double over the un-adjointed indexing: f(lhsIndex, rhsIndex) per term.
template <typename Term>
std::vector<double> referenceMatmul(const MatmulCase& c, Term term) {
  std::vector<double> out(size_t{c.batches} * c.m * c.n, 0.0);
  for (uint32_t b = 0; b < c.batches; ++b)
    for (uint32_t i = 0; i < c.m; ++i)
      for (uint32_t j = 0; j < c.n; ++j)
        for (uint32_t kk = 0; kk < c.k; ++kk) {
          out[(size_t{b} * c.m + i) * c.n + j] += term(c.lhsIndex(b, i, kk), c.rhsIndex(b, kk, j));
        }
  return out;
}

template <typename T>
OpModelBuilder::Run runMatmul(const MatmulCase& c, const Tensor& lhsType, const Tensor& rhsType,
                              const Tensor& outType, const std::vector<T>& lhs, const std::vector<T>& rhs) {
  OpModelBuilder m;
  Tensor lt = lhsType, rt = rhsType, ot = outType;
  lt.dims = c.lhs;
  rt.dims = c.rhs;
  ot.dims = c.out;
  const auto a = m.input(lt, OpModelBuilder::bytesOf(lhs));
  const auto b = m.input(rt, OpModelBuilder::bytesOf(rhs));
  const auto out = m.output(ot);
  m.operation(OperationType::BATCH_MATMUL, {a, b, m.boolScalar(c.adjX), m.boolScalar(c.adjY)}, {out});
  EXPECT_TRUE(m.validate().ok()) << c.describe();
  return m.run();
}

TEST(BatchMatmulProperty, Float32MatchesPlainLoops) {
  Random r(1234);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const MatmulCase c = randomMatmul(r);
    const auto lhs = r.floats(nn::numberOfElements(c.lhs), -2.0f, 2.0f);
    const auto rhs = r.floats(nn::numberOfElements(c.rhs), -2.0f, 2.0f);
    const auto expected = referenceMatmul(c, [&](size_t a, size_t b) { return double{lhs[a]} * rhs[b]; });
    const auto run = runMatmul(c, f32({}), f32({}), f32({}), lhs, rhs);
    ASSERT_TRUE(run.result.ok()) << c.describe() << ": " << run.result.error().message;
    ASSERT_TRUE(run.guardsIntact) << c.describe();
    const auto got = OpModelBuilder::as<float>(run.outputs[0]);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(closeFloat(got[i], expected[i], 1e-5)) << c.describe() << " element " << i << ": " << got[i]
                                                         << " vs " << expected[i];
    }
  }
}

TEST(BatchMatmulProperty, Float16MatchesPlainLoopsWithinHalfPrecision) {
  Random r(99);
  for (int iteration = 0; iteration < 100; ++iteration) {
    const MatmulCase c = randomMatmul(r);
    std::vector<nn::Float16> lhs, rhs;
    for (float v : r.floats(nn::numberOfElements(c.lhs))) lhs.push_back(static_cast<nn::Float16>(v));
    for (float v : r.floats(nn::numberOfElements(c.rhs))) rhs.push_back(static_cast<nn::Float16>(v));
    const auto expected = referenceMatmul(
        c, [&](size_t a, size_t b) { return static_cast<double>(lhs[a]) * static_cast<double>(rhs[b]); });
    const auto run = runMatmul(c, f16({}), f16({}), f16({}), lhs, rhs);
    ASSERT_TRUE(run.result.ok()) << c.describe() << ": " << run.result.error().message;
    const auto got = OpModelBuilder::as<nn::Float16>(run.outputs[0]);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      // One rounding to half precision: NNAPI's float16 tolerance.
      const double g = static_cast<double>(got[i]);
      ASSERT_LE(std::fabs(g - expected[i]), 5.0 / 1024 * (1.0 + std::fabs(expected[i])))
          << c.describe() << " element " << i << ": " << g << " vs " << expected[i];
    }
  }
}

TEST(BatchMatmulProperty, Int32IsExact) {
  Random r(7);
  for (int iteration = 0; iteration < 100; ++iteration) {
    const MatmulCase c = randomMatmul(r);
    std::vector<int32_t> lhs(nn::numberOfElements(c.lhs)), rhs(nn::numberOfElements(c.rhs));
    for (auto& v : lhs) v = r.uniform(-1000, 1000);
    for (auto& v : rhs) v = r.uniform(-1000, 1000);
    const auto expected = referenceMatmul(c, [&](size_t a, size_t b) { return double{1.0} * lhs[a] * rhs[b]; });
    const auto run = runMatmul(c, i32({}), i32({}), i32({}), lhs, rhs);
    ASSERT_TRUE(run.result.ok()) << c.describe() << ": " << run.result.error().message;
    const auto got = OpModelBuilder::as<int32_t>(run.outputs[0]);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<int32_t>(expected[i])) << c.describe();
  }
}

TEST(BatchMatmulProperty, QuantizedMatchesRealArithmeticWithinOneStep) {
  Random r(2024);
  for (int iteration = 0; iteration < 300; ++iteration) {
    const MatmulCase c = randomMatmul(r);
    const float lhsScale = r.uniformReal(0.005f, 0.1f), rhsScale = r.uniformReal(0.005f, 0.1f);
    const int32_t lhsZero = r.uniform(-30, 30), rhsZero = r.uniform(-30, 30), outZero = r.uniform(-20, 20);
    // An output scale that keeps typical products inside int8 without making them all tiny.
    const float outScale = lhsScale * rhsScale * r.uniformReal(8.0f, 40.0f) * std::sqrt(static_cast<float>(c.k));
    const auto lhs = r.quantized<int8_t>(nn::numberOfElements(c.lhs));
    const auto rhs = r.quantized<int8_t>(nn::numberOfElements(c.rhs));
    const auto real = referenceMatmul(c, [&](size_t a, size_t b) {
      return (double{lhsScale} * (lhs[a] - lhsZero)) * (double{rhsScale} * (rhs[b] - rhsZero));
    });
    const auto run = runMatmul(c, q8s({}, lhsScale, lhsZero), q8s({}, rhsScale, rhsZero), q8s({}, outScale, outZero),
                               lhs, rhs);
    ASSERT_TRUE(run.result.ok()) << c.describe() << ": " << run.result.error().message;
    const auto got = OpModelBuilder::as<int8_t>(run.outputs[0]);
    ASSERT_EQ(got.size(), real.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const int32_t expected = expectedQuantized<int8_t>(real[i], outScale, outZero, 0);
      ASSERT_LE(std::abs(int32_t{got[i]} - expected), 1)
          << c.describe() << " scales " << lhsScale << "/" << rhsScale << "/" << outScale << " zero points "
          << lhsZero << "/" << rhsZero << "/" << outZero << " element " << i;
    }
  }
}

}  // namespace
}  // namespace weft::test
