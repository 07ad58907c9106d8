# Unity builds of the libraries made of many small files over heavy headers (the reference
# kernels, the simulator, the runtime): CMake compiles each batch of files as one translation
# unit, so the headers every file includes are parsed once a batch. Measured on the 2-core
# machine (tsan preset, no compiler cache): the kernels 472 -> 123 s of compile steps, the
# simulator 120 -> 82, the runtime 98 -> 38; CI compiles them in three builds. Files that
# cannot share a unit (clashing internal names) are fixed, not excluded.
# -DWEFT_UNITY_BUILD=OFF compiles file by file (one edit recompiles one file, not its batch).
option(WEFT_UNITY_BUILD "Compile the large libraries in unity batches" ON)

function(weft_unity_build target)
  if(WEFT_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()
