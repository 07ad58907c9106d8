#!/usr/bin/env python3
"""Golden outputs of the cycle-level DRAM model, to prove a change to it changes nothing.

    python3 scripts/dram_golden.py record --weft build/default/weft OUT_DIR
    python3 scripts/dram_golden.py compare GOLDEN_DIR NEW_DIR

`record` writes `weft dram replay --json` of synthetic traces (sequential reads and writes,
read/read/write streams, bank strides, random, random within 256 KiB, sparse random; back to
back and 3 cycles apart) on every preset and on three DRAMsim3 .ini variants written here (per-bank
queues; per-rank queues with simultaneous refresh and small queues; closed page, unified queue,
per-bank refresh), then `weft --backend approx` layer and run reports at weft16-lpddr4,
weft16-hbm2 and weft16-ddr4, and the --dram-trace of two layer tables replayed on several devices.
`compare` holds every file of GOLDEN_DIR equal in NEW_DIR: JSON and CSV without their host-time
fields (seconds, per-second speeds, wall, in-driver time), everything else byte for byte. Exit status 1 on any
difference. Record with the build before the change, then with the build after it.
"""
import argparse
import csv
import json
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCALESIM = os.path.join(ROOT, "..", "shared", "workloads", "scalesim")
PRESETS = ["ddr4-3200", "lpddr4-3200", "lpddr4x-4266", "lpddr5-6400", "hbm2", "gddr6"]
CONFIGS = ["weft16-lpddr4", "weft16-hbm2", "weft16-ddr4"]
TABLES = ["conv_nets/mobilenet", "conv_nets/Resnet50", "gemm/NCF"]
HOST_TIME = re.compile(r"(seconds|persecond|wall|host|driver|_ms$|Ms$)", re.I)

INI = """[dram_structure]
protocol = DDR4
bankgroups = 4
banks_per_group = 4
rows = 65536
columns = 1024
device_width = 8
BL = 8

[timing]
tCK = 0.75
CL = 16
CWL = 12
tRCD = 16
tRP = 16
tRAS = 39
tRFC = 420
tREFI = 10400
tRRD_S = 4
tRRD_L = 6
tWTR_S = 3
tWTR_L = 9
tFAW = 26
tWR = 18
tRTP = 9
tCCD_S = 4
tCCD_L = 6
tRTRS = 1

[system]
channel_size = 8192
channels = 2
bus_width = 64
"""
INI_VARIANTS = {
    "ini_perbank": "address_mapping = rochrababgco\n",
    "ini_perrank": "address_mapping = rochrababgco\nqueue_structure = PER_RANK\n"
                   "refresh_policy = RANK_LEVEL_SIMULTANEOUS\ntrans_queue_size = 16\ncmd_queue_size = 8\n",
    "ini_closed_unified": "address_mapping = rorabgbachco\nrow_buf_policy = CLOSE_PAGE\nunified_queue = true\n"
                          "refresh_policy = BANK_LEVEL_STAGGERED\n",
}


