/*
 * The Android NNAPI NDK C API (NNAPI feature level 8), implemented on Linux by weft's
 * libneuralnetworks.so. Names, signatures and result codes follow the NNAPI reference
 * (AOSP packages/modules/NeuralNetworks runtime/include/NeuralNetworks.h and
 * NeuralNetworksExtensions.h); the comments here are short reminders, the reference is the
 * documentation.
 *
 * Common rules: a NULL pointer argument returns ANEURALNETWORKS_UNEXPECTED_NULL; an index out
 * of range, a wrong length or an invalid value returns ANEURALNETWORKS_BAD_DATA; modifying an
 * object that is finished (or an execution that has started) returns ANEURALNETWORKS_BAD_STATE.
 * A call rejected for its arguments or state changes nothing. Every *_free accepts NULL.
 *
 * Linux notes: there is no AHardwareBuffer, so ANeuralNetworksMemory_createFromAHardwareBuffer
 * always fails; "sync fence" file descriptors are any pollable descriptor that becomes readable
 * when signalled (a Linux sync_file or an eventfd).
 */
#ifndef WEFT_ANDROID_NEURAL_NETWORKS_H
#define WEFT_ANDROID_NEURAL_NETWORKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "NeuralNetworksTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __ANDROID__
/** Opaque on Linux: no AHardwareBuffer can be created, so none can be passed. */
typedef struct AHardwareBuffer AHardwareBuffer;
#endif

/* ---- Memory descriptors (feature level 4) ---- */

/** Creates a memory descriptor with no properties. */
int ANeuralNetworksMemoryDesc_create(ANeuralNetworksMemoryDesc** desc);
/** Destroys a memory descriptor (finished or not). */
void ANeuralNetworksMemoryDesc_free(ANeuralNetworksMemoryDesc* desc);
/** The memory will be input `index` of executions of the finished `compilation`;
 *  frequency in (0.0, 1.0]. */
int ANeuralNetworksMemoryDesc_addInputRole(ANeuralNetworksMemoryDesc* desc,
                                           const ANeuralNetworksCompilation* compilation,
                                           uint32_t index, float frequency);
/** The memory will be output `index` of executions of the finished `compilation`. */
int ANeuralNetworksMemoryDesc_addOutputRole(ANeuralNetworksMemoryDesc* desc,
                                            const ANeuralNetworksCompilation* compilation,
                                            uint32_t index, float frequency);
/** Sets the dimensions (0 = unknown), compatible with those of every role. */
int ANeuralNetworksMemoryDesc_setDimensions(ANeuralNetworksMemoryDesc* desc, uint32_t rank,
                                            const uint32_t* dimensions);
/** Completes the descriptor; it needs at least one role. */
int ANeuralNetworksMemoryDesc_finish(ANeuralNetworksMemoryDesc* desc);

/* ---- Memory ---- */

/** Creates an uninitialized memory for the roles of a finished descriptor
 *  (ANEURALNETWORKS_OP_FAILED when its size cannot be known). */
int ANeuralNetworksMemory_createFromDesc(const ANeuralNetworksMemoryDesc* desc,
                                         ANeuralNetworksMemory** memory);
/** Copies src to dst (same logical size; an uninitialized src is ANEURALNETWORKS_BAD_DATA). */
int ANeuralNetworksMemory_copy(const ANeuralNetworksMemory* src, const ANeuralNetworksMemory* dst);
/** Maps `size` bytes of `fd` from `offset` (page-aligned) with protection PROT_NONE or
 *  PROT_READ | PROT_WRITE bits; the descriptor is duplicated. */
int ANeuralNetworksMemory_createFromFd(size_t size, int protect, int fd, size_t offset,
                                       ANeuralNetworksMemory** memory);
/** Not available on Linux: ANEURALNETWORKS_BAD_DATA (ANEURALNETWORKS_UNEXPECTED_NULL for NULL). */
int ANeuralNetworksMemory_createFromAHardwareBuffer(const AHardwareBuffer* ahwb,
                                                    ANeuralNetworksMemory** memory);
