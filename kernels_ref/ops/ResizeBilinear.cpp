// RESIZE_BILINEAR: bilinear image resize with TFLite's sampling (align_corners, half_pixel_centers);
// see ResizeImage.cpp. Zero batches are allowed.
#include "ResizeImage.h"

namespace weft::nn::resize_bilinear {

Status validate(const IOperationValidationContext* context) {
  return resize_image::validate(context, resize_image::Kind::BILINEAR);
}
Status execute(IOperationExecutionContext* context) {
  return resize_image::execute(context, resize_image::Kind::BILINEAR);
}

}  // namespace weft::nn::resize_bilinear

NN_REGISTER_OPERATION(RESIZE_BILINEAR, "RESIZE_BILINEAR", resize_bilinear::validate, resize_image::prepare,
                      resize_bilinear::execute, .allowZeroSizedInput = true)
