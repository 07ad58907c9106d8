#include "weft/kernels/Broadcast.h"

#include <algorithm>

namespace weft::nn {

Result<Dimensions> broadcastDimensions(const Dimensions& a, const Dimensions& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dimensions out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const uint32_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    NN_RET_CHECK(da == db || da == 1 || db == 1) << "dimensions " << da << " and " << db
                                                 << " cannot be broadcast";
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace weft::nn
