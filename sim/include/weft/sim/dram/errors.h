// Bad input to the DRAM model: a device description or a trace that breaks a rule. The message
// names where (file and line, or the field) and the rule, so that a user can fix the input
// without reading the model; nothing throws this for a state the model itself got into.
#pragma once

#include <stdexcept>
#include <string>

namespace weft::sim::dram {

class DramInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace weft::sim::dram
