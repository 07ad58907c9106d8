#!/usr/bin/env python3
"""Runs ONNX's own test directories (Debian's libonnx-testdata: node/, pytorch-converted/,
pytorch-operator/, simple/) through `weft run` and sorts every test into one of four outcomes:

  passed   the outputs are within the test data's tolerance (exit code 0)
  refused  weft names what it does not import (exit code 2 and a "weft: error:" line)
  wrong    weft ran the model and the outputs differ (exit code 1)
  crashed  anything else (a signal, another exit code, an error without a message)

It exits non-zero when any test is wrong or crashed, or when fewer than --min-passed pass.
  scripts/onnx_node_tests.py --weft build/default/weft [--set node] [--jobs 2] [--list FILE]
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

DATA = "/usr/share/libonnx-testdata/data"


def run_one(weft, test_dir, out_dir, timeout):
    name = os.path.basename(test_dir)
    env = dict(os.environ, WEFT_BACKEND=os.environ.get("WEFT_BACKEND", "approx"), WEFT_YOSYS="none")
    cmd = [weft, "run", test_dir, "--quiet", "--json", os.path.join(out_dir, name + ".json"),
           "--csv", os.path.join(out_dir, name + ".csv")]
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, text=True,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return name, "crashed", f"timed out after {timeout} s"
    text = p.stdout
    if p.returncode == 0 and "reference check: PASS" in text:
        return name, "passed", ""
    if p.returncode == 1:
        fail = [l for l in text.splitlines() if "out of tolerance" in l or "shape" in l]
        return name, "wrong", (fail[0] if fail else text.strip().splitlines()[-1:] or [""])[0]
    errors = [l for l in text.splitlines() if l.startswith("weft: error:")]
    if p.returncode == 2 and errors:
        return name, "refused", errors[0][len("weft: error: "):]
    return name, "crashed", f"exit {p.returncode}: " + " | ".join(text.strip().splitlines()[-3:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft", required=True)
    ap.add_argument("--set", action="append", help="node, pytorch-converted, pytorch-operator, simple (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--min-passed", type=int, default=0, help="fail when fewer tests pass")
    ap.add_argument("--list", help="write every test's outcome and message here (JSON)")
    ap.add_argument("--filter", default="", help="only tests whose name matches this regular expression")
    args = ap.parse_args()
    sets = args.set or ["node", "pytorch-converted", "pytorch-operator", "simple"]
    if not os.path.isdir(DATA):
        print(f"onnx tests: {DATA} is missing (Debian package libonnx-testdata)", file=sys.stderr)
        return 2
    tests = []
    for s in sets:
        root = os.path.join(DATA, s)
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            if os.path.isfile(os.path.join(d, "model.onnx")) and re.search(args.filter, name):
                tests.append((s, d))
    results = {}
    with tempfile.TemporaryDirectory() as out_dir:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(run_one, args.weft, d, out_dir, args.timeout): (s, d) for s, d in tests}
            for f in concurrent.futures.as_completed(futures):
                s, d = futures[f]
                name, outcome, message = f.result()
                results[f"{s}/{name}"] = {"outcome": outcome, "message": message}
    by_set = collections.defaultdict(collections.Counter)
    for key, r in results.items():
        by_set[key.split("/")[0]][r["outcome"]] += 1
    total = collections.Counter()
    for s in sets:
        c = by_set[s]
        total.update(c)
        print(f"{s:<18} {sum(c.values()):4d} tests: {c['passed']:4d} passed, {c['refused']:4d} refused, "
              f"{c['wrong']:3d} wrong, {c['crashed']:3d} crashed")
    for key in sorted(results):
        r = results[key]
        if r["outcome"] in ("wrong", "crashed"):
            print(f"  {r['outcome'].upper()}: {key}: {r['message']}")
    if args.list:
        with open(args.list, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    print(f"onnx tests: {total['passed']} passed, {total['wrong'] + total['crashed']} failed, "
          f"{total['refused']} skipped (refused with a clear error)")
    bad = total["wrong"] + total["crashed"]
    if bad or total["passed"] < args.min_passed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
