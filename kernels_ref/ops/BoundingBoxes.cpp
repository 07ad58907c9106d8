#include "BoundingBoxes.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace weft::nn::boxes {

float intersectionOverUnion(const float* a, const float* b) {
  const float areaA = (a[2] - a[0]) * (a[3] - a[1]);
  const float areaB = (b[2] - b[0]) * (b[3] - b[1]);
  const float x1 = std::max(a[0], b[0]);
  const float x2 = std::min(a[2], b[2]);
  const float y1 = std::max(a[1], b[1]);
  const float y2 = std::min(a[3], b[3]);
  const float intersection = std::max(x2 - x1, 0.0f) * std::max(y2 - y1, 0.0f);
  return intersection / (areaA + areaB - intersection);
}

Status transformBoxes(const float* rois, uint32_t numRois, const float* deltas, uint32_t numClasses,
                      const int32_t* batches, const float* imageInfo, uint32_t numImages, float* out) {
  for (uint32_t r = 0; r < numRois; ++r) {
    const float* roi = rois + size_t{r} * kBoxSize;
    const int32_t batch = batches[r];
    NN_RET_CHECK(batch >= 0 && static_cast<uint32_t>(batch) < numImages)
        << "roi " << r << " names batch " << batch << " of " << numImages;
    NN_RET_CHECK(roi[0] <= roi[2] && roi[1] <= roi[3]) << "roi " << r << " has x2 < x1 or y2 < y1";
    const float imageHeight = imageInfo[static_cast<size_t>(batch) * 2];
    const float imageWidth = imageInfo[static_cast<size_t>(batch) * 2 + 1];
    const float width = roi[2] - roi[0];
    const float height = roi[3] - roi[1];
    const float centerX = (roi[0] + roi[2]) / 2;
    const float centerY = (roi[1] + roi[3]) / 2;
    for (uint32_t c = 0; c < numClasses; ++c) {
      const float* d = deltas + (size_t{r} * numClasses + c) * kBoxSize;
      float* o = out + (size_t{r} * numClasses + c) * kBoxSize;
      const float newWidth = std::exp(d[2]) * width;
      const float newHeight = std::exp(d[3]) * height;
      const float newX = centerX + d[0] * width;
      const float newY = centerY + d[1] * height;
      auto clip = [](float v, float hi) { return std::min(std::max(v, 0.0f), hi); };
      o[0] = clip(newX - newWidth / 2, imageWidth);
      o[1] = clip(newY - newHeight / 2, imageHeight);
      o[2] = clip(newX + newWidth / 2, imageWidth);
      o[3] = clip(newY + newHeight / 2, imageHeight);
    }
  }
  return {};
}

namespace {

// Shared body of hard and soft NMS: `dropAfterOverlap(candidate, selected)` returns true when the
// candidate must be discarded.
template <typename Drop>
size_t nmsSingleClass(const float* scores, int32_t maxDetections, uint32_t* select, size_t count,
                      Drop dropAfterOverlap) {
  const size_t limit = maxDetections < 0 ? count : static_cast<size_t>(maxDetections);
  size_t start = 0, end = count, kept = 0;
  while (start < end && kept < limit) {
    uint32_t* best = std::max_element(select + start, select + end,
                                      [scores](uint32_t a, uint32_t b) { return scores[a] < scores[b]; });
    std::swap(*best, select[start]);
    for (size_t i = start + 1; i < end; ++i) {
      if (dropAfterOverlap(select[i], select[start])) {
        // Swap the discarded candidate out and look at the one swapped in.
        std::swap(select[i], select[end - 1]);
        --end;
        --i;
      }
    }
    ++start;
    ++kept;
  }
  return start;
}

// Class-by-class NMS then the global top maxDetections, as both multi-class variants do.
template <typename SingleClass>
std::vector<uint32_t> nmsMultiClass(const float* scores, uint32_t numClasses, uint32_t numRois, float scoreThreshold,
                                    int32_t maxDetections, SingleClass singleClass) {
  std::vector<uint32_t> select;
  for (uint32_t c = 1; c < numClasses; ++c) {
    const size_t first = select.size();
    for (uint32_t r = 0; r < numRois; ++r) {
      const uint32_t index = r * numClasses + c;
      if (scores[index] > scoreThreshold) select.push_back(index);
    }
    const size_t kept = singleClass(select.data() + first, select.size() - first);
    select.resize(first + kept);
  }
  std::stable_sort(select.begin(), select.end(), [scores](uint32_t a, uint32_t b) { return scores[a] > scores[b]; });
  if (maxDetections >= 0 && select.size() > static_cast<size_t>(maxDetections)) select.resize(maxDetections);
  return select;
}

}  // namespace

size_t hardNmsSingleClass(const float* scores, float iouThreshold, int32_t maxDetections, const BoxLookup& boxOf,
                          uint32_t* select, size_t count) {
  return nmsSingleClass(scores, maxDetections, select, count, [&](uint32_t candidate, uint32_t selected) {
    return intersectionOverUnion(boxOf(candidate), boxOf(selected)) >= iouThreshold;
  });
}

size_t softNmsSingleClass(float* scores, float scoreThreshold, int32_t maxDetections, const BoxLookup& boxOf,
                          const ScoreKernel& kernel, uint32_t* select, size_t count) {
  return nmsSingleClass(scores, maxDetections, select, count, [&](uint32_t candidate, uint32_t selected) {
    scores[candidate] *= kernel(intersectionOverUnion(boxOf(candidate), boxOf(selected)));
    return scores[candidate] < scoreThreshold;
  });
}

Result<ScoreKernel> nmsKernel(int32_t kind, float iouThreshold, float sigma) {
  switch (kind) {
    case 0:  // hard: overlapping boxes get score 0
      return ScoreKernel([iouThreshold](float iou) { return iou < iouThreshold ? 1.0f : 0.0f; });
    case 1:  // linear
      return ScoreKernel([iouThreshold](float iou) { return iou < iouThreshold ? 1.0f : 1.0f - iou; });
    case 2:  // gaussian
      return ScoreKernel([sigma](float iou) { return std::exp(-1.0f * iou * iou / sigma); });
    default:
      return NN_ERROR(BAD_DATA) << "unknown NMS kernel " << kind << " (0 hard, 1 linear, 2 gaussian)";
  }
}

std::vector<uint32_t> hardNmsMultiClass(const float* scores, uint32_t numClasses, uint32_t numRois,
                                        float scoreThreshold, float iouThreshold, int32_t maxDetections,
                                        int32_t maxPerClass, const BoxLookup& boxOf) {
  return nmsMultiClass(scores, numClasses, numRois, scoreThreshold, maxDetections,
                       [&](uint32_t* select, size_t count) {
                         return hardNmsSingleClass(scores, iouThreshold, maxPerClass, boxOf, select, count);
                       });
}

std::vector<uint32_t> softNmsMultiClass(float* scores, uint32_t numClasses, uint32_t numRois, float scoreThreshold,
                                        float nmsScoreThreshold, int32_t maxDetections, int32_t maxPerClass,
                                        const BoxLookup& boxOf, const ScoreKernel& kernel) {
  return nmsMultiClass(scores, numClasses, numRois, scoreThreshold, maxDetections,
                       [&](uint32_t* select, size_t count) {
                         return softNmsSingleClass(scores, nmsScoreThreshold, maxPerClass, boxOf, kernel, select,
                                                   count);
                       });
}

}  // namespace weft::nn::boxes
