#include "weft/kernels/Layout.h"

namespace weft::nn {

Dimensions nchwToNhwcDims(const Dimensions& d) {
  if (d.size() != 4) return d;
  return {d[0], d[2], d[3], d[1]};
}

Dimensions nhwcToNchwDims(const Dimensions& d) {
  if (d.size() != 4) return d;
  return {d[0], d[3], d[1], d[2]};
}

Status setNhwcOutputShape(IOperationExecutionContext* context, uint32_t index, const Dimensions& nhwc, bool useNchw) {
  Shape output = context->getOutputShape(index);
  output.dimensions = useNchw ? nhwcToNchwDims(nhwc) : nhwc;
  return context->setOutputShape(index, output);
}

}  // namespace weft::nn
