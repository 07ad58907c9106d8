/* A small quantized NNAPI model on weft's accelerator, in plain NDK calls:
 *   1. build CONV_2D (3x3, RELU fused) then MAX_POOL_2D (2x2) on TENSOR_QUANT8_ASYMM;
 *   2. find the accelerator among the devices (ANEURALNETWORKS_DEVICE_ACCELERATOR) and check it
 *      runs every operation;
 *   3. compile the model for the accelerator alone and for the CPU device alone;
 *   4. execute it several times through a burst, asking for timing, and read NNAPI's durations;
 *   5. compare the accelerator's output with the CPU device's, byte for byte.
 * Exit code 0 when everything worked and the outputs agree. Nothing here is weft-specific except
 * the device names printed. */
#include <android/NeuralNetworks.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kH = 8, kW = 8, kC = 4, kK = 8, kOutH = 4, kOutW = 4, kRuns = 3 };

/* Every NNAPI call returns a result code; any failure ends the program naming the call. */
#define CHECK(call)                                                                  \
  do {                                                                               \
    int status_ = (call);                                                            \
    if (status_ != ANEURALNETWORKS_NO_ERROR) {                                       \
      fprintf(stderr, "quantized_burst: %s failed with result %d\n", #call, status_); \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

static uint32_t addOperand(ANeuralNetworksModel* model, int32_t type, uint32_t rank, const uint32_t* dims,
                           float scale, int32_t zeroPoint) {
  static uint32_t next = 0;
  ANeuralNetworksOperandType t = {type, rank, dims, scale, zeroPoint};
  CHECK(ANeuralNetworksModel_addOperand(model, &t));
  return next++;
}

static uint32_t addInt32(ANeuralNetworksModel* model, int32_t value) {
  const uint32_t index = addOperand(model, ANEURALNETWORKS_INT32, 0, NULL, 0.0f, 0);
  CHECK(ANeuralNetworksModel_setOperandValue(model, index, &value, sizeof(value)));
  return index;
}

/* input [1,8,8,4] -> CONV_2D 3x3 SAME, 8 filters, RELU -> [1,8,8,8] -> MAX_POOL_2D 2x2 /2 -> [1,4,4,8] */
static ANeuralNetworksModel* buildModel(void) {
  static uint8_t filter[kK * 3 * 3 * kC];
  static int32_t bias[kK];
  for (size_t i = 0; i < sizeof(filter); ++i) filter[i] = (uint8_t)(128 + (int)(i * 37 % 61) - 30);
  for (int k = 0; k < kK; ++k) bias[k] = 256 * (k - 3);

  ANeuralNetworksModel* model = NULL;
  CHECK(ANeuralNetworksModel_create(&model));
  const uint32_t inDims[] = {1, kH, kW, kC}, filterDims[] = {kK, 3, 3, kC}, biasDims[] = {kK};
  const uint32_t convDims[] = {1, kH, kW, kK}, outDims[] = {1, kOutH, kOutW, kK};
  const float inScale = 1.0f / 16, filterScale = 1.0f / 32;
  const uint32_t input = addOperand(model, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 4, inDims, inScale, 0);
  const uint32_t weights = addOperand(model, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 4, filterDims, filterScale, 128);
  const uint32_t biases = addOperand(model, ANEURALNETWORKS_TENSOR_INT32, 1, biasDims, inScale * filterScale, 0);
  CHECK(ANeuralNetworksModel_setOperandValue(model, weights, filter, sizeof(filter)));
  CHECK(ANeuralNetworksModel_setOperandValue(model, biases, bias, sizeof(bias)));
  const uint32_t convIn[] = {input, weights, biases, addInt32(model, ANEURALNETWORKS_PADDING_SAME),
                             addInt32(model, 1), addInt32(model, 1), addInt32(model, ANEURALNETWORKS_FUSED_RELU)};
  const uint32_t conv = addOperand(model, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 4, convDims, 0.25f, 0);
  CHECK(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_CONV_2D, 7, convIn, 1, &conv));
  const uint32_t poolIn[] = {conv, addInt32(model, ANEURALNETWORKS_PADDING_VALID), addInt32(model, 2),
                             addInt32(model, 2), addInt32(model, 2), addInt32(model, 2),
                             addInt32(model, ANEURALNETWORKS_FUSED_NONE)};
  const uint32_t output = addOperand(model, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 4, outDims, 0.25f, 0);
  CHECK(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_MAX_POOL_2D, 7, poolIn, 1, &output));
  CHECK(ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, &input, 1, &output));
  CHECK(ANeuralNetworksModel_finish(model));
  return model;
}