/** Destroys a memory object. */
void ANeuralNetworksMemory_free(ANeuralNetworksMemory* memory);

/* ---- Devices (feature level 3) ---- */

/** The number of devices. */
int ANeuralNetworks_getDeviceCount(uint32_t* numDevices);
/** The device at devIndex (< getDeviceCount); always the same pointer for an index. */
int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice** device);
/** "{VENDOR}-{DEVICE}", valid for the life of the process. */
int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice* device, const char** name);
/** A DeviceTypeCode. */
int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice* device, int32_t* type);
/** The driver's version string. */
int ANeuralNetworksDevice_getVersion(const ANeuralNetworksDevice* device, const char** version);
/** A FeatureLevelCode. */
int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice* device,
                                          int64_t* featureLevel);
/** Waits until the device is live (feature level 4). */
int ANeuralNetworksDevice_wait(const ANeuralNetworksDevice* device);
/** Whether the device supports the named vendor extension. */
int ANeuralNetworksDevice_getExtensionSupport(const ANeuralNetworksDevice* device,
                                              const char* extensionName,
                                              bool* isExtensionSupported);

/* ---- Models ---- */

/** For each operation of the finished model (in the order added): can any of the devices
 *  (no duplicates, numDevices >= 1) run it? */
int ANeuralNetworksModel_getSupportedOperationsForDevices(
        const ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,
        uint32_t numDevices, bool* supportedOps);
/** Creates an empty model. */
int ANeuralNetworksModel_create(ANeuralNetworksModel** model);
/** Destroys a model (finished or not). */
void ANeuralNetworksModel_free(ANeuralNetworksModel* model);
/** Validates and completes the model; it can no longer be modified. */
int ANeuralNetworksModel_finish(ANeuralNetworksModel* model);
/** Adds an operand; its index is the number of operands added before it. */
int ANeuralNetworksModel_addOperand(ANeuralNetworksModel* model,
                                    const ANeuralNetworksOperandType* type);
/** Sets a constant value (length = the operand's size); buffer NULL and length 0 mark an
 *  omitted optional operand. Values over ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES
 *  bytes are referenced, so the buffer must outlive the model. */
int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel* model, int32_t index,
                                         const void* buffer, size_t length);
/** Sets the per-channel quantization of a TENSOR_QUANT8_SYMM_PER_CHANNEL operand. */
int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
        ANeuralNetworksModel* model, int32_t index,
        const ANeuralNetworksSymmPerChannelQuantParams* channelQuant);
/** Sets a constant value stored in a memory object, which must outlive the model. */
int ANeuralNetworksModel_setOperandValueFromMemory(ANeuralNetworksModel* model, int32_t index,
                                                   const ANeuralNetworksMemory* memory,
                                                   size_t offset, size_t length);
/** Sets an ANEURALNETWORKS_MODEL operand to a finished model (feature level 4). */
int ANeuralNetworksModel_setOperandValueFromModel(ANeuralNetworksModel* model, int32_t index,
                                                  const ANeuralNetworksModel* value);
/** Adds an operation; its operands must have been added. */
int ANeuralNetworksModel_addOperation(ANeuralNetworksModel* model,
                                      ANeuralNetworksOperationType type, uint32_t inputCount,
                                      const uint32_t* inputs, uint32_t outputCount,
                                      const uint32_t* outputs);
/** Names the model's inputs and outputs (operands neither constant nor both). */
int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel* model, uint32_t inputCount,
                                                  const uint32_t* inputs, uint32_t outputCount,
                                                  const uint32_t* outputs);
/** Allows TENSOR_FLOAT32 to be computed with float16 range and precision. */
int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel* model, bool allow);
/** The operand type of an extension operand code (extensions: see NeuralNetworksExtensions.h). */
int ANeuralNetworksModel_getExtensionOperandType(ANeuralNetworksModel* model,
                                                 const char* extensionName,
                                                 uint16_t operandCodeWithinExtension,
                                                 int32_t* type);
