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

}  // namespace weft::nn
