// RESIZE_NEAREST_NEIGHBOR: nearest-neighbor image resize (align_corners rounds, otherwise floors;
// half_pixel_centers samples at pixel centres); see ResizeImage.cpp. Zero batches are allowed.
#include "ResizeImage.h"

namespace weft::nn::resize_nearest_neighbor {

Status validate(const IOperationValidationContext* context) {
  return resize_image::validate(context, resize_image::Kind::NEAREST_NEIGHBOR);
}
Status execute(IOperationExecutionContext* context) {
  return resize_image::execute(context, resize_image::Kind::NEAREST_NEIGHBOR);
}

}  // namespace weft::nn::resize_nearest_neighbor

NN_REGISTER_OPERATION(RESIZE_NEAREST_NEIGHBOR, "RESIZE_NEAREST_NEIGHBOR", resize_nearest_neighbor::validate,
                      resize_image::prepare, resize_nearest_neighbor::execute, .allowZeroSizedInput = true)
