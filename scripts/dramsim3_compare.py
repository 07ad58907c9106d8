#!/usr/bin/python3
"""weft's DRAM model side by side with DRAMsim3 on the same traces and the same .ini files.

DRAMsim3 (umd-memsys/DRAMsim3) is not part of weft: build it elsewhere (`cmake .. && make
dramsim3main`) and point this script at its build directory. For each device file and each
generated trace it runs `dramsim3main` and `weft dram replay`, and prints one table row:
completion cycle, average read latency, row-hit rate and energy of both, with the targets
(cycles and latency within 5 %, row hits within 2 points) marked.

    python3 scripts/dramsim3_compare.py --dramsim3 /tmp/dramsim3/build --weft build/dram/weft
    python3 scripts/dramsim3_compare.py --dramsim3 DIR --configs HBM2_8Gb_x128.ini --patterns random --n 5000
    python3 scripts/dramsim3_compare.py --dramsim3 DIR --configs LPDDR4_8Gb_x16_2400.ini --traces conv.trace

`--commands` also compares the two command traces, command by command: weft's `weft dram replay
--command-trace` against the `ch_<n>cmd.trace` files of a DRAMsim3 built with its command trace
(`cmake .. -DCMD_TRACE=ON && make dramsim3main`), merged in cycle order, up to weft's last
command; each row then says how many commands match, in order, before the first that differs.

`--traces` compares trace files as they are (each on every device file), for instance the
accelerator's own, written by `weft run|layers --dram-trace FILE`. `--layers SET --hw CONFIG`
runs each layer of a layer set alone (`weft --backend timing --hw CONFIG layers`) and compares
its `--dram-trace` (traces/dram/network_layers.json: eight of the bundled networks' layers).
With either, no trace is generated unless `--patterns` asks.

    python3 scripts/dramsim3_compare.py --dramsim3 DIR --configs LPDDR4_8Gb_x16_2400.ini \
        --layers traces/dram/network_layers.json --hw weft16-lpddr4

How DRAMsim3's figures are taken (its main program runs exactly -c CYCLES cycles):
- completion: the smallest CYCLES at which every transaction is done, found by doubling then
  bisection; DRAMsim3 returns a transaction in the first cycle >= its completion cycle, so its
  completion cycle is that CYCLES - 1, which is what weft's dram_cycles means.
- its trace reader hands the last line to the controller twice (as a read); the search waits
  for every transaction that completes at all (N + 1, or N when the extra read never does),
  and its latency average includes the extra one when it completes.
- row-hit rate: (num_read_row_hits + num_write_row_hits) / (num_read_cmds + num_write_cmds).
- energy: DRAMsim3 multiplies mA and V by cycles, not ns; its total_energy * tCK is in pJ.

Traces (one transaction offered every `--gap` cycles, addresses aligned to a transaction):
  seq_read, seq_write   consecutive addresses from 0
  mix                   STREAM-add-like: read a[i], read b[i], write c[i] (three regions)
  stride                one row of a bank apart: every transaction in another bank (or channel)
  random                uniform random addresses over the device, 2/3 reads
  random_local          reads random within 128 KiB, writes within the next 128 KiB: some row
                        hits, repeated addresses (merged reads and writes). Reads and writes do
                        not share addresses: DRAMsim3 deadlocks when a full write queue's oldest
                        write waits for a read still in the read queue (weft lets reads go on)
  random_sparse         the same, one every 40 cycles (latency without queueing)
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

DEFAULT_CONFIGS = ["DDR4_8Gb_x16_3200.ini", "LPDDR4_8Gb_x16_2400.ini", "HBM2_8Gb_x128.ini"]
PATTERNS = ["seq_read", "seq_write", "mix", "stride", "random", "random_local", "random_sparse"]


def read_ini(path):
    """The few fields the generator needs, as DRAMsim3 reads them (case-insensitive names)."""
    sections, section = {}, None
    for raw in open(path):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("["):
            section = line[1:line.index("]")].strip().lower()
            continue
        name, value = line.split("=", 1)
        # A remark after a number ("tCK = 0.666 (1/1.5)") is not part of it, as DRAMsim3 reads it.
        value = value.split(";")[0].strip()
        number = re.match(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", value)
        sections.setdefault(section, {})[name.strip().lower()] = number.group(0) if number else value
    s = sections
    get = lambda sec, name, d: s.get(sec, {}).get(name.lower(), d)
    protocol = get("dram_structure", "protocol", "DDR3")
    bl = int(get("dram_structure", "BL", 8))
    columns = int(get("dram_structure", "columns", 1024))
    if protocol.startswith("GDDR"):
        columns *= bl
    elif protocol.startswith("HBM"):
        columns *= 2
    bus = int(get("system", "bus_width", 64))
    dev = int(get("dram_structure", "device_width", 8))
    rows = int(get("dram_structure", "rows", 65536))
    groups = int(get("dram_structure", "bankgroups", 2))
    per_group = int(get("dram_structure", "banks_per_group", 2))
    channels = int(get("system", "channels", 1))
    channel_mib = int(get("system", "channel_size", 1024))
    rank_bytes = columns * dev // 8 * rows * groups * per_group * (bus // dev)
    ranks = max(1, (channel_mib << 20) // rank_bytes)
    return {
        "request_bytes": bus // 8 * bl,
        "row_bytes": (columns // bl) * (bus // 8 * bl),  # one bank's row at the column field's width
        "capacity": rank_bytes * ranks * channels,
        "tck": float(get("timing", "tCK", 1.0)),
    }


def make_trace(pattern, dev, n, gap, seed):
    """(addresses, is_write, cycles) of n transactions."""
    rng = np.random.default_rng(seed)
    rb = dev["request_bytes"]
    slots = dev["capacity"] // rb
    idx = np.arange(n, dtype=np.uint64)
    if pattern == "seq_read":
        addr, wr = idx * rb, np.zeros(n, bool)
    elif pattern == "seq_write":
        addr, wr = idx * rb, np.ones(n, bool)
    elif pattern == "mix":
        region = np.uint64(dev["capacity"] // 4 // rb * rb)
        k = idx // 3
        addr = (idx % 3) * region + k * np.uint64(rb)
        wr = idx % 3 == 2
    elif pattern == "stride":
        row = np.uint64(dev["row_bytes"])
        addr = (idx * row + (idx // 64) * np.uint64(rb)) % np.uint64(dev["capacity"])
        wr = np.zeros(n, bool)
    elif pattern in ("random", "random_sparse"):
        addr = rng.integers(0, slots, n, dtype=np.uint64) * np.uint64(rb)
        wr = rng.random(n) < 1 / 3
    elif pattern == "random_local":
        wr = rng.random(n) < 1 / 3
        addr = (rng.integers(0, (128 << 10) // rb, n, dtype=np.uint64) +
                wr.astype(np.uint64) * np.uint64((128 << 10) // rb)) * np.uint64(rb)
    else:
        raise ValueError(pattern)
    step = 40 if pattern == "random_sparse" else gap
    cycles = idx * np.uint64(step)
    return addr, wr, cycles


def write_trace(path, addr, wr, cycles):
    with open(path, "w") as f:
        for a, w, c in zip(addr.tolist(), wr.tolist(), cycles.tolist()):
            f.write(f"0x{a:x} {'WRITE' if w else 'READ'} {c}\n")


def dramsim3_run(binary, ini, trace, cycles, workdir):
    out = os.path.join(workdir, f"ds3_{cycles}")
    os.makedirs(out, exist_ok=True)
    subprocess.run([binary, ini, "-c", str(cycles), "-t", trace, "-o", out], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(out, "dramsim3.json")) as f:
        channels = json.load(f)
    return list(channels.values())


def done_count(channels):
    return sum(c["num_reads_done"] + c["num_writes_done"] for c in channels)


def dramsim3_figures(binary, ini, trace, n, guess, workdir):
    """Smallest CYCLES with every transaction done, and DRAMsim3's statistics there.

    Its reader hands the last line over twice; the extra transaction usually completes (N + 1
    done) but not always (a stride trace here leaves it in a queue for ever), so the target is
    the count reached long after the trace ends, which must be N or N + 1."""
    hi = int(guess * 4) + 200000
    want = done_count(dramsim3_run(binary, ini, trace, hi, workdir))
    if want < n:
        raise RuntimeError(f"DRAMsim3 finished only {want} of {n} transactions in {hi} cycles")
    lo = max(1, int(guess * 0.8))
    if done_count(dramsim3_run(binary, ini, trace, lo, workdir)) >= want:
        lo = 1
    while hi - lo > 1:  # done(lo) < want <= done(hi)
        mid = (lo + hi) // 2
        if done_count(dramsim3_run(binary, ini, trace, mid, workdir)) >= want:
            hi = mid
        else:
            lo = mid
    ch = dramsim3_run(binary, ini, trace, hi, workdir)
    reads = sum(c["num_reads_done"] for c in ch)
    lat = sum(c["average_read_latency"] * c["num_reads_done"] for c in ch) / reads if reads else 0.0
    cmds = sum(c["num_read_cmds"] + c["num_write_cmds"] for c in ch)
    hits = sum(c["num_read_row_hits"] + c["num_write_row_hits"] for c in ch)
    return {
        "dram_cycles": hi - 1,
        "average_read_latency_cycles": lat,
        "row_hit_rate": hits / cmds if cmds else 0.0,
        "activates": sum(c["num_act_cmds"] for c in ch),
        "refreshes": sum(c["num_ref_cmds"] + c["num_refb_cmds"] for c in ch),
        "energy_units": sum(c["total_energy"] for c in ch),
    }


def weft_figures(weft, ini, trace, workdir, commands=None):
    out = os.path.join(workdir, "weft.json")
    extra = ["--command-trace", commands] if commands else []
    ran = subprocess.run([weft, "dram", "replay", trace, "--dram", ini, "--json", out, "--quiet", *extra],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if ran.returncode != 0:  # a trace line weft refuses (an address beyond this device, a bad line)
        sys.exit(f"dramsim3_compare: {os.path.basename(ini)}: {ran.stderr.strip()}")
    with open(out) as f:
        return json.load(f)


def compare_commands(weft_commands, dramsim3_dir):
    """(commands matching in order before the first difference, weft's count, DRAMsim3's count
    up to weft's last cycle, the first differing pair or None)."""
    with open(weft_commands) as f:
        ours = f.read().splitlines()
    files = [n for n in os.listdir(dramsim3_dir) if re.fullmatch(r".*ch_(\d+)cmd\.trace", n)]
    if not files:
        sys.exit("dramsim3_compare: --commands needs DRAMsim3 built with its command trace (cmake -DCMD_TRACE=ON): "
                 f"no ch_<n>cmd.trace in {dramsim3_dir}")
    last = int(ours[-1].split()[0]) if ours else -1
    theirs = []
    for name in files:
        channel = int(re.fullmatch(r".*ch_(\d+)cmd\.trace", name).group(1))
        with open(os.path.join(dramsim3_dir, name)) as f:
            for order, line in enumerate(f.read().splitlines()):
                cycle = int(line.split()[0])
                if cycle <= last:
                    theirs.append((cycle, channel, order, line))
    theirs = [t[3] for t in sorted(theirs)]
    same = 0
    while same < min(len(ours), len(theirs)) and ours[same] == theirs[same]:
        same += 1
    differ = None if same == len(ours) == len(theirs) else (ours[same] if same < len(ours) else "(end)",
                                                              theirs[same] if same < len(theirs) else "(end)")
    return same, len(ours), len(theirs), differ


def layer_traces(weft, layer_set, hw, workdir):
    """(label, trace path) of each layer of a layer set run alone at `hw` with --dram-trace."""
    try:
        with open(layer_set) as f:
            entries = json.load(f).get("layers", [])
    except (OSError, ValueError, AttributeError) as e:
        sys.exit(f"dramsim3_compare: {layer_set}: not a layer set ({e})")
    if not entries:
        sys.exit(f"dramsim3_compare: {layer_set} has no \"layers\" entries")
    out = []
    for i, entry in enumerate(entries):
        one = os.path.join(workdir, f"layer{i}.json")
        with open(one, "w") as f:
            json.dump({"format": 1, "name": entry["name"], "layers": [entry]}, f)
        trace = os.path.join(workdir, f"layer{i}.trace")
        ran = subprocess.run([weft, "--backend", "timing", "--hw", hw, "layers", one, "--quiet", "--json",
                              os.path.join(workdir, f"layer{i}.out.json"), "--dram-trace", trace],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if ran.returncode != 0:
            sys.exit(f"dramsim3_compare: layer {entry.get('name', i)} of {layer_set} at {hw}: {ran.stderr.strip()}")
        out.append((f"{entry['name']} ({hw})", trace))
    return out


def pct(a, b):
    return 100.0 * (a - b) / b if b else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dramsim3", required=True, help="DRAMsim3 build directory (with dramsim3main)")
    ap.add_argument("--configs-dir", help="DRAMsim3's configs/ (default: DIR/../configs)")
    ap.add_argument("--weft", default=None, help="the weft binary (default: build/default/weft)")
    ap.add_argument("--configs", nargs="+", default=DEFAULT_CONFIGS, help="device files of configs/")
    ap.add_argument("--patterns", nargs="+", default=None, choices=PATTERNS,
                    help="generated traces (default: all of them, none with --traces or --layers)")
    ap.add_argument("--traces", nargs="+", default=[], metavar="FILE",
                    help="trace files in DRAMsim3's format to compare as well (e.g. weft's --dram-trace)")
    ap.add_argument("--layers", metavar="SET", help="a layer set: each layer run alone by weft, its --dram-trace compared")
    ap.add_argument("--hw", default="weft16-lpddr4", help="with --layers: the configuration the layers run at")
    ap.add_argument("--n", type=int, default=20000, help="transactions a trace")
    ap.add_argument("--gap", type=int, default=1, help="cycles between offered transactions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the rows as JSON here")
    ap.add_argument("--check", action="store_true", help="exit 1 if a row misses a target")
    ap.add_argument("--commands", action="store_true",
                    help="also compare the command traces (DRAMsim3 built with -DCMD_TRACE=ON)")
    args = ap.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = os.path.join(args.dramsim3, "dramsim3main")
    configs_dir = args.configs_dir or os.path.join(os.path.dirname(os.path.abspath(args.dramsim3)), "configs")
    weft = args.weft or os.path.join(root, "build", "default", "weft")
    for path, what in ((binary, "dramsim3main"), (weft, "weft")):
        if not os.access(path, os.X_OK):
            sys.exit(f"dramsim3_compare: {what} not found at {path}")
    for path in args.traces:
        if not os.path.isfile(path):
            sys.exit(f"dramsim3_compare: trace file {path} not found")
    patterns = args.patterns if args.patterns is not None else ([] if args.traces or args.layers else PATTERNS)

    rows, misses = [], 0
    header = ("| device | trace | cycles weft | cycles DRAMsim3 | diff | read latency weft | DRAMsim3 | diff "
              "| row hits weft | DRAMsim3 | diff (points) | energy weft / DRAMsim3 |" +
              (" commands identical |" if args.commands else ""))
    with tempfile.TemporaryDirectory(prefix="dramsim3_compare.") as work:
        traces = [(os.path.basename(t), t) for t in args.traces]
        if args.layers:
            traces += layer_traces(weft, args.layers, args.hw, work)
        print(header)
        print("|" + "---|" * (13 if args.commands else 12))
        for config in args.configs:
            ini = os.path.join(configs_dir, config)
            dev = read_ini(ini)
            for pattern, trace in [(p, None) for p in patterns] + traces:
                if trace is None:  # generated
                    trace = os.path.join(work, f"{pattern}.trace")
                    write_trace(trace, *make_trace(pattern, dev, args.n, args.gap, args.seed))
                commands = os.path.join(work, "weft.commands") if args.commands else None
                w = weft_figures(weft, ini, trace, work, commands)
                d = dramsim3_figures(binary, ini, trace, w["transactions"], w["dram_cycles"], work)
                same = None
                if commands:  # DRAMsim3's run at the completion cycle (dramsim3_figures' last)
                    same = compare_commands(commands, os.path.join(work, f"ds3_{d['dram_cycles'] + 1}"))
                dc = pct(w["dram_cycles"], d["dram_cycles"])
                # A trace without reads: DRAMsim3's only read is its reader's extra one.
                has_reads = w["reads"] > 0
                dl = pct(w["average_read_latency_cycles"], d["average_read_latency_cycles"]) if has_reads else 0.0
                dh = 100.0 * (w["row_hit_rate"] - d["row_hit_rate"])
                ds3_pj = d["energy_units"] * dev["tck"]
                energy = w["energy_pj"] / ds3_pj if ds3_pj else float("nan")
                ok = abs(dc) <= 5 and abs(dl) <= 5 and abs(dh) <= 2
                misses += not ok
                mark = lambda good: "" if good else " ✗"
                print(f"| {config.replace('.ini', '')} | {pattern} | {w['dram_cycles']} | {d['dram_cycles']} | "
                      f"{dc:+.2f} %{mark(abs(dc) <= 5)} | {w['average_read_latency_cycles']:.1f} | "
                      f"{d['average_read_latency_cycles']:.1f} | "
                      f"{f'{dl:+.2f} %' if has_reads else 'no reads'}{mark(abs(dl) <= 5)} | "
                      f"{100 * w['row_hit_rate']:.1f} % | {100 * d['row_hit_rate']:.1f} % | "
                      f"{dh:+.2f}{mark(abs(dh) <= 2)} | {energy:.3f} |" +
                      (f" {same[0]} of {max(same[1], same[2])} |" if same else ""), flush=True)
                if same and same[3]:
                    print(f"|   first difference: weft `{same[3][0]}`, DRAMsim3 `{same[3][1]}` |", flush=True)
                rows.append({"device": config, "trace": pattern, "weft": w, "dramsim3": d,
                             "cycles_diff_pct": dc, "latency_diff_pct": dl, "row_hit_diff_points": dh,
                             "energy_ratio": energy})
                if same:
                    rows[-1]["commands"] = {"identical": same[0], "weft": same[1], "dramsim3": same[2]}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print(f"\n{len(rows) - misses} of {len(rows)} rows within the targets "
          "(cycles and read latency within 5 %, row-hit rate within 2 points)")
    return 1 if args.check and misses else 0


if __name__ == "__main__":
    sys.exit(main())