/** The operation type of an extension operation code. */
int ANeuralNetworksModel_getExtensionOperationType(ANeuralNetworksModel* model,
                                                   const char* extensionName,
                                                   uint16_t operationCodeWithinExtension,
                                                   ANeuralNetworksOperationType* type);
/** Sets the extension data of an extension operand. */
int ANeuralNetworksModel_setOperandExtensionData(ANeuralNetworksModel* model, int32_t index,
                                                 const void* data, size_t length);

/* ---- Compilations ---- */

/** A compilation of the finished model for exactly the given devices (no duplicates); every
 *  operation must be supported by one of them. */
int ANeuralNetworksCompilation_createForDevices(ANeuralNetworksModel* model,
                                                const ANeuralNetworksDevice* const* devices,
                                                uint32_t numDevices,
                                                ANeuralNetworksCompilation** compilation);
/** Sets the cache directory and the ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN-byte token. */
int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation* compilation,
                                          const char* cacheDir, const uint8_t* token);
/** A compilation of the finished model, partitioned across all devices. */
int ANeuralNetworksCompilation_create(ANeuralNetworksModel* model,
                                      ANeuralNetworksCompilation** compilation);
/** Destroys a compilation (finished or not). */
void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation* compilation);
/** A PreferenceCode; the default is ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER. */
int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation* compilation,
                                             int32_t preference);
/** Compiles; required before creating executions or bursts. */
int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation* compilation);
/** One of ANEURALNETWORKS_PRIORITY_* (feature level 4). */
int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation* compilation, int priority);
/** Compilation timeout in ns (0 = none); only for createForDevices with one device. */
int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation* compilation,
                                          uint64_t duration);
/** Preferred alignment (a power of 2) of input `index` buffers (feature level 5). */
int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment);
/** Preferred end padding (a power of 2) of input `index` buffers. */
int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding);
/** Preferred alignment (a power of 2) of output `index` buffers. */
int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment);
/** Preferred end padding (a power of 2) of output `index` buffers. */
int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding);

/* ---- Executions ---- */

/** Creates an execution of a finished compilation, in the preparation state. */
int ANeuralNetworksExecution_create(ANeuralNetworksCompilation* compilation,
                                    ANeuralNetworksExecution** execution);
/** Destroys an execution (it must not be computing). */
void ANeuralNetworksExecution_free(ANeuralNetworksExecution* execution);
/** Sets input `index` to a buffer of exactly its size (or more with padding enabled);
 *  NULL and 0 omit an optional input. `type` may give unspecified dimensions. */
int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution* execution, int32_t index,
                                      const ANeuralNetworksOperandType* type, const void* buffer,
                                      size_t length);
/** Sets input `index` to a region of a memory object. */
int ANeuralNetworksExecution_setInputFromMemory(ANeuralNetworksExecution* execution, int32_t index,
                                                const ANeuralNetworksOperandType* type,
                                                const ANeuralNetworksMemory* memory, size_t offset,
                                                size_t length);
/** Sets output `index` to a buffer; NULL and 0 omit it. */
int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution* execution, int32_t index,
                                       const ANeuralNetworksOperandType* type, void* buffer,
                                       size_t length);
/** Sets output `index` to a region of a memory object. */
int ANeuralNetworksExecution_setOutputFromMemory(ANeuralNetworksExecution* execution, int32_t index,
                                                 const ANeuralNetworksOperandType* type,
                                                 const ANeuralNetworksMemory* memory, size_t offset,
                                                 size_t length);
/** Runs the execution asynchronously; wait on the returned event. */
int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution* execution,
                                          ANeuralNetworksEvent** event);