def synthetic(pattern, n, gap, seed, request=64, row=8192, capacity=4 << 30):
    """(address, is_write, cycle) of n transactions, as scripts/dramsim3_compare.py's patterns."""
    rng = random.Random(seed)
    region = capacity // 4 // request * request
    local = (128 << 10) // request
    for i in range(n):
        if pattern == "seq_read":
            a, w = i * request, False
        elif pattern == "seq_write":
            a, w = i * request, True
        elif pattern == "mix":
            a, w = (i % 3) * region + (i // 3) * request, i % 3 == 2
        elif pattern == "stride":
            a, w = (i * row + (i // 64) * request) % capacity, False
        elif pattern in ("random", "random_sparse"):
            a, w = rng.randrange(capacity // request) * request, rng.random() < 1 / 3
        else:  # random_local: reads within 128 KiB, writes within the next
            w = rng.random() < 1 / 3
            a = (rng.randrange(local) + w * local) * request
        yield a, w, i * (40 if pattern == "random_sparse" else gap)


def write_trace(path, records):
    with open(path, "w") as f:
        for a, w, c in records:
            f.write(f"0x{a:x} {'WRITE' if w else 'READ'} {c}\n")


def run(cmd, log=None):
    with open(log or os.devnull, "w") as out:
        if subprocess.run(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}")


def record(weft, out, n):
    work = os.path.join(out, "inputs")
    os.makedirs(work, exist_ok=True)
    traces = []
    for pattern in ["seq_read", "seq_write", "mix", "stride", "random", "random_local", "random_sparse"]:
        for gap in (0,) if pattern == "random_sparse" else (0, 3):
            traces.append(os.path.join(work, f"{pattern}_g{gap}.trace"))
            write_trace(traces[-1], synthetic(pattern, n, gap, 7))
    traces.append(os.path.join(work, "random_local32_g1.trace"))
    write_trace(traces[-1], synthetic("random_local", n, 1, 9, request=32))
    devices = list(PRESETS)
    for name, system in INI_VARIANTS.items():
        devices.append(os.path.join(work, name + ".ini"))
        with open(devices[-1], "w") as f:
            f.write(INI + system)

    def replay(trace, device):
        name = os.path.basename(device).removesuffix(".ini") + "_" + os.path.basename(trace).removesuffix(".trace")
        run([weft, "dram", "replay", trace, "--dram", device, "--quiet", "--json", os.path.join(out, name + ".json")])

    for device in devices:
        for trace in traces:
            replay(trace, device)
    for hw in CONFIGS:
        for table in TABLES:
            stem = os.path.join(out, f"layers_{os.path.basename(table)}_{hw}")
            run([weft, "--backend", "approx", "--hw", hw, "layers", os.path.join(SCALESIM, table + ".csv"), "--json",
                 stem + ".json", "--compute-report", stem + ".cr.csv", "--quiet"], stem + ".log")
        stem = os.path.join(out, f"run_mobilenet_v1_{hw}")
        run([weft, "--backend", "approx", "--hw", hw, "run", "traces/networks/mobilenet_v1_224_quant.json", "--json",
             stem + ".json", "--csv", stem + ".csv", "--quiet"], stem + ".log")
    for hw, table in [("weft16-lpddr4", "conv_nets/Resnet18"), ("weft16-hbm2", "gemm/NCF")]:
        trace = os.path.join(out, f"{os.path.basename(table)}_{hw}.trace")
        run([weft, "--backend", "approx", "--hw", hw, "layers", os.path.join(SCALESIM, table + ".csv"), "--json",
             trace + ".json", "--dram-trace", trace, "--quiet"])
        for device in ["ddr4-3200", "lpddr4-3200", "hbm2"] + devices[-2:]:
            replay(trace, device)


def without_host_time(x):
    if isinstance(x, dict):
        return {k: without_host_time(v) for k, v in x.items() if not HOST_TIME.search(k)}
    if isinstance(x, list):
        return [without_host_time(v) for v in x]
    return x


def csv_without_host_time(path):
    rows = list(csv.reader(open(path)))
    keep = [i for i, h in enumerate(rows[0]) if not HOST_TIME.search(h)] if rows else []
    return [[r[i] for i in keep if i < len(r)] for r in rows]


def compare(golden, new):
    same, different = 0, []
    for name in sorted(os.listdir(golden)):
        a, b = os.path.join(golden, name), os.path.join(new, name)
        if name.endswith(".log") or os.path.isdir(a):
            continue
        if not os.path.exists(b):
            equal = False
        elif name.endswith(".json"):
            equal = without_host_time(json.load(open(a))) == without_host_time(json.load(open(b)))
        elif name.endswith(".csv"):
            equal = csv_without_host_time(a) == csv_without_host_time(b)
        else:
            equal = open(a, "rb").read() == open(b, "rb").read()
        same += equal
        if not equal:
            different.append(name)
    for name in different:
        print("different:", name)
    print(f"{same} identical, {len(different)} different")
    return not different


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("--weft", default=os.path.join(ROOT, "build", "default", "weft"))
    r.add_argument("--n", type=int, default=100000, help="transactions a synthetic trace")
    c = sub.add_parser("compare")
    c.add_argument("golden")
    c.add_argument("new")
    a = p.parse_args()
    if a.command == "record":
        record(os.path.abspath(a.weft), os.path.abspath(a.out), a.n)
    else:
        sys.exit(0 if compare(a.golden, a.new) else 1)


if __name__ == "__main__":
    main()
