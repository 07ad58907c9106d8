#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `sanitize`: clang-15, ASan + UBSan, shared with the
# sanitized test suites) and runs each for a bounded time, starting from its seed corpus in
# tests/fuzz/corpus/<target>/ (new inputs go to build/sanitize/corpus/<target>/, the seeds in the
# tree stay as they are). Fails on any crash, leak, sanitizer report or timeout, leaving the
# reproducer in build/sanitize/findings/.
#   bash scripts/fuzz.sh [seconds per target, default 60]
# WEFT_FUZZ_SEED: libFuzzer's -seed. Under CI (CI=true) it defaults to 1, so a run of one commit
# mutates the same inputs in the same order and a finding is the commit's, not the day's luck;
# elsewhere it defaults to 0 (a new random seed each run, for exploring).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"
if [[ "${CI:-}" == true ]]; then FUZZ_SEED="${WEFT_FUZZ_SEED:-1}"; else FUZZ_SEED="${WEFT_FUZZ_SEED:-0}"; fi
TARGETS=(model_fuzzer config_fuzzer model_cache_fuzzer network_fuzzer table_fuzzer program_fuzzer accel_cache_fuzzer
  onnx_fuzzer dram_fuzzer npy_fuzzer)

cmake --preset sanitize > /dev/null
cmake --build --preset sanitize --target weft_fuzzers

mkdir -p build/sanitize/findings
# The accelerator on its approx backend wherever the runtime creates it: the RTL's SystemC does
# not run under AddressSanitizer (it switches stacks; the verilated plugin is not instrumented).
export WEFT_BACKEND=approx
# Reports with file and line numbers.
if [[ -z "${ASAN_SYMBOLIZER_PATH:-}" ]] && command -v llvm-symbolizer > /dev/null; then
  export ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer)"
fi
fuzz_one() {
  local target="$1"
  local work="build/sanitize/corpus/${target}"
  mkdir -p "${work}"
  local seeds=()
  if [[ -d "tests/fuzz/corpus/${target}" ]]; then seeds=("tests/fuzz/corpus/${target}"); fi
  if [[ "${target}" == onnx_fuzzer && -d /usr/share/libonnx-testdata/data/node ]]; then
    # Seeds: the small models of ONNX's node tests (Debian's libonnx-testdata), not copied into the tree.
    for model in /usr/share/libonnx-testdata/data/node/test_{abs,add_bcast,conv_with_strides_padding,maxpool_2d_pads,gemm_default_scalar_bias,softmax_axis_1,slice,concat_2d_axis_0,gather_0,reshape_reduced_dims,quantizelinear,dequantizelinear,qlinearconv,qlinearmatmul_2D}/model.onnx; do
      if [[ -f "${model}" ]]; then cp "${model}" "${work}/seed-$(basename "$(dirname "${model}")").onnx"; fi
    done
  fi
  echo "fuzz: ${target} for ${SECONDS_PER_TARGET} s, seed ${FUZZ_SEED}"
  # close_fd_mask=2: the runtime reports every refused call on stderr; libFuzzer keeps its own.
  # WEFT_FUZZ_SEED_DIR: the targets that can (programs, accelerator caches) first write seeds made
  # by the current code next to the ones in the tree, so a format change never leaves them stale.
  WEFT_FUZZ_SEED_DIR="${work}" "build/sanitize/tests/fuzz/${target}" -max_total_time="${SECONDS_PER_TARGET}" \
    -seed="${FUZZ_SEED}" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1 \
    -artifact_prefix="build/sanitize/findings/${target}-" "${work}" "${seeds[@]}"
}

# The targets run side by side, one per core (each libFuzzer process is single-threaded); each
# one's log is printed whole when it ends, so logs never interleave.
JOBS="${WEFT_FUZZ_JOBS:-$(nproc)}"
logs="build/sanitize/fuzz-logs"
rm -rf "${logs}" && mkdir -p "${logs}"
declare -A running=()
failed=()
reap() {
  local pid
  wait -n -p pid "${!running[@]}" && status=0 || status=$?
  local target="${running[${pid}]}"
  unset "running[${pid}]"
  cat "${logs}/${target}.log"
  if ((status != 0)); then failed+=("${target}"); fi
}
for target in "${TARGETS[@]}"; do
  while ((${#running[@]} >= JOBS)); do reap; done
  fuzz_one "${target}" > "${logs}/${target}.log" 2>&1 &
  running[$!]="${target}"
done
while ((${#running[@]} > 0)); do reap; done
if ((${#failed[@]} > 0)); then
  # The reports again, last, so that the end of a CI log (often all that is kept) shows them, with
  # each small reproducer in base64 to replay it elsewhere.
  for target in "${failed[@]}"; do
    echo "fuzz: ---- ${target}: the end of its log ----"
    grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "${logs}/${target}.log" | tail -n 60
    for reproducer in build/sanitize/findings/"${target}"-*; do
      [[ -f "${reproducer}" ]] || continue
      if (($(stat -c %s "${reproducer}") <= 16384)); then
        echo "fuzz: ${reproducer} (base64):"
        base64 -w 0 "${reproducer}" && echo
      else
        echo "fuzz: ${reproducer}: $(stat -c %s "${reproducer}") bytes"
      fi
    done
  done
  echo "fuzz: finding in ${failed[*]} (reproducers in build/sanitize/findings/)" >&2
  exit 1
fi
echo "fuzz: ${#TARGETS[@]} targets, ${SECONDS_PER_TARGET} s each, no finding"
