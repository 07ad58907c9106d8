#include "SequenceLayout.h"

#include "TensorAsFloat.h"

namespace weft::nn {

Dimensions SequenceShape::dimensions(uint32_t features) const {
  return timeMajor ? Dimensions{maxTime, batchSize, features} : Dimensions{batchSize, maxTime, features};
}

std::vector<float> SequenceShape::readTimeMajor(const IOperationExecutionContext* context, uint32_t index) const {
  const Dimensions dims = context->getInputShape(index).dimensions;
  return transposeUnlessTimeMajor(inputAsFloat(context, index), timeMajor, dims[0], dims[1], dims[2]);
}

Status SequenceShape::writeFromTimeMajor(IOperationExecutionContext* context, uint32_t index,
                                         const std::vector<float>& values, uint32_t features) const {
  const std::vector<float> result = transposeUnlessTimeMajor(values, timeMajor, maxTime, batchSize, features);
  return writeOutputFromFloat(context, index, result.data(), result.size());
}

SequenceShape sequenceShape(const Dimensions& dims, bool timeMajor) {
  SequenceShape s;
  s.timeMajor = timeMajor;
  s.maxTime = dims[timeMajor ? 0 : 1];
  s.batchSize = dims[timeMajor ? 1 : 0];
  return s;
}

SequenceDimNames sequenceDimNames(bool layoutKnown, bool timeMajor) {
  if (!layoutKnown) return {};
  return timeMajor ? SequenceDimNames{"maxTime", "batch"} : SequenceDimNames{"batch", "maxTime"};
}

}  // namespace weft::nn
