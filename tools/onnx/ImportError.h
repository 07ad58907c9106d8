// The one error the ONNX importer throws: what is wrong, naming the file, the node (its name and
// operator) and the attribute, input or type that is not supported. `weft` prints it and exits
// with code 2; nothing is half-written.
#pragma once

#include <stdexcept>
#include <string>

namespace weft::onnx {

class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace weft::onnx
