#!/usr/bin/python3
"""SCALE-Sim v2's own lower bound on a conv table's cycles, beside weft's cycles.

SCALE-Sim v2 (scalesim/compute/systolic_compute_ws.py at commit 22f88b1) runs a weight-stationary
layer as folds of its K x N filter matrix (K = Fh * Fw * C rows, N filters) on an R x C array, each
fold 2R + C + T - 2 cycles long (R to load the weights, the T output pixels, C - 1 to drain, R - 1
of skew), with T = ceil((H - Fh + S) / S) * ceil((W - Fw + S) / S) (its output size). Its Total
Cycles are that plus its memory stalls, so folds * (2R + C + T - 2) - 1 bounds them from below: its
reports' Total - Stall equal it exactly (ctest tool.scalesim_bound.*, --check). A weft layer at or
under the bound takes no more cycles than SCALE-Sim would, without running SCALE-Sim for hours.

usage: scripts/scalesim_bound.py TABLE.csv WEFT_REPORT.json [ROWS COLS]
         WEFT_REPORT.json: `weft --hw ... scalesim TABLE.csv --json WEFT_REPORT.json` (same table)
       scripts/scalesim_bound.py --check TABLE.csv SCALESIM_COMPUTE_REPORT.csv [ROWS COLS]
         the model against a report SCALE-Sim wrote for the table (weight-stationary): every row's
         Total - Stall Cycles must equal the bound; exit 1 naming the rows that do not
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


def bound(shape, rows, cols):
    """SCALE-Sim's stall-free weight-stationary cycles for a layer of the table."""
    h, w, fh, fw, ch, n, s = shape
    t = math.ceil((h - fh + s) / s) * math.ceil((w - fw + s) / s)
    folds = math.ceil(fh * fw * ch / rows) * math.ceil(n / cols)
    return folds * (2 * rows + cols + t - 2) - 1


def check(args):
    rows, cols = (int(args[2]), int(args[3])) if len(args) == 4 else (16, 16)
    layers = read_table(args[0])
    with open(args[1], newline='') as f:
        report = [r for r in csv.reader(f)][1:]
    wrong = []
    for r in report:
        i, total, stall = int(r[0]), int(r[1]), int(r[2])
        b = bound(layers[i][1], rows, cols)
        print(f"{i:3} {layers[i][0]:12} Total - Stall {total - stall:10}  bound {b:10}")
        if total - stall != b:
            wrong.append(layers[i][0])
    if wrong:
        sys.exit('the bound misses SCALE-Sim on ' + ', '.join(wrong))
    print(f'{len(report)} rows: Total - Stall equals the bound on every one')


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == '--check':
        if len(sys.argv) not in (4, 6):
            sys.exit(__doc__)
        return check(sys.argv[2:])
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
        b = bound((h, w, fh, fw, ch, n, s), rows, cols)
        ratio = layer['cycles'] / b
        total_weft += layer['cycles']
        total_bound += b
        if ratio > 1 and layer['boundBy'] == 'compute':
            over.append(name)
        print(f"{name:12} {layer['boundBy']:8} {layer['cycles']:12} {b:13} {ratio:6.3f}")
    print(f"{'total':12} {'':8} {total_weft:12} {total_bound:13} {total_weft / total_bound:6.3f}")
    print('compute-bound layers over the bound (need SCALE-Sim itself): ' + (', '.join(over) if over else 'none'))


if __name__ == '__main__':
    main()
