#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds weft and runs every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default
cmake --build --preset default
ctest --preset default "$@"
