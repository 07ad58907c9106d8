#include "CompileOptions.h"

#include <cstdlib>
#include <initializer_list>
#include <string_view>
#include <utility>

namespace weft::accel {
namespace {

// The value an environment variable names among `choices`; `otherwise` when it is unset or
// names none of them.
template <typename Choice>
Choice envChoice(const char* variable, std::initializer_list<std::pair<std::string_view, Choice>> choices,
                 Choice otherwise) {
  const char* v = std::getenv(variable);
  if (v == nullptr) return otherwise;
  for (const auto& [name, choice] : choices) {
    if (name == v) return choice;
  }
  return otherwise;
}

}  // namespace

CompileOptions CompileOptions::fromEnvironment(nn::ExecutionPreference preference, Deadline deadline) {
  CompileOptions o;
  o.preference = preference;
  o.deadline = deadline;
  o.inputChoice = envChoice("WEFT_ACCEL_INPUT_MODE",
                            {{"windowed", InputChoice::kWindowed},
                             {"im2col", InputChoice::kIm2col},
                             {"packed", InputChoice::kPacked}},
                            InputChoice::kAny);
  o.ramp = envChoice("WEFT_ACCEL_RAMP", {{"always", RampChoice::kAlways}, {"never", RampChoice::kNever}},
                     RampChoice::kSearch);
  o.traceTiling = std::getenv("WEFT_ACCEL_TRACE_TILING") != nullptr;
  return o;
}

nn::Status checkDeadline(const CompileOptions::Deadline& deadline, uint32_t operationIndex) {
  if (deadline && std::chrono::steady_clock::now() > *deadline) {
    return NN_ERROR(MISSED_DEADLINE_PERSISTENT) << "the compilation deadline passed while compiling operation "
                                                << operationIndex;
  }
  return {};
}

}  // namespace weft::accel
