// Box arithmetic shared by AXIS_ALIGNED_BBOX_TRANSFORM, BOX_WITH_NMS_LIMIT, GENERATE_PROPOSALS and
// DETECTION_POSTPROCESSING: intersection-over-union, delta decoding, and the non-maximum
// suppression kernels (hard, linear and gaussian). Everything works on float boxes of four
// coordinates; the operations convert their operands with TensorAsFloat.h.
//
// NMS runs in place over an array of candidate indexes, exactly as NNAPI's reference does: the
// best remaining candidate is swapped to the front, and a suppressed candidate is swapped with
// the last one, so that the order candidates are visited in (and therefore which of two equal
// scores wins) is the reference's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "weft/nn/Result.h"

namespace weft::nn::boxes {

constexpr uint32_t kBoxSize = 4;

// Area of intersection over area of union of two boxes [x1, y1, x2, y2] (the order of the two
// axes does not matter).
float intersectionOverUnion(const float* a, const float* b);

// AXIS_ALIGNED_BBOX_TRANSFORM on float data: each roi [x1, y1, x2, y2] of image batches[r] is
// moved by the per-class deltas [dx, dy, dw, dh] (centre shifted by dx * width, size scaled by
// exp(dw)) and clipped to the image [0, width] x [0, height] from imageInfo[batch] = {height,
// width}. `out` receives numRois x numClasses boxes. BAD_DATA for a batch index outside
// [0, numImages) or a roi with x2 < x1 or y2 < y1.
Status transformBoxes(const float* rois, uint32_t numRois, const float* deltas, uint32_t numClasses,
                      const int32_t* batches, const float* imageInfo, uint32_t numImages, float* out);

// The box a candidate index stands for.
using BoxLookup = std::function<const float*(uint32_t index)>;
// Rescales the score of a candidate overlapping the selected box by IoU `iou`.
using ScoreKernel = std::function<float(float iou)>;

// Hard NMS over candidates select[0, count): keeps at most maxDetections (all when negative),
// dropping every candidate whose IoU with a kept box is >= iouThreshold. Returns the number kept,
// which are then select[0, kept) in order of decreasing score.
size_t hardNmsSingleClass(const float* scores, float iouThreshold, int32_t maxDetections, const BoxLookup& boxOf,
                          uint32_t* select, size_t count);

// Soft NMS: instead of dropping overlapping candidates, multiplies their score (in `scores`) by
// kernel(iou) and drops them once the score falls below scoreThreshold.
size_t softNmsSingleClass(float* scores, float scoreThreshold, int32_t maxDetections, const BoxLookup& boxOf,
                          const ScoreKernel& kernel, uint32_t* select, size_t count);

// The NMS kernels of BOX_WITH_NMS_LIMIT: 0 hard, 1 linear, 2 gaussian; BAD_DATA otherwise.
Result<ScoreKernel> nmsKernel(int32_t kind, float iouThreshold, float sigma);

// Multi-class NMS over scores laid out [numRois][numClasses] (index = roi * numClasses + class),
// class 0 being background and skipped: candidates of each class scoring above scoreThreshold go
// through single-class NMS keeping maxPerClass, then all survivors are ordered by decreasing score
// and cut to maxDetections (all when negative). Returns the selected indexes.
std::vector<uint32_t> hardNmsMultiClass(const float* scores, uint32_t numClasses, uint32_t numRois,
                                        float scoreThreshold, float iouThreshold, int32_t maxDetections,
                                        int32_t maxPerClass, const BoxLookup& boxOf);
std::vector<uint32_t> softNmsMultiClass(float* scores, uint32_t numClasses, uint32_t numRois, float scoreThreshold,
                                        float nmsScoreThreshold, int32_t maxDetections, int32_t maxPerClass,
                                        const BoxLookup& boxOf, const ScoreKernel& kernel);

}  // namespace weft::nn::boxes
