// How the runtime reports failures: builders return nn::Status / nn::Result with an NNAPI result
// code and a message saying what was wrong; each C entry point logs the message once, prefixed
// with its own name, and returns the code.
#pragma once

#include <exception>
#include <new>
#include <string_view>

#include "weft/nn/Result.h"

namespace weft::runtime {

// Prints "weft: <function>: <message>" to stderr and returns the error's result code.
int reportError(std::string_view function, const nn::Error& error);

// ANEURALNETWORKS_NO_ERROR for a success, else reportError.
inline int toResultCode(std::string_view function, const nn::Status& status) {
  return status.ok() ? 0 : reportError(function, status.error());
}

// For entry points that check their own pointer arguments.
int reportNull(std::string_view function, std::string_view argument);

// Logs a runtime condition that is not an error of the call (e.g. a device that is absent).
void logWarning(std::string_view message);

inline int resultCode(nn::ErrorStatus status) { return static_cast<int>(status); }

// Runs an entry point's body so that no exception crosses the C API: running out of memory is
// ANEURALNETWORKS_OUT_OF_MEMORY, anything else unexpected ANEURALNETWORKS_OP_FAILED.
template <typename Body>
int guarded(std::string_view function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return reportError(function, nn::Error{nn::ErrorStatus::OUT_OF_MEMORY, "out of memory"});
  } catch (const std::exception& e) {
    return reportError(function, nn::Error{nn::ErrorStatus::OP_FAILED, e.what()});
  } catch (...) {
    return reportError(function, nn::Error{nn::ErrorStatus::OP_FAILED, "unexpected failure"});
  }
}

}  // namespace weft::runtime
