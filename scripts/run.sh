#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds weft and runs the main job: the bundled quantized
# MobileNet v1 through the NNAPI C API on the RTL-simulated accelerator, with the per-layer
# timing report and the check against the CPU reference. Extra arguments go to `weft run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default
cmake --build --preset default --target weft
exec build/default/weft run "$@"
