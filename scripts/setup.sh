#!/usr/bin/env bash
# Installs every system package weft needs on Debian 12. Idempotent: a package that is
# already installed is skipped, so a second run costs one dpkg query.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config python3
  verilator libsystemc-dev zlib1g-dev
  libfmt-dev libgtest-dev libgmock-dev googletest libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  yosys python3-numpy python3-matplotlib
  slurm-wlm munge chromium
  clang-15 libfuzzer-15-dev
  libonnx-dev libprotobuf-dev libonnx-testdata
  python3-dev pybind11-dev python3-onnx
  python3-torch python3-torchvision
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
