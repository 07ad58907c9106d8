// The state one compilation carries from pass to pass: what it compiles for, then each pass's
// output in the order compileModel (ModelCompiler.cpp) runs them.
#pragma once

#include <utility>

#include "CompileTarget.h"
#include "Costing.h"
#include "EmitProgram.h"
#include "Layout.h"
#include "Lower.h"
#include "PlaceInDram.h"
#include "Schedule.h"
#include "SearchTilings.h"
#include "weft/nn/Result.h"

namespace weft::accel {

struct CompilationState {
  explicit CompilationState(CompileTarget t) : target(std::move(t)) {}

  CompileTarget target;
  LoweredModel lowered;                        // 1. lowerModel
  LayoutPlan layout;                           // 2. layoutModel
  ModelTilings tilings;                        // 3. searchTilings
  DramPlacement dram;                          // 4. placeInDram
  EmittedProgram emitted;                      // 5. emitProgram
  std::vector<CompiledOperation> operations;   //    costOperations
  ScheduledModel scheduled;                    // 6. scheduleProgram
};

// Moves a pass's output into its slot of the state, or passes its error on.
template <typename T>
nn::Status into(T& slot, nn::Result<T> result) {
  if (!result.ok()) return result.error();
  slot = std::move(result).value();
  return {};
}

}  // namespace weft::accel