static const ANeuralNetworksDevice* findDevice(int32_t wantedType, const char** name) {
  uint32_t count = 0;
  CHECK(ANeuralNetworks_getDeviceCount(&count));
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = NULL;
    int32_t type = 0;
    CHECK(ANeuralNetworks_getDevice(i, &device));
    CHECK(ANeuralNetworksDevice_getType(device, &type));
    CHECK(ANeuralNetworksDevice_getName(device, name));
    if (type == wantedType) return device;
  }
  return NULL;
}

static ANeuralNetworksCompilation* compileFor(ANeuralNetworksModel* model, const ANeuralNetworksDevice* device) {
  ANeuralNetworksCompilation* compilation = NULL;
  CHECK(ANeuralNetworksCompilation_createForDevices(model, &device, 1, &compilation));
  CHECK(ANeuralNetworksCompilation_setPreference(compilation, ANEURALNETWORKS_PREFER_SUSTAINED_SPEED));
  CHECK(ANeuralNetworksCompilation_finish(compilation));
  return compilation;
}

/* One execution through `burst` (NULL: a plain compute); prints the durations when timed. */
static void execute(ANeuralNetworksCompilation* compilation, ANeuralNetworksBurst* burst, const uint8_t* input,
                    uint8_t* output, size_t outputSize, int run) {
  ANeuralNetworksExecution* execution = NULL;
  CHECK(ANeuralNetworksExecution_create(compilation, &execution));
  if (burst != NULL) CHECK(ANeuralNetworksExecution_setMeasureTiming(execution, true));
  CHECK(ANeuralNetworksExecution_setInput(execution, 0, NULL, input, kH * kW * kC));
  CHECK(ANeuralNetworksExecution_setOutput(execution, 0, NULL, output, outputSize));
  if (burst != NULL) {
    CHECK(ANeuralNetworksExecution_burstCompute(execution, burst));
    uint64_t onHardware = 0, inDriver = 0;
    CHECK(ANeuralNetworksExecution_getDuration(execution, ANEURALNETWORKS_DURATION_ON_HARDWARE, &onHardware));
    CHECK(ANeuralNetworksExecution_getDuration(execution, ANEURALNETWORKS_DURATION_IN_DRIVER, &inDriver));
    printf("burst execution %d: on hardware %.3f us, in driver %.3f us\n", run, onHardware / 1e3, inDriver / 1e3);
  } else {
    CHECK(ANeuralNetworksExecution_compute(execution));
  }
  ANeuralNetworksExecution_free(execution);
}

int main(void) {
  ANeuralNetworksModel* model = buildModel();
  const char *acceleratorName = NULL, *cpuName = NULL;
  const ANeuralNetworksDevice* accelerator = findDevice(ANEURALNETWORKS_DEVICE_ACCELERATOR, &acceleratorName);
  const ANeuralNetworksDevice* cpu = findDevice(ANEURALNETWORKS_DEVICE_CPU, &cpuName);
  if (accelerator == NULL || cpu == NULL) {
    fprintf(stderr, "quantized_burst: no %s device (the runtime says why above)\n", accelerator ? "CPU" : "accelerator");
    return 1;
  }
  bool supported[2] = {false, false};
  CHECK(ANeuralNetworksModel_getSupportedOperationsForDevices(model, &accelerator, 1, supported));
  printf("accelerator %s runs CONV_2D: %s, MAX_POOL_2D: %s\n", acceleratorName, supported[0] ? "yes" : "no",
         supported[1] ? "yes" : "no");
  if (!supported[0] || !supported[1]) return 1;

  uint8_t input[kH * kW * kC], onAccelerator[kOutH * kOutW * kK], onCpu[kOutH * kOutW * kK];
  for (size_t i = 0; i < sizeof(input); ++i) input[i] = (uint8_t)(i * 29 % 256);

  ANeuralNetworksCompilation* compilation = compileFor(model, accelerator);
  ANeuralNetworksBurst* burst = NULL;
  CHECK(ANeuralNetworksBurst_create(compilation, &burst));
  for (int run = 1; run <= kRuns; ++run) execute(compilation, burst, input, onAccelerator, sizeof(onAccelerator), run);
  ANeuralNetworksBurst_free(burst);

  ANeuralNetworksCompilation* reference = compileFor(model, cpu);
  execute(reference, NULL, input, onCpu, sizeof(onCpu), 0);
  const bool same = memcmp(onAccelerator, onCpu, sizeof(onCpu)) == 0;
  printf("output (%zu bytes) on %s %s the output on %s\n", sizeof(onCpu), acceleratorName,
         same ? "matches" : "DIFFERS FROM", cpuName);

  ANeuralNetworksCompilation_free(reference);
  ANeuralNetworksCompilation_free(compilation);
  ANeuralNetworksModel_free(model);
  return same ? 0 : 1;
}
