/*
 * NNAPI vendor extensions. On Android these four functions are declared in a header of their
 * own; weft declares them in NeuralNetworks.h, and this header exists so that extension code
 * that includes it compiles unchanged.
 */
#ifndef WEFT_ANDROID_NEURAL_NETWORKS_EXTENSIONS_H
#define WEFT_ANDROID_NEURAL_NETWORKS_EXTENSIONS_H

#include "NeuralNetworks.h"

#endif  // WEFT_ANDROID_NEURAL_NETWORKS_EXTENSIONS_H
