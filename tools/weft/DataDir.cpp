#include "DataDir.h"

namespace weft::tool {

const std::string& dataDir() {
  static const std::string dir = WEFT_SOURCE_DIR;
  return dir;
}

}  // namespace weft::tool
