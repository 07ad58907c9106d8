// Small RAII owners for NNAPI objects and a check that turns result codes into exceptions,
// so the tool's code reads as the sequence of NNAPI calls it makes.
#pragma once

#include <android/NeuralNetworks.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace weft::tool {

class NnapiError : public std::runtime_error {
 public:
  NnapiError(const std::string& what, int code);
  int code() const { return code_; }

 private:
  int code_;
};

// Throws NnapiError naming `what` and the result code unless it is ANEURALNETWORKS_NO_ERROR.
void check(int resultCode, const std::string& what);
const char* resultCodeName(int code);

struct ModelDeleter { void operator()(ANeuralNetworksModel* p) const { ANeuralNetworksModel_free(p); } };
struct CompilationDeleter { void operator()(ANeuralNetworksCompilation* p) const { ANeuralNetworksCompilation_free(p); } };
struct ExecutionDeleter { void operator()(ANeuralNetworksExecution* p) const { ANeuralNetworksExecution_free(p); } };
using ModelPtr = std::unique_ptr<ANeuralNetworksModel, ModelDeleter>;
using CompilationPtr = std::unique_ptr<ANeuralNetworksCompilation, CompilationDeleter>;
using ExecutionPtr = std::unique_ptr<ANeuralNetworksExecution, ExecutionDeleter>;

// The device whose ANeuralNetworksDevice_getType is `type`; throws when there is none.
ANeuralNetworksDevice* findDevice(int32_t type);
std::string deviceName(const ANeuralNetworksDevice* device);

}  // namespace weft::tool
