#!/usr/bin/python3
"""SCALE-Sim v2's own lower bound on a conv table's cycles, beside weft's cycles.

SCALE-Sim v2 (scalesim/compute/systolic_compute_ws.py at commit 22f88b1) runs a weight-stationary
layer as folds of its K x N filter matrix (K = Fh * Fw * C rows, N filters) on an R x C array, each
fold 2R + C + T - 2 cycles long (R to load the weights, the T output pixels, C - 1 to drain, R - 1
of skew), with T = ceil((H - Fh + S) / S) * ceil((W - Fw + S) / S) (its output size). Its Total
Cycles are that plus its memory stalls, so folds * (2R + C + T - 2) - 1 bounds them from below: its
reports' Total - Stall equal this within a cycle (tests/tool/scalesim/README.md). A weft layer at or
under the bound takes no more cycles than SCALE-Sim would, without running SCALE-Sim for hours.

usage: scripts/scalesim_bound.py TABLE.csv WEFT_REPORT.json [ROWS COLS]
  WEFT_REPORT.json: `weft --hw ... scalesim TABLE.csv --json WEFT_REPORT.json` (same table).
"""
import csv
import json
import math
import sys


def read_table(path):
    layers = []
    with open(path, newline='', encoding='utf-8-sig') as f:
        for row in csv.reader(f):
            cells = [c.strip() for c in row]
            if not cells or not cells[0] or cells[0].lower().startswith('layer'):
                continue
            layers.append((cells[0], [int(c) for c in cells[1:8]]))
    return layers


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    rows, cols = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) == 5 else (16, 16)
    layers = read_table(sys.argv[1])
    weft = json.load(open(sys.argv[2]))['layers']
    if len(weft) != len(layers):
        sys.exit(f'{sys.argv[2]} has {len(weft)} layers, {sys.argv[1]} {len(layers)}: not a report of this table')
    print(f"{'layer':12} {'bound by':8} {'weft cycles':>12} {'SCALE-Sim >=':>13} {'ratio':>6}")
    total_weft = total_bound = 0
    over = []
    for (name, (h, w, fh, fw, ch, n, s)), layer in zip(layers, weft):
        if layer['name'] != name:
            sys.exit(f"layer {layer['name']} of the report is {name} in the table")
        t = math.ceil((h - fh + s) / s) * math.ceil((w - fw + s) / s)
        folds = math.ceil(fh * fw * ch / rows) * math.ceil(n / cols)
        bound = folds * (2 * rows + cols + t - 2) - 1
        ratio = layer['cycles'] / bound
        total_weft += layer['cycles']
        total_bound += bound
        if ratio > 1 and layer['boundBy'] == 'compute':
            over.append(name)
        print(f"{name:12} {layer['boundBy']:8} {layer['cycles']:12} {bound:13} {ratio:6.3f}")
    print(f"{'total':12} {'':8} {total_weft:12} {total_bound:13} {total_weft / total_bound:6.3f}")
    print('compute-bound layers over the bound (need SCALE-Sim itself): ' + (', '.join(over) if over else 'none'))


if __name__ == '__main__':
    main()