/** Runs the execution synchronously (feature level 3). */
int ANeuralNetworksExecution_compute(ANeuralNetworksExecution* execution);
/** Runs the execution synchronously on a burst of the same compilation. */
int ANeuralNetworksExecution_burstCompute(ANeuralNetworksExecution* execution,
                                          ANeuralNetworksBurst* burst);
/** Runs the execution once every dependency has signalled; outputs must be fully specified;
 *  a non-zero duration (ns) needs createForDevices with one device (feature level 4). */
int ANeuralNetworksExecution_startComputeWithDependencies(
        ANeuralNetworksExecution* execution, const ANeuralNetworksEvent* const* dependencies,
        uint32_t num_dependencies, uint64_t duration, ANeuralNetworksEvent** event);
/** The rank of output `index` after a computation (ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE
 *  when its buffer was too small). */
int ANeuralNetworksExecution_getOutputOperandRank(ANeuralNetworksExecution* execution,
                                                  int32_t index, uint32_t* rank);
/** The dimensions of tensor output `index` after a computation. */
int ANeuralNetworksExecution_getOutputOperandDimensions(ANeuralNetworksExecution* execution,
                                                        int32_t index, uint32_t* dimensions);
/** Measure durations; only for createForDevices with one device. */
int ANeuralNetworksExecution_setMeasureTiming(ANeuralNetworksExecution* execution, bool measure);
/** A DurationCode of the latest computation in ns; UINT64_MAX when not measured or not
 *  available. */
int ANeuralNetworksExecution_getDuration(const ANeuralNetworksExecution* execution,
                                         int32_t durationCode, uint64_t* duration);
/** Execution timeout in ns (0 = none); only for createForDevices with one device. */
int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution* execution, uint64_t duration);
/** Timeout of each WHILE loop in ns, capped at ANeuralNetworks_getMaximumLoopTimeout(). */
int ANeuralNetworksExecution_setLoopTimeout(ANeuralNetworksExecution* execution, uint64_t duration);
/** Allows buffers longer than the operand's size; before any input or output is set. */
int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution* execution,
                                                         bool enable);
/** Allows computing more than once (feature level 5). */
int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution* execution, bool reusable);

/** The default WHILE loop timeout in ns (2 s). */
uint64_t ANeuralNetworks_getDefaultLoopTimeout(void);
/** The maximum WHILE loop timeout in ns (15 s). */
uint64_t ANeuralNetworks_getMaximumLoopTimeout(void);

/* ---- Bursts (feature level 3) ---- */

/** Creates a burst for executions of a finished compilation. */
int ANeuralNetworksBurst_create(ANeuralNetworksCompilation* compilation,
                                ANeuralNetworksBurst** burst);
/** Destroys a burst. */
void ANeuralNetworksBurst_free(ANeuralNetworksBurst* burst);

/* ---- Events ---- */

/** Waits until the execution completes; returns its result. */
int ANeuralNetworksEvent_wait(ANeuralNetworksEvent* event);
/** Destroys an event, first waiting for its execution. */
void ANeuralNetworksEvent_free(ANeuralNetworksEvent* event);
/** An event signalled when `sync_fence_fd` (duplicated) becomes readable (feature level 4). */
int ANeuralNetworksEvent_createFromSyncFenceFd(int sync_fence_fd, ANeuralNetworksEvent** event);
/** A duplicate of the event's sync fence fd; -1 and ANEURALNETWORKS_BAD_DATA when the event
 *  has none. */
int ANeuralNetworksEvent_getSyncFenceFd(const ANeuralNetworksEvent* event, int* sync_fence_fd);

/* ---- Runtime ---- */

/** The FeatureLevelCode this runtime implements (ANEURALNETWORKS_FEATURE_LEVEL_8). */
int64_t ANeuralNetworks_getRuntimeFeatureLevel(void);

#ifdef __cplusplus
}
#endif

#endif  // WEFT_ANDROID_NEURAL_NETWORKS_H
