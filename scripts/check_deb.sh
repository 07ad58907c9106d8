#!/usr/bin/env bash
# The Debian package in a clean Debian 12: a fresh root made by mmdebstrap from the mirror this
# machine uses, `apt-get install ./weft_*.deb` there (Depends and Recommends from Debian), then the
# main job (`weft run`: MobileNet v1 on the RTL, reference check) and the bundled example built
# against the installed package with find_package(weft) and run. Prints the package's size and
# the time of each step. Needs root and mmdebstrap; minutes, so not part of ctest.
#
#   bash scripts/check_deb.sh [build dir]      (default build/default; runs cpack there first)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}
command -v mmdebstrap >/dev/null || { echo "check_deb: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 2; }
# cpack's Depends come from dpkg-shlibdeps.
command -v dpkg-shlibdeps >/dev/null || { echo "check_deb: needs dpkg-shlibdeps (apt-get install dpkg-dev)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "check_deb: needs root (mmdebstrap's root mode, chroot)" >&2; exit 2; }
[ -f "$build/CPackConfig.cmake" ] || { echo "check_deb: $build is not a configured build directory" >&2; exit 2; }

step() { printf '%s check_deb: %s\n' "$(date -u +%T)" "$*"; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

t=$(now)
step "cpack -G DEB in $build"
(cd "$build" && nice -n 19 cpack -G DEB >cpack.log 2>&1) || { tail -30 "$build/cpack.log" >&2; exit 1; }
deb=$(ls -t "$build"/weft_*.deb | head -1)
step "$deb: $(du -k "$deb" | cut -f1) KiB ($(stat -c %s "$deb") bytes), made in $(took "$t")"
dpkg-deb --field "$deb" Depends Recommends

# The mirror this machine's apt uses (deb822 sources), else Debian's own.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
work=$(mktemp -d /tmp/weft-check-deb.XXXXXX)
# Kept when a step fails, for its logs.
trap 'if [ $? = 0 ]; then rm -rf "$work"; else echo "check_deb: logs kept in $work" >&2; fi' EXIT
cp "$deb" "$work/weft.deb"
log="$work/times"

# The hooks run inside mmdebstrap's chroot set-up (/proc, /dev mounted); each writes its time.
# Recommends are asked for explicitly: Debian installs them by default, mmdebstrap's apt does not.
t=$(now)
step "mmdebstrap bookworm from $mirror, then install and run"
nice -n 19 mmdebstrap --variant=apt --quiet \
  --customize-hook="copy-in $work/weft.deb /root" \
  --customize-hook="s=\$(date +%s.%N); chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o APT::Install-Recommends=true /root/weft.deb >\"$work/apt.log\" 2>&1 || { tail -30 \"$work/apt.log\"; exit 1; }; echo \"install \$(date +%s.%N) \$s\" >>\"$log\"" \
  --customize-hook="s=\$(date +%s.%N); chroot \"\$1\" sh -c 'cd /root && weft run' >\"$work/run.log\" 2>&1 || { tail -30 \"$work/run.log\"; exit 1; }; echo \"run \$(date +%s.%N) \$s\" >>\"$log\"" \
  --customize-hook="s=\$(date +%s.%N); chroot \"\$1\" python3 -c 'import weft; r = weft.run(\"/usr/share/weft/traces/networks/mobilenet_v1_224_quant.json\", backend=\"approx\"); print(r); assert r.passed and r.cycles > 0 and r.outputs' >\"$work/python.log\" 2>&1 || { tail -30 \"$work/python.log\"; exit 1; }; echo \"python \$(date +%s.%N) \$s\" >>\"$log\"" \
  --customize-hook="s=\$(date +%s.%N); chroot \"\$1\" sh -c 'cmake -S /usr/share/weft/examples/quantized_burst -B /root/example && cmake --build /root/example && /root/example/quantized_burst' >\"$work/example.log\" 2>&1 || { tail -30 \"$work/example.log\"; exit 1; }; echo \"example \$(date +%s.%N) \$s\" >>\"$log\"" \
  bookworm /dev/null "$mirror"
step "clean root made, package installed, main job and example run in $(took "$t")"
awk '{ printf "  %-8s %.1f s\n", $1, $2 - $3 }' "$log"
echo "--- apt-get install (last lines)"; tail -3 "$work/apt.log"
echo "--- weft run (last lines)"; tail -6 "$work/run.log"
echo "--- python"; tail -3 "$work/python.log"
echo "--- example"; tail -6 "$work/example.log"
